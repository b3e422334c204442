/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_hostlist_expand: field cases 1 (first host = MASTER_ADDR) and 2
 * (expansion, padding, several bracket groups, malformed input, limits).
 *
 * What Slurm 22.05's own parser does with each input was measured with a
 * probe against libslurm; lib/hostlist.c records the behaviours and the
 * decisions taken where Slurm is lenient.
 */
#include <time.h>

#include "unit.h"

#include "util/sn_hostlist.h"

/* Expand expr and compare with the NULL-terminated list want[]. */
static void expands_to(const char *expr, const char *const *want)
{
	struct sn_names names;
	struct sn_error err;
	size_t n = 0;

	err_reset(&err);
	if (sn_hostlist_expand(expr, SN_HOSTLIST_MAX, &names, &err))
		fail_msg("'%s' refused: %s", expr, err.msg);
	while (want[n])
		n++;
	if (names.count != n)
		fail_msg("'%s': %zu hosts, expected %zu", expr, names.count, n);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(names.names[i], want[i]))
			fail_msg("'%s': host %zu is '%s', expected '%s'", expr,
				 i, names.names[i], want[i]);
	}
	sn_names_free(&names);
	assert_null(names.names);
	assert_int_equal(names.count, 0);
}

#define EXPANDS(expr, ...) \
	expands_to(expr, (const char *const[]){ __VA_ARGS__, NULL })

/* Refused with fragment in the message and no partial result. */
static void refused(const char *expr, size_t max, const char *fragment)
{
	struct sn_names names = { (char **)0x1, 77 };
	struct sn_error err;

	err_reset(&err);
	if (!sn_hostlist_expand(expr, max, &names, &err))
		fail_msg("'%s' accepted: %zu hosts, first '%s'", expr,
			 names.count, names.count ? names.names[0] : "");
	assert_null(names.names);
	assert_int_equal(names.count, 0);
	assert_contains(err.msg, fragment);
}

static void test_case2_valid(void **state)
{
	(void)state;
	EXPANDS("c[1-2]", "c1", "c2");
	EXPANDS("login", "login");
	EXPANDS("node[08-11]", "node08", "node09", "node10", "node11");
	EXPANDS("node[9-10]", "node9", "node10");
	/* Width per range, not per list. */
	EXPANDS("nd[01-02,007-008]", "nd01", "nd02", "nd007", "nd008");
	/* Slurm 22.05: several groups are a Cartesian product, the last group
	 * varying fastest; text between groups is kept. */
	EXPANDS("gpu-a[1-2]-b[3-4]", "gpu-a1-b3", "gpu-a1-b4", "gpu-a2-b3",
		"gpu-a2-b4");
	EXPANDS("rack[0-1]_blade[0-1]", "rack0_blade0", "rack0_blade1",
		"rack1_blade0", "rack1_blade1");
}

/*
 * Three or more groups: Slurm 22.05 varies the last group fastest, then the
 * first, then the second (not plain odometer order).  We keep its order, the
 * order of `scontrol show hostnames`.
 */
static void test_three_groups_slurm_order(void **state)
{
	(void)state;
	EXPANDS("a[1-2]b[1-2]c[1-2]", "a1b1c1", "a1b1c2", "a2b1c1", "a2b1c2",
		"a1b2c1", "a1b2c2", "a2b2c1", "a2b2c2");
	EXPANDS("n[1-2]-[3-4]", "n1-3", "n1-4", "n2-3", "n2-4");
}

static void test_width_and_order(void **state)
{
	(void)state;
	/* A range takes its low end's width. */
	EXPANDS("n[001-3]", "n001", "n002", "n003");
	EXPANDS("n[1-003]", "n1", "n2", "n3");
	EXPANDS("n[01-2]", "n01", "n02");
	/* Order as written; duplicates kept (callers check for them). */
	EXPANDS("n[3,1,2]", "n3", "n1", "n2");
	EXPANDS("n[1-2],n1", "n1", "n2", "n1");
	EXPANDS("n[0000000001-0000000002]", "n0000000001", "n0000000002");
	/* The largest number Slurm does not wrap is still a number. */
	EXPANDS("n[18446744073709551614]", "n18446744073709551614");
	/* No prefix at all: Slurm accepts bare numbers. */
	EXPANDS("[1-2]", "1", "2");
}

/*
 * b1u01n1,b2u[05,02]n3: text after the last bracket group.  Slurm 22.05
 * refuses it (as slurm.conf refuses it in NodeName); we decided to refuse it
 * too, explicitly, whatever the Slurm version.
 */
static void test_suffix_after_group_refused(void **state)
{
	(void)state;
	refused("b1u01n1,b2u[05,02]n3", SN_HOSTLIST_MAX,
		"cannot parse nodelist 'b1u01n1,b2u[05,02]n3'");
	refused("unit[0-31]rack", SN_HOSTLIST_MAX, "cannot parse nodelist");
	refused("web[1-3].example.com", SN_HOSTLIST_MAX,
		"cannot parse nodelist");
	refused("n[1-2]x[3]y", SN_HOSTLIST_MAX, "cannot parse nodelist");
	/* Without the suffix the same list is fine, in the order written. */
	EXPANDS("b1u01n1,b2u[05,02]", "b1u01n1", "b2u05", "b2u02");
}

static void test_empty(void **state)
{
	struct sn_names names;
	struct sn_error err;

	(void)state;
	refused("", SN_HOSTLIST_MAX, "empty nodelist");
	refused(NULL, SN_HOSTLIST_MAX, "empty nodelist");
	assert_int_equal(sn_hostlist_expand("", 10, &names, &err), -1);
	assert_string_equal(err.msg, "empty nodelist");
	/* err may be NULL */
	assert_int_equal(sn_hostlist_expand("", 10, &names, NULL), -1);
}

/* Each malformed form of field case 2: an error, never a partial list. */
static void test_malformed_refused(void **state)
{
	static const char *const bad[] = {
		"node[01",
		"node01]",
		"node[]",
		"node[01,]",
		"node[,01]",
		"node[[01]]",
		"x],y",
		"node[5-3]",
		"node[",
		"sna[1-",
		"node[1-2",
		"node[01-02]]",
		"n[1-2]]",
		"n[0x1]",
		"n[1-2-3]",
		"n[-1]",
		"n[1-]",
		"n[a]",
		"n[1,,2]",
		"a,,b",
		",a",
		"a,",
		",",
		"a b",
		"a\tb",
		"a\nb",
		"n[1 -2]",
		"]",
		"[",
		/* Slurm clamps or wraps these silently: refused here. */
		"node[99999999999999999999]",
		"n[0-18446744073709551616]",
		/* 2^64 - 1 wraps inside Slurm (fuzz_hostlist). */
		"n[18446744073709551615]",
		"18446744073709551615,0",
		"43333333333333333333,0",
		"n18446744073709551616",
		"n[18446744073709551615],n0",
		"n[18446744073709551610-18446744073709551615]",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[300];

		snprintf(want, sizeof(want), "cannot parse nodelist '%s'",
			 bad[i]);
		refused(bad[i], SN_HOSTLIST_MAX, want);
	}
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Over the limit: refused from the count, before anything is expanded. */
static void test_limit(void **state)
{
	struct timespec t0;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	refused("node[0-99999999]", SN_HOSTLIST_MAX,
		"nodelist 'node[0-99999999]' has 100000000 hosts, more than the limit of 65536");
	/* Slurm 22.05 alone takes minutes and tens of GB on this one. */
	refused("a[0-65535]b[0-65535]c[0-3]", SN_HOSTLIST_MAX,
		"has 17179869184 hosts, more than the limit of 65536");
	refused("n[0-18446744073709551615]", SN_HOSTLIST_MAX,
		"has over 1099511627776 hosts, more than the limit of 65536");
	refused("n[0-65535],m[0]", SN_HOSTLIST_MAX,
		"has 65537 hosts, more than the limit of 65536");
	assert_true(seconds_since(&t0) < 1.0);
}

/*
 * 65536 ranges of one host each (fuzz_config: a[0-65535]b[3] ran over 1 s
 * under ASan, slurm_hostlist_shift moving every range down per host): all
 * hosts, in Slurm's order.  The time is measured by tests/bench/hostlist_worst.
 */
static void test_many_ranges(void **state)
{
	size_t len = 2 + 65536 * 7 + 2;
	char *expr = malloc(len), *p = expr;
	struct sn_names names;
	struct sn_error err;

	(void)state;
	assert_non_null(expr);
	p += sprintf(p, "n[");
	for (unsigned i = 0; i < 65536; i++)
		p += sprintf(p, "%s%u", i ? "," : "", 2 * i);
	sprintf(p, "]");
	assert_int_equal(
		sn_hostlist_expand(expr, SN_HOSTLIST_MAX, &names, &err), 0);
	assert_int_equal(names.count, 65536);
	assert_string_equal(names.names[0], "n0");
	assert_string_equal(names.names[1], "n2");
	assert_string_equal(names.names[32768], "n65536");
	assert_string_equal(names.names[65535], "n131070");
	sn_names_free(&names);
	free(expr);

	assert_int_equal(sn_hostlist_expand("a[0-65535]b[3]", SN_HOSTLIST_MAX,
					    &names, &err),
			 0);
	assert_int_equal(names.count, 65536);
	assert_string_equal(names.names[0], "a0b3");
	assert_string_equal(names.names[1000], "a1000b3");
	assert_string_equal(names.names[65535], "a65535b3");
	sn_names_free(&names);
}

static void test_max_honoured(void **state)
{
	struct sn_names names;
	struct sn_error err;

	(void)state;
	refused("n[1-5]", 4,
		"nodelist 'n[1-5]' has 5 hosts, more than the limit of 4");
	refused("a,b", 1, "has 2 hosts, more than the limit of 1");
	refused("a", 0, "has 1 hosts, more than the limit of 0");
	assert_int_equal(sn_hostlist_expand("n[1-5]", 5, &names, &err), 0);
	assert_int_equal(names.count, 5);
	assert_string_equal(names.names[4], "n5");
	sn_names_free(&names);
	/* Exactly SN_HOSTLIST_MAX (field case 2's 65536) is allowed. */
	assert_int_equal(sn_hostlist_expand("node[0-65535]", SN_HOSTLIST_MAX,
					    &names, &err),
			 0);
	assert_int_equal(names.count, 65536);
	assert_string_equal(names.names[0], "node0");
	assert_string_equal(names.names[65535], "node65535");
	sn_names_free(&names);
	sn_names_free(NULL); /* NULL-safe */
}

/* Field case 1: MASTER_ADDR is element 0 of the expanded list. */
static void first_host(const char *expr, const char *want)
{
	struct sn_names names;
	struct sn_error err;

	if (sn_hostlist_expand(expr, SN_HOSTLIST_MAX, &names, &err))
		fail_msg("'%s' refused: %s", expr, err.msg);
	assert_true(names.count >= 1);
	assert_string_equal(names.names[0], want);
	for (size_t i = 0; i < names.count; i++)
		assert_null(strpbrk(names.names[i], "[],"));
	sn_names_free(&names);
}

static void test_case1_first_host(void **state)
{
	(void)state;
	first_host("gpu[1,2]", "gpu1");
	first_host("nodea,nodeb[001,003],nodec", "nodea");
	first_host("site-gpu-ia[810-812]", "site-gpu-ia810");
	first_host("alpha,beta,gamma", "alpha");
	first_host("node[001-004,010]", "node001");
	first_host("rack[0-1]_blade[0-1]", "rack0_blade0");
	first_host("node007", "node007");
	/* ... and the whole lists, in order. */
	EXPANDS("nodea,nodeb[001,003],nodec", "nodea", "nodeb001", "nodeb003",
		"nodec");
	EXPANDS("site-gpu-ia[810-812]", "site-gpu-ia810", "site-gpu-ia811",
		"site-gpu-ia812");
	EXPANDS("alpha,beta,gamma", "alpha", "beta", "gamma");
	EXPANDS("node[001-004,010]", "node001", "node002", "node003", "node004",
		"node010");
}

/* sn_hostlist_compress: names back into one expression, sorted, unique. */
static void test_compress(void **state)
{
	char *names[] = {
		"snb2", "sna1", "sna2", "sna1", "gpu-a010", "gpu-a009"
	};
	char *bad[] = { "sna1", "x[1-3]" };
	struct sn_error err;
	char *s;

	(void)state;
	s = sn_hostlist_compress(names, 6, &err);
	assert_non_null(s);
	assert_string_equal(s, "gpu-a[009-010],sna[1-2],snb2");
	free(s);
	s = sn_hostlist_compress(names, 1, &err);
	assert_string_equal(s, "snb2");
	free(s);
	assert_null(sn_hostlist_compress(bad, 2, &err));
	assert_string_equal(err.msg, "'x[1-3]' is not one host name");
	assert_null(sn_hostlist_compress(names, 0, &err));
	assert_string_equal(err.msg, "empty nodelist");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case2_valid),
		cmocka_unit_test(test_three_groups_slurm_order),
		cmocka_unit_test(test_width_and_order),
		cmocka_unit_test(test_suffix_after_group_refused),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_malformed_refused),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_many_ranges),
		cmocka_unit_test(test_max_honoured),
		cmocka_unit_test(test_case1_first_host),
		cmocka_unit_test(test_compress),
	};

	return cmocka_run_group_tests_name("hostlist", tests, NULL, NULL);
}
