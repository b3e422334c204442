/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_allocation_check: is a node list exactly N whole supernodes of
 * sn01 = sna[1-2], sn02 = snb[1-2], sn03 = snc[1-2] (and, for the long
 * "missing" list, sn04..sn05 of 8 nodes in a second config)?
 */
#include "unit.h"

#include "placement/sn_allocation.h"

#define SUPERNODES3                             \
	"supernodes:\n"                         \
	"  - {name: sn01, nodes: 'sna[1-2]'}\n" \
	"  - {name: sn02, nodes: 'snb[1-2]'}\n" \
	"  - {name: sn03, nodes: 'snc[1-2]'}\n" \
	"placement: {method: switch}\n"

static struct sn_config *cfg_load(const char *yaml)
{
	struct sn_error err;
	struct sn_config *cfg;

	cfg = sn_config_load_buffer("alloc.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	return cfg;
}

static int setup(void **state)
{
	*state = cfg_load(SUPERNODES3);
	return 0;
}

static int teardown(void **state)
{
	sn_config_free(*state);
	return 0;
}

/* Run the check; returns its rc, with *a filled. */
static int check(void **state, const char *list, uint32_t want,
		 struct sn_allocation *a)
{
	struct sn_error err;

	err_reset(&err);
	return sn_allocation_check(*state, list, want, a, &err);
}

static void test_exact_one(void **state)
{
	struct sn_allocation a;

	assert_int_equal(check(state, "snb[1-2]", 1, &a), 0);
	assert_int_equal(a.hosts, 2);
	assert_int_equal(a.touched, 1);
	assert_int_equal(a.whole, 1);
	assert_int_equal(a.n_problems, 0);
	assert_string_equal(a.summary, "exactly 1 whole supernode: sn02");
}

static void test_exact_two(void **state)
{
	struct sn_allocation a;

	assert_int_equal(check(state, "sna[1-2],snc[1-2]", 2, &a), 0);
	assert_string_equal(a.summary, "exactly 2 whole supernodes: sn01,sn03");
}

/* Slurm sorts its lists, but the check must not depend on it. */
static void test_order_independent(void **state)
{
	struct sn_allocation a;

	assert_int_equal(check(state, "snc2,sna1,snc1,sna2", 2, &a), 0);
	assert_string_equal(a.summary, "exactly 2 whole supernodes: sn01,sn03");
	assert_int_equal(check(state, "snb2,snb1", 1, &a), 0);
}

static void test_partial(void **state)
{
	struct sn_allocation a;

	/* switch_wait expired while sna1 and snb1 were busy. */
	assert_int_equal(check(state, "sna2,snb2,snc[1-2]", 2, &a), 1);
	assert_int_equal(a.touched, 3);
	assert_int_equal(a.whole, 1);
	assert_int_equal(a.partial, 2);
	assert_int_equal(a.n_problems, 3);
	assert_int_equal(a.problems[0].kind, SN_ALLOC_PARTIAL);
	assert_string_equal(a.problems[0].text,
			    "sn01 partial: 1 of 2 nodes (missing sna1)");
	assert_string_equal(a.problems[1].text,
			    "sn02 partial: 1 of 2 nodes (missing snb1)");
	assert_int_equal(a.problems[2].kind, SN_ALLOC_COUNT);
	assert_string_equal(
		a.summary,
		"not 2 whole supernodes: sn01 partial: 1 of 2 nodes (missing sna1); "
		"sn02 partial: 1 of 2 nodes (missing snb1); "
		"4 nodes touch 3 supernodes, 1 of them whole; the job asked for 2 whole");
}

/* Two whole supernodes plus one node of a third. */
static void test_extra_node(void **state)
{
	struct sn_allocation a;

	assert_int_equal(check(state, "sna[1-2],snb[1-2],snc1", 2, &a), 1);
	assert_int_equal(a.whole, 2);
	assert_int_equal(a.n_problems, 1);
	assert_string_equal(
		a.summary,
		"not 2 whole supernodes: sn03 partial: 1 of 2 nodes (missing snc2)");
}

static void test_unknown_node(void **state)
{
	struct sn_allocation a;

	assert_int_equal(check(state, "sna[1-2],login1", 1, &a), 1);
	assert_int_equal(a.foreign, 1);
	assert_int_equal(a.whole, 1);
	assert_int_equal(a.problems[0].kind, SN_ALLOC_FOREIGN);
	assert_string_equal(
		a.summary,
		"not 1 whole supernode: node login1 is in no supernode");
}

static void test_count_mismatch(void **state)
{
	struct sn_allocation a;

	assert_int_equal(check(state, "sna[1-2],snb[1-2]", 1, &a), 1);
	assert_string_equal(
		a.summary,
		"not 1 whole supernode: 4 nodes touch 2 supernodes, 2 of them whole; the job asked for 1 whole");
	assert_int_equal(check(state, "sna[1-2]", 2, &a), 1);
	assert_int_equal(a.problems[0].kind, SN_ALLOC_COUNT);
	assert_string_equal(
		a.problems[0].text,
		"2 nodes touch 1 supernode, 1 of them whole; the job asked for 2 whole");
}

static void test_twice(void **state)
{
	struct sn_allocation a;

	assert_int_equal(check(state, "sna1,sna2,sna1", 1, &a), 1);
	assert_int_equal(a.twice, 1);
	assert_string_equal(a.summary,
			    "not 1 whole supernode: node sna1 is listed twice");
}

static void test_bad_input(void **state)
{
	struct sn_allocation a;
	struct sn_error err;

	err_reset(&err);
	assert_int_equal(sn_allocation_check(*state, "", 1, &a, &err), -1);
	assert_contains(err.msg, "cannot parse the node list ''");
	err_reset(&err);
	assert_int_equal(sn_allocation_check(*state, NULL, 1, &a, &err), -1);
	err_reset(&err);
	assert_int_equal(sn_allocation_check(*state, "sna[1-", 1, &a, &err),
			 -1);
	assert_contains(err.msg, "sna[1-");
	err_reset(&err);
	assert_int_equal(sn_allocation_check(*state, "sna[1-2]", 0, &a, &err),
			 -1);
	assert_contains(err.msg, "0 supernodes");
}

/* A big partial supernode names 4 missing nodes, then counts the rest. */
static void test_missing_bounded(void **state)
{
	struct sn_config *cfg = cfg_load("supernodes:\n"
					 "  - {name: r1, nodes: 'n[01-72]'}\n"
					 "  - {name: r2, nodes: 'm[01-72]'}\n");
	struct sn_allocation a;
	struct sn_error err;

	(void)state;
	assert_int_equal(
		sn_allocation_check(cfg, "n[01-72],m[01-70]", 2, &a, &err), 1);
	assert_string_equal(a.problems[0].text,
			    "r2 partial: 70 of 72 nodes (missing m71,m72)");
	assert_int_equal(
		sn_allocation_check(cfg, "n[01-72],m[10-72]", 2, &a, &err), 1);
	assert_string_equal(
		a.problems[0].text,
		"r2 partial: 63 of 72 nodes (missing m01,m02,m03,m04 +5 more)");
	sn_config_free(cfg);
}

/* More problems than kept: counted, and the summary says so. */
static void test_many_problems(void **state)
{
	struct sn_allocation a;

	(void)state;
	assert_int_equal(check(state, "x[1-20]", 1, &a), 1);
	assert_int_equal(a.n_problems, SN_ALLOC_MAX_PROBLEMS);
	assert_int_equal(a.foreign, 20);
	assert_int_equal(a.dropped, 5); /* 4 nodes + the count line */
	assert_contains(a.summary, "; +5 more");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exact_one, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_exact_two, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_order_independent, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_partial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extra_node, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unknown_node, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_count_mismatch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_missing_bounded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_many_problems, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
