/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * placement.max_requeues (issue 20 item 1): the failed-start count in a
 * job's AdminComment, read, decided and written back; an admin's text
 * before it is kept; one attempt counts once; 0 behaves as 1.
 */
#include <string.h>

#include "unit.h"

#include "drain/sn_requeue.h"

static const char tag[] = "supernode:";

static void test_format_first(void **state)
{
	struct sn_requeue_decision d;
	char buf[1024];

	(void)state;
	sn_requeue_decide(NULL, 0, 3, &d);
	assert_int_equal(d.failed, 1);
	assert_true(d.counted);
	assert_false(d.hold);
	assert_int_equal(
		sn_requeue_format(
			buf, sizeof(buf), NULL, tag, &d, 3, 0,
			"sna1: supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE"),
		0);
	assert_string_equal(
		buf,
		"supernode: failed starts 1 of 3 (restart 0); last: sna1: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE");
}

static void test_parse_and_hold(void **state)
{
	const char *c =
		"RMA 77 \"x\" supernode: failed starts 2 of 3 (restart 4); last: sna1: X";
	struct sn_requeue_count old;
	struct sn_requeue_decision d;
	char buf[1024];

	(void)state;
	assert_int_equal(sn_requeue_parse(c, tag, &old), 1);
	assert_int_equal(old.failed, 2);
	assert_int_equal(old.restart, 4);
	assert_false(old.held);
	/* The same attempt (another node's prolog): not counted again. */
	sn_requeue_decide(&old, 4, 3, &d);
	assert_int_equal(d.failed, 2);
	assert_false(d.counted);
	assert_false(d.hold);
	/* The next attempt: third failed start, the cap. */
	sn_requeue_decide(&old, 5, 3, &d);
	assert_int_equal(d.failed, 3);
	assert_true(d.counted);
	assert_true(d.hold);
	assert_int_equal(sn_requeue_format(buf, sizeof(buf), c, tag, &d, 3, 5,
					   "allocation sna2,snb2 is \"bad\"\n"),
			 0);
	assert_string_equal(
		buf,
		"RMA 77 \"x\" supernode: held after 3 failed starts, placement.max_requeues 3 (restart 5); last: allocation sna2,snb2 is 'bad' ");
	assert_int_equal(sn_requeue_parse(buf, tag, &old), 1);
	assert_int_equal(old.failed, 3);
	assert_int_equal(old.restart, 5);
	assert_true(old.held);
}

/* A preemption between two failed starts raises restart, not ours. */
static void test_preempt_gap(void **state)
{
	struct sn_requeue_count old = { .failed = 1, .restart = 1 };
	struct sn_requeue_decision d;

	(void)state;
	sn_requeue_decide(&old, 3, 2, &d);
	assert_int_equal(d.failed, 2);
	assert_true(d.hold);
}

static void test_zero_and_default(void **state)
{
	struct sn_requeue_decision d;

	(void)state;
	sn_requeue_decide(NULL, 0, 0, &d);
	assert_true(d.hold);
	assert_int_equal(sn_requeue_effective(0, 7), 1);
	assert_int_equal(sn_requeue_effective(3, 7), 3);
	assert_int_equal(sn_requeue_effective(SN_REQUEUE_DEFAULT, 7), 7);
	assert_int_equal(sn_requeue_effective(SN_REQUEUE_DEFAULT, 0), 5);
}

static void test_not_ours(void **state)
{
	struct sn_requeue_count old;

	(void)state;
	assert_int_equal(sn_requeue_parse(NULL, tag, &old), 0);
	assert_int_equal(sn_requeue_parse("supernode: hello", tag, &old), 0);
	assert_int_equal(
		sn_requeue_parse("supernode: failed starts x", tag, &old), 0);
	assert_int_equal(
		sn_requeue_parse("site: failed starts 2 of 3 (restart 1)", tag,
				 &old),
		0);
	assert_int_equal(old.failed, 0);
}

static void test_cut(void **state)
{
	struct sn_requeue_decision d = { .failed = 1, .counted = true };
	char last[1000], buf[2048];

	(void)state;
	memset(last, 'x', sizeof(last) - 1);
	last[sizeof(last) - 1] = '\0';
	assert_int_equal(sn_requeue_format(buf, sizeof(buf), "", tag, &d, 2, 0,
					   last),
			 0);
	assert_int_equal(strlen(buf), SN_REQUEUE_TEXT_MAX);
	assert_string_equal(buf + SN_REQUEUE_TEXT_MAX - 4, "x...");
	assert_int_equal(sn_requeue_format(buf, 10, "", tag, &d, 2, 0, "y"),
			 -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_first),
		cmocka_unit_test(test_parse_and_hold),
		cmocka_unit_test(test_preempt_gap),
		cmocka_unit_test(test_zero_and_default),
		cmocka_unit_test(test_not_ours),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
