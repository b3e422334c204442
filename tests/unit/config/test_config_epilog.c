/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The epilog: section of supernode.yaml (lib/config_epilog.c): values and
 * defaults, and each refusal with its exact "FILE:LINE:COL: key: message".
 */
#include "unit.h"

#include "config/sn_config.h"
#include "config/sn_counters.h"

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
	assert_string_equal(cfg->epilog.record_dir,
			    "/var/lib/supernode/records");
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

/*
 * The config loads with exactly one deprecated use, whose warning is msg
 * (etc/README.md "Upgrading").
 */
static void deprecated_at(const char *yaml, const char *msg, const char *file,
			  int line)
{
	struct sn_config *cfg;
	struct sn_error err;

	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("%s:%d: refused: %s", file, line, err.msg);
	if (cfg->n_deprecated != 1)
		fail_msg("%s:%d: %zu deprecated uses, want 1", file, line,
			 cfg->n_deprecated);
	if (strcmp(cfg->deprecated[0].msg, msg))
		fail_msg("%s:%d: warning\n  got:  %s\n  want: %s", file, line,
			 cfg->deprecated[0].msg, msg);
	sn_config_free(cfg);
}

#define DEPRECATED(yaml, msg) deprecated_at(HEAD yaml, msg, __FILE__, __LINE__)

/*
 * A name the epilog never judges: until b552cb7 it loaded and was never
 * applied; it still loads, still unapplied, with a warning that names its
 * neighbours (same stem), not the whole table.  A name the old loader
 * refused (not [A-Za-z0-9_], 64 bytes or more) is refused.
 */
static void test_threshold_names(void **state)
{
	struct sn_config *cfg;

	(void)state;
	DEPRECATED(
		"epilog:\n  thresholds:\n    symbol_errors: {warn: 10}\n",
		"t.yaml:6:5: epilog.thresholds.symbol_errors: deprecated (changed in b552cb7): symbol_errors is no counter the epilog judges: ignored, as it always was; name one of symbol_error, or remove the entry");
	DEPRECATED(
		"epilog:\n  thresholds:\n    link_downed: {crit: 1}\n    Link_Downed: {crit: 1}\n",
		"t.yaml:7:5: epilog.thresholds.Link_Downed: deprecated (changed in b552cb7): Link_Downed is no counter the epilog judges: ignored, as it always was; name one of link_downed, link_error_recovery, or remove the entry");
	DEPRECATED(
		"epilog:\n  thresholds:\n    hccs_crc_errors: {warn: 1/h}\n",
		"t.yaml:6:5: epilog.thresholds.hccs_crc_errors: deprecated (changed in b552cb7): hccs_crc_errors is no counter the epilog judges: ignored, as it always was; name one of hccs_crc, hccs_retry, or remove the entry");
	DEPRECATED(
		"epilog:\n  thresholds:\n    bogus: {warn: 1/h}\n",
		"t.yaml:6:5: epilog.thresholds.bogus: deprecated (changed in b552cb7): bogus is no counter the epilog judges: ignored, as it always was; name one of the counters of epilog/README.md, or remove the entry");
	cfg = load_ok(
		HEAD "epilog:\n  thresholds:\n    symbol_errors: {warn: 10}\n");
	assert_null(sn_threshold_find(&cfg->epilog, "symbol_errors"));
	sn_config_free(cfg);
	REFUSED("epilog:\n  thresholds:\n    \"port-xmit-bytes\": {warn: 1}\n",
		"t.yaml:6:5: epilog.thresholds.port-xmit-bytes: not a counter the epilog judges (allowed: the counters of epilog/README.md)");
	/* its limits are still checked as they were */
	REFUSED("epilog:\n  thresholds:\n    bogus: {warn: 1/s}\n",
		"t.yaml:6:19: epilog.thresholds.bogus.warn: \"1/s\" is not a limit: write N/h (per hour of the job), N/TB (per TB moved) or, for a count per job, N/job (N a number above 0, at most 1e12 for a rate)");
}

/* Defaults, the config's own limits, and names without a default. */
static void test_thresholds(void **state)
{
	const struct sn_threshold *t;
	struct sn_config *cfg;

	(void)state;
	cfg = load_ok(HEAD);
	assert_int_equal(cfg->epilog.n_thresholds,
			 32); /* those with a default (6 vendor link rows) */
	t = sn_threshold_find(&cfg->epilog, "symbol_error");
	assert_non_null(t);
	assert_true(t->has_warn && t->has_crit);
	assert_int_equal(t->unit, SN_UNIT_PER_HOUR);
	assert_true(t->warn == 10 && t->crit == 120);
	t = sn_threshold_find(&cfg->epilog, "link_downed");
	assert_int_equal(t->unit, SN_UNIT_COUNT);
	assert_true(!t->has_warn && t->crit == 1);
	t = sn_threshold_find(&cfg->epilog, "nvlink_dl_crc");
	assert_int_equal(t->unit, SN_UNIT_PER_TB);
	assert_true(t->warn == 10 && t->crit == 100);
	/* Corrected events: information unless the config asks. */
	assert_null(sn_threshold_find(&cfg->epilog, "ecc_corrected"));
	assert_null(sn_threshold_find(&cfg->epilog, "port_xmit_wait"));
	assert_null(sn_threshold_find(&cfg->epilog, "np_cnp_sent"));
	sn_config_free(cfg);

	cfg = load_ok(HEAD "epilog:\n  thresholds:\n"
			   "    symbol_error: {crit: 5/h}\n"
			   "    np_cnp_sent: {warn: 3/TB}\n"
			   "    port_rcv_errors: {warn: 2.5/h, crit: 40/h}\n"
			   "    link_downed: {crit: 2}\n"
			   "    ecc_uncorrected: {crit: 1/h}\n");
	assert_int_equal(cfg->epilog.n_thresholds, 33);
	t = sn_threshold_find(&cfg->epilog, "symbol_error");
	assert_false(t->has_warn);
	assert_true(t->crit == 5);
	assert_int_equal(t->unit, SN_UNIT_PER_HOUR);
	t = sn_threshold_find(&cfg->epilog, "np_cnp_sent");
	assert_non_null(t);
	assert_true(t->warn == 3);
	assert_int_equal(t->unit, SN_UNIT_PER_TB);
	assert_false(t->has_crit);
	t = sn_threshold_find(&cfg->epilog, "port_rcv_errors");
	assert_true(t->warn == 2.5 && t->crit == 40);
	assert_int_equal(t->unit, SN_UNIT_PER_HOUR);
	t = sn_threshold_find(&cfg->epilog, "link_downed");
	assert_true(t->crit == 2);
	assert_int_equal(t->unit, SN_UNIT_COUNT);
	t = sn_threshold_find(&cfg->epilog, "ecc_uncorrected");
	assert_int_equal(t->unit, SN_UNIT_PER_HOUR);
	sn_config_free(cfg);
}

/*
 * The per-job form of before issue 12 (9ecc6b1) on a rate counter keeps
 * its meaning, a count per job, with a warning naming file, line, key and
 * how to write it now (N/job); malformed limits are refused.
 */
static void test_threshold_units(void **state)
{
	struct sn_config *cfg;
	const struct sn_threshold *t;

	(void)state;
	cfg = load_ok(
		HEAD
		"epilog:\n  thresholds:\n    symbol_error: {warn: 10, crit: 10000}\n");
	assert_int_equal(cfg->n_deprecated, 2);
	assert_string_equal(
		cfg->deprecated[0].msg,
		"t.yaml:6:26: epilog.thresholds.symbol_error.warn: deprecated (changed in 9ecc6b1): a bare number is a count per job, and symbol_error's limits are rates now; kept as a count per job: write 10/job to keep it, or a rate such as 10/h (per hour of the job)");
	assert_string_equal(cfg->deprecated[0].text, "10/job");
	assert_string_equal(cfg->deprecated[1].text, "10000/job");
	t = sn_threshold_find(&cfg->epilog, "symbol_error");
	assert_int_equal(t->unit, SN_UNIT_COUNT); /* its old meaning */
	assert_true(t->warn == 10 && t->crit == 10000);
	sn_config_free(cfg);
	DEPRECATED(
		"epilog:\n  thresholds:\n    nvlink_dl_crc: {crit: 100}\n",
		"t.yaml:6:27: epilog.thresholds.nvlink_dl_crc.crit: deprecated (changed in 9ecc6b1): a bare number is a count per job, and nvlink_dl_crc's limits are rates now; kept as a count per job: write 100/job to keep it, or a rate such as 100/TB (per TB moved)");
	/* today's form of it: no warning, the same meaning */
	cfg = load_ok(
		HEAD
		"epilog:\n  thresholds:\n    symbol_error: {warn: 10/job, crit: 10000/job}\n");
	assert_int_equal(cfg->n_deprecated, 0);
	t = sn_threshold_find(&cfg->epilog, "symbol_error");
	assert_int_equal(t->unit, SN_UNIT_COUNT);
	assert_true(t->warn == 10 && t->crit == 10000);
	sn_config_free(cfg);
	/* counts as large as the old loader took them (2^62) */
	cfg = load_ok(
		HEAD
		"epilog:\n  thresholds:\n    link_downed: {crit: 4611686018427387904}\n");
	assert_int_equal(cfg->n_deprecated, 0);
	sn_config_free(cfg);
	REFUSED("epilog:\n  thresholds:\n    link_downed: {crit: 4611686018427387905000}\n",
		"t.yaml:6:25: epilog.thresholds.link_downed.crit: \"4611686018427387905000\" is not a limit: write N/h (per hour of the job), N/TB (per TB moved) or, for a count per job, N/job (N a number above 0, at most 1e12 for a rate)");
	REFUSED("epilog:\n  thresholds:\n    symbol_error: {warn: 10/h, crit: 100/TB}\n",
		"t.yaml:6:38: epilog.thresholds.symbol_error.crit: warn and crit of symbol_error must use the same unit (\"/h\" and \"/TB\")");
	REFUSED("epilog:\n  thresholds:\n    symbol_error: {warn: 10/s}\n",
		"t.yaml:6:26: epilog.thresholds.symbol_error.warn: \"10/s\" is not a limit: write N/h (per hour of the job), N/TB (per TB moved) or, for a count per job, N/job (N a number above 0, at most 1e12 for a rate)");
	REFUSED("epilog:\n  thresholds:\n    symbol_error: {warn: 0/h}\n",
		"t.yaml:6:26: epilog.thresholds.symbol_error.warn: \"0/h\" is not a limit: write N/h (per hour of the job), N/TB (per TB moved) or, for a count per job, N/job (N a number above 0, at most 1e12 for a rate)");
	REFUSED("epilog:\n  thresholds:\n    symbol_error: {warn: -3/h}\n",
		"t.yaml:6:26: epilog.thresholds.symbol_error.warn: \"-3/h\" is not a limit: write N/h (per hour of the job), N/TB (per TB moved) or, for a count per job, N/job (N a number above 0, at most 1e12 for a rate)");
	REFUSED("epilog:\n  thresholds:\n    symbol_error: {warn: 1e3/h}\n",
		"t.yaml:6:26: epilog.thresholds.symbol_error.warn: \"1e3/h\" is not a limit: write N/h (per hour of the job), N/TB (per TB moved) or, for a count per job, N/job (N a number above 0, at most 1e12 for a rate)");
	REFUSED("epilog:\n  thresholds:\n    symbol_error: {warn: 20/h, crit: 10/h}\n",
		"t.yaml:6:19: epilog.thresholds.symbol_error: warn 20/h is above crit 10/h");
}

/* Every accelerator counter the epilog computes takes a threshold. */
static void test_accel_names_allowed(void **state)
{
	char yaml[256];
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < sn_counters_count; i++) {
		const char *name = sn_counters[i].name;
		struct sn_config *cfg;

		if (sn_counters[i].source != SN_COUNTER_ACCEL)
			continue;
		n++;
		snprintf(yaml, sizeof(yaml),
			 HEAD "epilog:\n  thresholds:\n    %s: {warn: 7/h}\n",
			 name);
		cfg = load_ok(yaml);
		assert_true(sn_threshold_find(&cfg->epilog, name)->warn == 7);
		sn_config_free(cfg);
	}
	assert_int_equal(n, 22); /* 15 NVIDIA rows, 7 of other vendors */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dirs),
		cmocka_unit_test(test_dirs_percent),
		cmocka_unit_test(test_dirs_newline),
		cmocka_unit_test(test_threshold_names),
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_threshold_units),
		cmocka_unit_test(test_accel_names_allowed),
	};

	return cmocka_run_group_tests_name("config_epilog", tests, NULL, NULL);
}
