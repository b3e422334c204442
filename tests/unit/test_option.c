/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_supernode_count_parse: field case 18 (strict --supernode=N values).
 * Every refusal must name --supernode and the allowed range "1 to 2".
 */
#include "unit.h"

#include "sn_option.h"

#define MAX 2u

static void refused(const char *arg, const char *fragment)
{
	struct sn_error err;
	uint32_t n = 12345;

	err_reset(&err);
	if (sn_supernode_count_parse(arg, MAX, &n, &err) != -1)
		fail_msg("'%s' was accepted as %u", arg ? arg : "(NULL)", n);
	assert_int_equal(n, 12345);		/* *out untouched */
	assert_contains(err.msg, "--supernode");
	assert_contains(err.msg, "1 to 2");
	assert_contains(err.msg, fragment);
}

static void test_refused_no_value(void **state)
{
	(void)state;
	refused(NULL, "requires a value");
	refused("", "is empty");
}

static void test_refused_not_a_number(void **state)
{
	(void)state;
	refused("abc", "--supernode=abc is not a whole number");
	refused("2x", "--supernode=2x is not a whole number");
	refused("2abc", "is not a whole number");
	refused("1.5", "--supernode=1.5 is not a whole number");
	refused(" 2", "is not a whole number");
	refused("2 ", "is not a whole number");
	refused("+2", "--supernode=+2 is not a whole number");
	refused("0x2", "--supernode=0x2 is not a whole number");
	refused("-", "is not a whole number");
	refused("--1", "is not a whole number");
}

static void test_refused_out_of_range(void **state)
{
	(void)state;
	refused("0", "--supernode=0 is out of range (allowed: 1 to 2)");
	refused("-1", "--supernode=-1 is out of range (allowed: 1 to 2)");
	refused("3", "--supernode=3 is out of range (allowed: 1 to 2)");
	/* ERANGE is refused, not wrapped to some small number. */
	refused("99999999999999999999",
		"--supernode=99999999999999999999 is out of range");
	refused("4294967297", "is out of range");	/* 2^32 + 1 */
}

static void test_accepted(void **state)
{
	struct sn_error err;
	uint32_t n = 0;

	(void)state;
	err_reset(&err);
	assert_int_equal(sn_supernode_count_parse("1", MAX, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(sn_supernode_count_parse("2", MAX, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(err.msg, "(unset)");	/* no message on success */
}

/* A repeated callback replaces the value (field case 18: "2" then "3"). */
static void test_repeat_replaces(void **state)
{
	struct sn_error err;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(sn_supernode_count_parse("2", 4, &n, &err), 0);
	assert_int_equal(sn_supernode_count_parse("3", 4, &n, &err), 0);
	assert_int_equal(n, 3);
}

/* The range in the message follows max; NULL err is allowed. */
static void test_message_follows_max(void **state)
{
	struct sn_error err;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(sn_supernode_count_parse("5", 4, &n, &err), -1);
	assert_string_equal(err.msg,
			    "--supernode=5 is out of range (allowed: 1 to 4)");
	assert_int_equal(sn_supernode_count_parse("0", 4, &n, NULL), -1);
	assert_int_equal(sn_supernode_count_parse("4", 4, &n, NULL), 0);
	assert_int_equal(n, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_no_value),
		cmocka_unit_test(test_refused_not_a_number),
		cmocka_unit_test(test_refused_out_of_range),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_repeat_replaces),
		cmocka_unit_test(test_message_follows_max),
	};

	return cmocka_run_group_tests_name("option", tests, NULL, NULL);
}
