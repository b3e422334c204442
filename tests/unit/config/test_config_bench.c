/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bench: section of supernode.yaml (lib/config_bench.c): values,
 * defaults, and each refusal with its exact "FILE:LINE:COL: key: message".
 */
#include "unit.h"

#include "config/sn_config.h"

/* Every test starts with the same three lines: line numbers below count them. */
#define HEAD "supernodes:\n  - name: sn01\n    nodes: n[1-2]\n"

static struct sn_config *load_ok(const char *yaml)
{
	struct sn_config *cfg;
	struct sn_error err;

	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("refused: %s\n%s", err.msg, yaml);
	return cfg;
}

static void refused_at(const char *yaml, const char *msg, const char *file,
		       int line)
{
	struct sn_config *cfg;
	struct sn_error err;

	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (cfg) {
		sn_config_free(cfg);
		fail_msg("%s:%d: accepted:\n%s", file, line, yaml);
	}
	if (strcmp(err.msg, msg))
		fail_msg("%s:%d: message\n  got:  %s\n  want: %s", file, line,
			 err.msg, msg);
}

#define REFUSED(yaml, msg) refused_at(HEAD yaml, msg, __FILE__, __LINE__)

static void test_values(void **state)
{
	struct sn_config *cfg;

	(void)state;
	cfg = load_ok(
		HEAD "bench:\n  rated_busbw_gbps: 450\n  min_fraction: 0.75\n");
	assert_true(cfg->bench.rated_busbw_gbps == 450.0);
	assert_true(cfg->bench.min_fraction == 0.75);
	assert_true(cfg->bench.has_min_fraction);
	sn_config_free(cfg);

	cfg = load_ok(HEAD
		      "bench:\n  rated_busbw_gbps: 12.5\n  min_fraction: 1\n");
	assert_true(cfg->bench.rated_busbw_gbps == 12.5);
	assert_true(cfg->bench.min_fraction == 1.0);
	sn_config_free(cfg);
}

static void test_defaults(void **state)
{
	struct sn_config *cfg;

	(void)state;
	/* No bench: section: no rated value, the default fraction. */
	cfg = load_ok(HEAD);
	assert_true(cfg->bench.rated_busbw_gbps == 0);
	assert_true(cfg->bench.min_fraction == SN_BENCH_DEFAULT_FRACTION);
	assert_true(cfg->bench.min_fraction == 0.8);
	assert_false(cfg->bench.has_min_fraction);
	sn_config_free(cfg);

	cfg = load_ok(HEAD "bench:\n  rated_busbw_gbps: 50\n");
	assert_true(cfg->bench.rated_busbw_gbps == 50.0);
	assert_true(cfg->bench.min_fraction == 0.8);
	assert_false(cfg->bench.has_min_fraction);
	sn_config_free(cfg);

	cfg = load_ok(HEAD "bench: {}\n");
	assert_true(cfg->bench.rated_busbw_gbps == 0);
	sn_config_free(cfg);
}

static void test_refused(void **state)
{
	(void)state;
	REFUSED("bench:\n  rated_busbw: 50\n",
		"t.yaml:5:3: bench.rated_busbw: unknown key (allowed here: rated_busbw_gbps, min_fraction)");
	REFUSED("bench:\n  rated_busbw_gbps: 0\n",
		"t.yaml:5:21: bench.rated_busbw_gbps: must be greater than 0");
	REFUSED("bench:\n  rated_busbw_gbps: 0.0\n",
		"t.yaml:5:21: bench.rated_busbw_gbps: must be greater than 0");
	REFUSED("bench:\n  rated_busbw_gbps: -5\n",
		"t.yaml:5:21: bench.rated_busbw_gbps: expected a number from 0 to 100000, found '-5'");
	REFUSED("bench:\n  rated_busbw_gbps: 400Gb\n",
		"t.yaml:5:21: bench.rated_busbw_gbps: expected a number from 0 to 100000, found '400Gb'");
	REFUSED("bench:\n  rated_busbw_gbps: \"50\"\n",
		"t.yaml:5:21: bench.rated_busbw_gbps: expected a number from 0 to 100000, found '50' (quoted)");
	REFUSED("bench:\n  rated_busbw_gbps: 1000000\n",
		"t.yaml:5:21: bench.rated_busbw_gbps: 1e+06 is out of range (allowed: 0 to 100000)");
	REFUSED("bench:\n  rated_busbw_gbps: 50\n  min_fraction: 1.5\n",
		"t.yaml:6:17: bench.min_fraction: 1.5 is out of range (allowed: 0 to 1)");
	REFUSED("bench:\n  rated_busbw_gbps: 50\n  min_fraction: 0\n",
		"t.yaml:6:17: bench.min_fraction: must be greater than 0");
	REFUSED("bench:\n  rated_busbw_gbps: 50\n  min_fraction: 80%\n",
		"t.yaml:6:17: bench.min_fraction: expected a number from 0 to 1, found '80%'");
	REFUSED("bench:\n  min_fraction: 0.9\n",
		"t.yaml:5:3: bench: min_fraction needs rated_busbw_gbps");
	REFUSED("bench:\n  rated_busbw_gbps: 50\n  rated_busbw_gbps: 60\n",
		"t.yaml:6:3: bench.rated_busbw_gbps: duplicate key");
	REFUSED("bench: 50\n",
		"t.yaml:4:8: bench: expected a mapping, found a scalar");
	REFUSED("bench:\n",
		"t.yaml:4:7: bench: expected a mapping, found empty");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
