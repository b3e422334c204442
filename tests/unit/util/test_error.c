/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one cut (lib/util/error.c, issue 10 item 4): text that does not fit
 * its fixed storage keeps the leading phrase and the path's tail, and the
 * cut is marked with "...".  sn_error_set builds the whole text first.
 */
#include <errno.h>

#include "unit.h"

#include "util/sn_error.h"

static void test_fits(void **state)
{
	char out[16];

	(void)state;
	assert_int_equal(sn_error_cut(out, sizeof(out), "fifteen bytes.."), 15);
	assert_string_equal(out, "fifteen bytes..");
	assert_int_equal(sn_error_cut(out, sizeof(out), ""), 0);
	assert_string_equal(out, "");
}

/* "PHRASE: PATH": the phrase whole, "...", the path from a '/'. */
static void test_phrase_and_path_tail(void **state)
{
	static const char text[] =
		"cannot read gids (missing): /sys/class/infiniband/mlx5_bond_0/ports/1/gids";
	char out[48];

	(void)state;
	assert_int_equal(sn_error_cut(out, sizeof(out), text), strlen(text));
	/* 47 bytes: the phrase (28), "...", then 16 bytes moved to a '/' */
	assert_string_equal(out,
			    "cannot read gids (missing): .../ports/1/gids");
}

/* The last ": " before the path counts, not the first. */
static void test_phrase_with_colons(void **state)
{
	static const char text[] =
		"bad hwloc XML file: cannot open: No such file or directory: "
		"/tmp/a-very-long-checkout-folder/of-many-components/tests/unit/fixtures/topo/missing.xml";
	char out[96];

	(void)state;
	sn_error_cut(out, sizeof(out), text); /* 60 + 3 + 32 -> '/' */
	assert_string_equal(
		out,
		"bad hwloc XML file: cannot open: No such file or directory: .../unit/fixtures/topo/missing.xml");
}

/* A path first (config errors): its head goes. */
static void test_leading_path(void **state)
{
	static const char text[] =
		"/tmp/a-very-long-checkout-folder/of-many-components/etc/supernode.yaml:3:5: env.force: not a boolean";
	char out[64];

	(void)state;
	sn_error_cut(out, sizeof(out), text);
	assert_string_equal(
		out, ".../etc/supernode.yaml:3:5: env.force: not a boolean");
}

/* No path: the head, "..."; a phrase too long for the path: head, "...", tail. */
static void test_no_room(void **state)
{
	char out[20];

	(void)state;
	sn_error_cut(out, sizeof(out), "abcdefghijklmnopqrstuvwxyz0123456789");
	/* room 16: no path, the head */
	assert_string_equal(out, "abcdefghijklmnop...");
	sn_error_cut(out, sizeof(out), "a phrase far too long: /x/yy/zzz/file");
	/* room 16: head 11, "...", the path's last 5 from a '/' */
	assert_string_equal(out, "a phrase fa.../file");
	sn_error_cut(out, 5, "abcdefgh"); /* too small to mark */
	assert_string_equal(out, "abcd");
}

/* A path in the middle (dlerror's text) is no trailing path: the head. */
static void test_path_in_middle(void **state)
{
	char out[96]; /* SN_VALUE_MAX, a check result's found */

	(void)state;
	sn_error_cut(
		out, sizeof(out),
		"dlopen: /nonexistent/libnvidia-ml.so.1: cannot open shared object file: No such file or directory");
	assert_string_equal(
		out,
		"dlopen: /nonexistent/libnvidia-ml.so.1: cannot open shared object file: No such file or dire...");
}

/* sn_error_set: the whole text built, then the one cut. */
static void test_error_set_cuts(void **state)
{
	char path[1200];
	struct sn_error err;

	(void)state;
	memset(path, 'd', sizeof(path));
	for (size_t i = 0; i + 1 < sizeof(path); i += 10)
		path[i] = '/';
	snprintf(path + sizeof(path) - 12, 12, "/topo.xml");
	sn_error_set(&err, "bad hwloc XML file: %s: %s", "cannot open", path);
	assert_int_equal(strncmp(err.msg,
				 "bad hwloc XML file: cannot open: .../", 37),
			 0);
	/* 33 + 3 + 987: the tail starts at a '/' (every 10th byte) */
	assert_int_equal(strlen(err.msg), SN_ERROR_MAX - 1);
	assert_string_equal(err.msg + SN_ERROR_MAX - 1 - 9, "/topo.xml");
	sn_error_set(NULL, "%s", "ignored");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_phrase_and_path_tail),
		cmocka_unit_test(test_phrase_with_colons),
		cmocka_unit_test(test_leading_path),
		cmocka_unit_test(test_no_room),
		cmocka_unit_test(test_path_in_middle),
		cmocka_unit_test(test_error_set_cuts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
