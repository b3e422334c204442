/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table of old config forms (lib/config/deprecated.c) and config
 * migrate's rewrite (lib/config/migrate.c): each row loads with its old
 * meaning and its exact warning, each rewrite gives exact text that loads
 * with no warning.  Before deprecated.c (84885af) every loading case here
 * was refused.
 */
#include "unit.h"

#include "config/sn_config.h"
#include "config/sn_config_deprecated.h"
#include "config/sn_config_migrate.h"

#define HEAD "supernodes:\n  - name: sn01\n    nodes: n[1-2]\n"

/* Every row is complete, and the ids are unique. */
static void test_table(void **state)
{
	(void)state;
	assert_int_equal(sn_deprecated_count, 8);
	for (size_t i = 0; i < sn_deprecated_count; i++) {
		const struct sn_deprecated *d = &sn_deprecated[i];

		assert_non_null(d->id);
		assert_non_null(d->old_form);
		assert_non_null(d->new_form);
		assert_non_null(d->since);
		assert_non_null(d->accepted);
		if (d->kind == SN_DEP_KEY_RENAME || d->kind == SN_DEP_REFUSED) {
			assert_non_null(d->section);
			assert_non_null(d->old_key);
			assert_ptr_equal(sn_deprecated_rename(d->section,
							      d->old_key),
					 d);
		}
		if (d->kind == SN_DEP_KEY_RENAME)
			assert_non_null(d->new_key);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(d->id, sn_deprecated[j].id);
	}
	assert_string_equal(sn_deprecated_kind(SN_DEP_BARE_LIMIT)->since,
			    "9ecc6b1");
	assert_string_equal(sn_deprecated_kind(SN_DEP_UNJUDGED_NAME)->since,
			    "b552cb7");
	assert_null(sn_deprecated_rename("prolog", "timeout"));
	assert_null(sn_deprecated_rename("env", "timeout_s"));
}

/* Renamed keys: the new key's value, the warning, the edit. */
static void test_rename(void **state)
{
	static const char yaml[] = HEAD
		"prolog: {timeout_s: 60, per_check_timeout_s: 15}\n"
		"env:\n  socket_interface: bond0\n";
	struct sn_config *cfg;
	struct sn_error err;

	(void)state;
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	assert_non_null(cfg);
	assert_int_equal(cfg->prolog.timeout_s, 60);
	assert_int_equal(cfg->prolog.check_timeout_s, 15);
	assert_string_equal(cfg->socket_ifname, "bond0");
	assert_int_equal(cfg->n_deprecated, 3);
	assert_string_equal(
		cfg->deprecated[0].msg,
		"t.yaml:4:10: prolog.timeout_s: deprecated (field case 16's spelling): timeout_s is now prolog.timeout; write prolog: {timeout: N}");
	assert_string_equal(cfg->deprecated[0].text, "timeout");
	assert_int_equal(cfg->deprecated[0].end - cfg->deprecated[0].start, 9);
	assert_string_equal(
		cfg->deprecated[2].msg,
		"t.yaml:6:3: env.socket_interface: deprecated (field case 5's spelling): socket_interface is now env.socket_ifname; write env: {socket_ifname: NAME}");
	sn_config_free(cfg);
}

/* Old and new name of one key together: a duplicate, as before. */
static void test_rename_duplicate(void **state)
{
	static const char yaml[] = HEAD "prolog: {timeout: 5, timeout_s: 6}\n";
	struct sn_error err;

	(void)state;
	assert_null(sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err));
	assert_string_equal(err.msg,
			    "t.yaml:4:22: prolog.timeout_s: duplicate key");
}

/* The field cases' forms without an equivalent: refused, naming it. */
static void test_refused(void **state)
{
	static const char yaml[] = HEAD "nvlink: {expected_links: 18}\n";
	struct sn_error err;

	(void)state;
	assert_null(sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err));
	assert_string_equal(
		err.msg,
		"t.yaml:4:1: nvlink: unknown key: this form was never accepted; write node: {accelerators: {vendor: nvidia, count: C, nvlinks: N}}");
}

/* migrate: yaml in, exactly want out, n uses rewritten; want loads clean. */
static void migrated(const char *yaml, const char *want, size_t n)
{
	struct sn_strbuf out = SN_STRBUF_INIT;
	struct sn_config *cfg;
	struct sn_error err;
	size_t changed;

	err_reset(&err);
	if (sn_config_migrate("t.yaml", yaml, strlen(yaml), &out, &changed,
			      &err))
		fail_msg("migrate: %s", err.msg);
	assert_string_equal(sn_strbuf_str(&out), want);
	assert_int_equal(changed, n);
	cfg = sn_config_load_buffer("t.yaml", want, strlen(want), &err);
	assert_non_null(cfg);
	assert_int_equal(cfg->n_deprecated, 0);
	sn_config_free(cfg);
	sn_strbuf_free(&out);
}

static void test_migrate(void **state)
{
	(void)state;
	/* bare limits, comments kept; a quoted one loses its quotes */
	migrated(HEAD "epilog:\n  thresholds:   # mine\n"
		      "    symbol_error: {warn: 10, crit: \"100\"}  # per job\n"
		      "    link_downed: {crit: 1}\n",
		 HEAD
		 "epilog:\n  thresholds:   # mine\n"
		 "    symbol_error: {warn: 10/job, crit: 100/job}  # per job\n"
		 "    link_downed: {crit: 1}\n",
		 2);
	/* an unjudged name on its own lines: commented out */
	migrated(
		HEAD "epilog:\n  thresholds:\n    symbol_errors:\n"
		     "      warn: 5\n    link_downed: {crit: 1}\n",
		HEAD
		"epilog:\n  thresholds:\n"
		"    # symbol_errors:  # never applied: no counter of that name\n"
		"      # warn: 5\n    link_downed: {crit: 1}\n",
		1);
	/* the only entry: "thresholds:" is left empty, which loads */
	migrated(
		HEAD "epilog:\n  thresholds:\n    bogus: {warn: 5}\n"
		     "  timeout: 20\n",
		HEAD
		"epilog:\n  thresholds:\n"
		"    # bogus: {warn: 5}  # never applied: no counter of that name\n"
		"  timeout: 20\n",
		1);
	/* in a flow mapping: cut with its comma, first, middle or last */
	migrated(
		HEAD
		"epilog: {thresholds: {bogus: {warn: 5}, link_downed: {crit: 1}}}\n",
		HEAD "epilog: {thresholds: {link_downed: {crit: 1}}}\n", 1);
	migrated(
		HEAD
		"epilog: {thresholds: {link_downed: {crit: 1}, bogus: {warn: 5}}}\n",
		HEAD "epilog: {thresholds: {link_downed: {crit: 1}}}\n", 1);
	migrated(HEAD "epilog: {thresholds: {bogus: {warn: 5}}}\n",
		 HEAD "epilog: {thresholds: {}}\n", 1);
	/* nothing to change: the same bytes */
	migrated(HEAD "prolog: {timeout: 5}  # kept\n",
		 HEAD "prolog: {timeout: 5}  # kept\n", 0);
}

/* migrate of a file that does not load: the loader's message. */
static void test_migrate_invalid(void **state)
{
	static const char yaml[] = HEAD "prolog: {timeout: 0}\n";
	struct sn_strbuf out = SN_STRBUF_INIT;
	struct sn_error err;
	size_t changed;

	(void)state;
	assert_int_equal(sn_config_migrate("t.yaml", yaml, strlen(yaml), &out,
					   &changed, &err),
			 -1);
	assert_int_equal(changed, 0);
	assert_string_equal(
		err.msg,
		"t.yaml:4:19: prolog.timeout: 0 is out of range (allowed: 1 to 3600)");
	sn_strbuf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_rename),
		cmocka_unit_test(test_rename_duplicate),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_migrate),
		cmocka_unit_test(test_migrate_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
