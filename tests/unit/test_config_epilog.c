/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The epilog: section of supernode.yaml (lib/config_epilog.c): values and
 * defaults, and each refusal with its exact "FILE:LINE:COL: key: message".
 */
#include "unit.h"

#include "sn_config.h"

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

/* The config must be refused with exactly msg. */
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

static void test_dirs(void **state)
{
	struct sn_config *cfg;

	(void)state;
	cfg = load_ok(HEAD "epilog:\n"
		      "  record_dir: /shared/records/%n\n"
		      "  textfile_dir: /var/lib/node-exporter/%h%%\n");
	assert_string_equal(cfg->epilog.record_dir, "/shared/records/%n");
	assert_string_equal(cfg->epilog.textfile_dir,
			    "/var/lib/node-exporter/%h%%");
	sn_config_free(cfg);

	cfg = load_ok(HEAD);
	assert_string_equal(cfg->epilog.record_dir, "/var/lib/supernode/records");
	assert_null(cfg->epilog.textfile_dir);
	assert_int_equal(cfg->epilog.timeout_s, 30);
	sn_config_free(cfg);
}

/* The epilog's dirs follow the same path rule as paths.* (one function). */
static void test_dirs_percent(void **state)
{
	(void)state;
	REFUSED("epilog:\n  record_dir: /shared/%z\n",
		"t.yaml:5:15: epilog.record_dir: '/shared/%z': only %n, %h and %% may follow %");
	REFUSED("epilog:\n  textfile_dir: /var/lib/x%\n",
		"t.yaml:5:17: epilog.textfile_dir: '/var/lib/x%': only %n, %h and %% may follow %");
	REFUSED("epilog:\n  record_dir: records\n",
		"t.yaml:5:15: epilog.record_dir: 'records' is not an absolute path");
}

/* A newline in a path: refused, as in every config string. */
static void test_dirs_newline(void **state)
{
	(void)state;
	REFUSED("epilog:\n  record_dir: \"/shared/records\\n/etc\"\n",
		"t.yaml:5:15: epilog.record_dir: a newline at byte 16 of '/shared/records?/etc' (quoted): a config string is one line without control characters");
	REFUSED("epilog:\n  textfile_dir: \"/var/lib/x\\n\"\n",
		"t.yaml:5:17: epilog.textfile_dir: a newline at byte 11 of '/var/lib/x?' (quoted): a config string is one line without control characters");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dirs),
		cmocka_unit_test(test_dirs_percent),
		cmocka_unit_test(test_dirs_newline),
	};

	return cmocka_run_group_tests_name("config_epilog", tests, NULL, NULL);
}
