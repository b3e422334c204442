/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The grades and their order (lib/checks/grade.c), written once: the
 * results' worst, the report's order and supernodectl's records use them.
 */
#include "unit.h"

#include "checks/sn_check.h"
#include "checks/sn_grade.h"

/* OK < WARN < UNKNOWN < CRIT, whatever the enum's values are. */
static void test_grade_order(void **state)
{
	(void)state;
	assert_int_equal(sn_grade_severity(SN_OK), 0);
	assert_int_equal(sn_grade_severity(SN_WARN), 1);
	assert_int_equal(sn_grade_severity(SN_UNKNOWN), 2);
	assert_int_equal(sn_grade_severity(SN_CRIT), 3);
	assert_int_equal(SN_GRADE_SEVERITY_MAX, 3);
	assert_int_equal(sn_grade_severity((enum sn_grade)7), 0);
	assert_int_equal(sn_grade_worse(SN_CRIT, SN_UNKNOWN), SN_CRIT);
	assert_int_equal(sn_grade_worse(SN_UNKNOWN, SN_CRIT), SN_CRIT);
	assert_int_equal(sn_grade_worse(SN_WARN, SN_UNKNOWN), SN_UNKNOWN);
	assert_int_equal(sn_grade_worse(SN_OK, SN_WARN), SN_WARN);
	assert_int_equal(sn_grade_worse(SN_WARN, SN_OK), SN_WARN);
}

/* Names and parse are each other's inverse; nothing else parses. */
static void test_grade_names(void **state)
{
	(void)state;
	assert_string_equal(sn_grade_name(SN_OK), "OK");
	assert_string_equal(sn_grade_name(SN_WARN), "WARN");
	assert_string_equal(sn_grade_name(SN_CRIT), "CRIT");
	assert_string_equal(sn_grade_name(SN_UNKNOWN), "UNKNOWN");
	assert_string_equal(sn_grade_name((enum sn_grade)4), "?");
	assert_int_equal(sn_grade_parse("OK"), SN_OK);
	assert_int_equal(sn_grade_parse("WARN"), SN_WARN);
	assert_int_equal(sn_grade_parse("CRIT"), SN_CRIT);
	assert_int_equal(sn_grade_parse("UNKNOWN"), SN_UNKNOWN);
	assert_int_equal(sn_grade_parse("crit"), -1);
	assert_int_equal(sn_grade_parse("CRIT "), -1);
	assert_int_equal(sn_grade_parse(""), -1);
	assert_int_equal(sn_grade_parse(NULL), -1);
}

/* The Nagios exit codes are the enum's values; outside it, UNKNOWN's. */
static void test_grade_exit(void **state)
{
	(void)state;
	assert_int_equal(sn_grade_exit(SN_OK), 0);
	assert_int_equal(sn_grade_exit(SN_WARN), 1);
	assert_int_equal(sn_grade_exit(SN_CRIT), 2);
	assert_int_equal(sn_grade_exit(SN_UNKNOWN), 3);
	assert_int_equal(sn_grade_exit((enum sn_grade)9), 3);
}

/* The worst of a list follows the same order: CRIT beats a later UNKNOWN. */
static void test_results_worst(void **state)
{
	struct sn_results r = { 0 };

	(void)state;
	assert_int_equal(sn_results_worst(&r), SN_OK);
	assert_int_equal(sn_results_add(&r, SN_WARN, "c", "W", "d", "e", "f"),
			 0);
	assert_int_equal(sn_results_worst(&r), SN_WARN);
	assert_int_equal(sn_results_add(&r, SN_CRIT, "c", "C", "d", "e", "f"),
			 0);
	assert_int_equal(
		sn_results_add(&r, SN_UNKNOWN, "c", "U", "d", "e", "f"), 0);
	assert_int_equal(sn_results_worst(&r), SN_CRIT);
	sn_results_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grade_order),
		cmocka_unit_test(test_grade_names),
		cmocka_unit_test(test_grade_exit),
		cmocka_unit_test(test_results_worst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
