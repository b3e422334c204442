// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for supernode-bench --prom (sb_prom.c): the textfile's exact
 * text, pass and fail, the last result per supernode and operation, the
 * merge with the samples of other supernodes already in the file, label
 * escaping, and `promtool check metrics` on what is written.  promtool
 * comes with Debian's prometheus package (contrib/install-deps installs
 * it); without it the test fails, it does not skip.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sb_prom.h"

#define PROMTOOL "/usr/bin/promtool"

/* An allreduce sweep of two sizes on 8 ranks; @wrong in the last row. */
static struct sb_result *result(enum sb_op op, double bw, int64_t wrong)
{
	struct sb_result *r = calloc(1, sizeof(*r));
	struct sb_row *rows = calloc(2, sizeof(*rows));

	assert_true(r && rows);
	rows[0] = (struct sb_row){ .bytes = 268435456,
				   .ran = { true, true },
				   .busbw = { bw / 2, bw / 2 + 1 },
				   .wrong = { 0, 0 } };
	rows[1] = (struct sb_row){ .bytes = 536870912,
				   .ran = { true, false },
				   .busbw = { bw, 0 },
				   .wrong = { wrong, -1 } };
	*r = (struct sb_result){
		.op = op, .group = "all", .nranks = 8, .nrows = 2, .rows = rows
	};
	return r;
}

static void result_free(struct sb_result *r)
{
	free(r->rows);
	free(r);
}

static void test_render(void **state)
{
	struct sb_result *ar = result(SB_ALLREDUCE, 300.5, 0);
	struct sb_result *ag = result(SB_ALLGATHER, 100, 3);
	struct sb_prom_score s[] = { { "sn01", ar }, { "sn01", ag } };
	char *t;

	(void)state;
	t = sb_prom_render(s, 2, 200, 1764590000, NULL);
	assert_non_null(t);
	assert_string_equal(
		t,
		"# HELP supernode_bench_busbw_gbps Bus bandwidth of the last supernode-bench run in GB/s (1e9 B/s), the better of out-of-place and in-place, by message size in bytes.\n"
		"# TYPE supernode_bench_busbw_gbps gauge\n"
		"supernode_bench_busbw_gbps{supernode=\"sn01\",op=\"allreduce\",size=\"268435456\"} 151.2500\n"
		"supernode_bench_busbw_gbps{supernode=\"sn01\",op=\"allreduce\",size=\"536870912\"} 300.5000\n"
		"supernode_bench_busbw_gbps{supernode=\"sn01\",op=\"allgather\",size=\"268435456\"} 51.0000\n"
		"supernode_bench_busbw_gbps{supernode=\"sn01\",op=\"allgather\",size=\"536870912\"} 100.0000\n"
		"# HELP supernode_bench_pass 1 when the last run had no wrong element and met its busbw threshold at the largest size, else 0.\n"
		"# TYPE supernode_bench_pass gauge\n"
		"supernode_bench_pass{supernode=\"sn01\",op=\"allreduce\"} 1\n"
		"supernode_bench_pass{supernode=\"sn01\",op=\"allgather\"} 0\n"
		"# HELP supernode_bench_wrong_elements Wrong elements in the last run's data check, over all sizes.\n"
		"# TYPE supernode_bench_wrong_elements gauge\n"
		"supernode_bench_wrong_elements{supernode=\"sn01\",op=\"allreduce\"} 0\n"
		"supernode_bench_wrong_elements{supernode=\"sn01\",op=\"allgather\"} 3\n"
		"# HELP supernode_bench_last_run_timestamp_seconds When the last run of this supernode ended, seconds since the epoch.\n"
		"# TYPE supernode_bench_last_run_timestamp_seconds gauge\n"
		"supernode_bench_last_run_timestamp_seconds{supernode=\"sn01\"} 1764590000\n");
	free(t);
	result_free(ar);
	result_free(ag);
}

static void test_pass(void **state)
{
	struct sb_result *r = result(SB_BROADCAST, 150, 0);

	(void)state;
	assert_true(sb_prom_pass(r, 0));
	assert_true(sb_prom_pass(r, 150));
	assert_false(sb_prom_pass(r, 150.01)); /* the largest size counts */
	r->rows[0].wrong[1] = 1;
	assert_false(sb_prom_pass(r, 0));
	r->nrows = 0;
	assert_true(sb_prom_pass(r, 0));
	assert_false(sb_prom_pass(r, 1));
	result_free(r);
}

/* A later result of the same supernode and op replaces the earlier. */
static void test_last_wins(void **state)
{
	struct sb_result *a = result(SB_ALLREDUCE, 111, 0);
	struct sb_result *b = result(SB_ALLREDUCE, 222, 0);
	struct sb_prom_score s[] = { { "sn01,sn02", a },
				     { "sn01", a },
				     { "sn01", b } };
	char *t = sb_prom_render(s, 3, 0, 5, NULL);

	(void)state;
	assert_non_null(t);
	assert_null(strstr(t, "sn01\",op=\"allreduce\",size=\"536870912\"} "
			      "111.0000"));
	assert_non_null(strstr(t, "{supernode=\"sn01\",op=\"allreduce\","
				  "size=\"536870912\"} 222.0000\n"));
	assert_non_null(strstr(t, "{supernode=\"sn01,sn02\",op=\"allreduce\","
				  "size=\"536870912\"} 111.0000\n"));
	/* one timestamp per supernode, in the order of the scores */
	assert_non_null(strstr(t, "{supernode=\"sn01,sn02\"} 5\n"
				  "supernode_bench_last_run_timestamp_"
				  "seconds{supernode=\"sn01\"} 5\n"));
	free(t);
	result_free(a);
	result_free(b);
}

/* Other supernodes' samples stay; ours and anything else go. */
static void test_merge(void **state)
{
	struct sb_result *r = result(SB_SENDRECV, 50, 0);
	struct sb_prom_score s[] = { { "sn01", r } };
	const char *old =
		"# HELP supernode_bench_pass old help\n"
		"supernode_bench_pass{supernode=\"sn02\",op=\"sendrecv\"} 0\n"
		"supernode_bench_pass{supernode=\"sn01\",op=\"sendrecv\"} 0\n"
		"supernode_bench_pass{supernode=\"sn01\",op=\"alltoall\"} 0\n"
		"supernode_bench_busbw_gbps{supernode=\"sn02\",op=\"sendrecv\",size=\"8\"} 1.5e2\n"
		"supernode_bench_busbw_gbps{supernode=\"sn02\",op=\"x\"} junk\n"
		"supernode_bench_busbw_gbps{op=\"x\",supernode=\"sn03\"} 1\n"
		"supernode_bench_busbw_gbps{supernode=\"sn\\\"4\"} NaN\n"
		"supernode_bench_busbw_gbps{supernode=\"sn05\"}\n"
		"other_metric{supernode=\"sn02\"} 1\n"
		"supernode_bench_wrong_elements{supernode=\"sn01x\",op=\"sendrecv\"} 7";
	char *t = sb_prom_render(s, 1, 0, 9, old);

	(void)state;
	assert_non_null(t);
	/* kept, each in its own family, before this run's samples */
	assert_non_null(strstr(
		t,
		"gauge\n"
		"supernode_bench_pass{supernode=\"sn02\",op=\"sendrecv\"} 0\n"
		"supernode_bench_pass{supernode=\"sn01\",op=\"sendrecv\"} 1\n"
		"# HELP supernode_bench_wrong_elements"));
	assert_non_null(strstr(
		t,
		"gauge\n"
		"supernode_bench_busbw_gbps{supernode=\"sn02\",op=\"sendrecv\",size=\"8\"} 1.5e2\n"
		"supernode_bench_busbw_gbps{supernode=\"sn\\\"4\"} NaN\n"
		"supernode_bench_busbw_gbps{supernode=\"sn01\","));
	assert_non_null(strstr(t, "{supernode=\"sn01x\",op=\"sendrecv\"} 7\n"));
	/* replaced: every old sn01 sample, even of an op not run now */
	assert_null(strstr(t, "alltoall"));
	assert_null(strstr(t, "pass{supernode=\"sn01\",op=\"sendrecv\"} 0"));
	/* dropped: bad value, label order not ours, no value, not ours */
	assert_null(strstr(t, "junk"));
	assert_null(strstr(t, "sn03"));
	assert_null(strstr(t, "sn05"));
	assert_null(strstr(t, "other_metric"));
	assert_null(strstr(t, "old help"));
	free(t);
	result_free(r);
}

static void test_escape(void **state)
{
	struct sb_result *r = result(SB_BROADCAST, 1, 0);
	struct sb_prom_score s[] = { { "a\"b\\c\nd", r } };
	char *t = sb_prom_render(s, 1, 0, 7, NULL), *t2;

	(void)state;
	assert_non_null(strstr(t, "{supernode=\"a\\\"b\\\\c\\nd\",op="));
	/* the escaped name read back is recognised as ours: replaced */
	t2 = sb_prom_render(s, 1, 0, 8, t);
	assert_null(strstr(t2, "} 7\n"));
	assert_non_null(strstr(t2, "d\"} 8\n"));
	free(t);
	free(t2);
	result_free(r);
}

/* promtool check metrics < @path: exit 0, nothing printed. */
static void promtool_ok(const char *path)
{
	char cmd[PATH_MAX + 64], line[512];
	int lines = 0;
	FILE *p;

	if (access(PROMTOOL, X_OK)) {
		print_message("no " PROMTOOL
			      " (Debian: prometheus; contrib/install-deps)\n");
		fail();
	}
	snprintf(cmd, sizeof(cmd), PROMTOOL " check metrics < '%s' 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		fprintf(stderr, "promtool: %s", line);
		lines++;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(lines, 0);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	assert_true(f && buf);
	assert_true(fread(buf, 1, 65535, f) > 0);
	fclose(f);
	return buf;
}

/* Two runs on two supernodes into one file: both scores, promtool OK. */
static void test_write_promtool(void **state)
{
	char dir[] = "/tmp/sb_prom_XXXXXX", path[PATH_MAX], bad[PATH_MAX];
	struct sb_result *a = result(SB_ALLREDUCE, 300, 0);
	struct sb_result *b = result(SB_ALLTOALL, 90, 2);
	struct sb_prom_score s1[] = { { "sn01", a }, { "sn01", b } };
	struct sb_prom_score s2[] = { { "sn02", a } };
	char *t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/supernode-bench.prom", dir);
	assert_int_equal(sb_prom_write(path, s1, 2, 250, 100), 0);
	promtool_ok(path);
	assert_int_equal(sb_prom_write(path, s2, 1, 250, 200), 0);
	promtool_ok(path);
	t = slurp(path);
	assert_non_null(strstr(
		t,
		"supernode_bench_pass{supernode=\"sn01\",op=\"alltoall\"} 0\n"));
	assert_non_null(strstr(
		t,
		"supernode_bench_pass{supernode=\"sn02\",op=\"allreduce\"} 1\n"));
	assert_non_null(strstr(t, "{supernode=\"sn01\"} 100\n"));
	assert_non_null(strstr(t, "{supernode=\"sn02\"} 200\n"));
	free(t);
	/* a folder that is not there: an error, nothing left behind */
	snprintf(bad, sizeof(bad), "%s/none/x.prom", dir);
	assert_int_equal(sb_prom_write(bad, s2, 1, 0, 1), -1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0); /* no temporary file left */
	result_free(a);
	result_free(b);
}

/* Which supernode each group's result scores, from the job's variables. */
static void test_write_results(void **state)
{
	char dir[] = "/tmp/sb_prom_XXXXXX", path[PATH_MAX], host[256];
	struct sb_result *r = result(SB_ALLREDUCE, 10, 0), res[3];
	char *t, want[400];

	(void)state;
	res[0] = res[1] = res[2] = *r;
	res[0].group = "all";
	res[1].group = "intra";
	res[2].group = "across";
	res[2].op = SB_BROADCAST;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/b.prom", dir);
	setenv("SUPERNODE_NAMES", "sn01,sn02", 1);
	setenv("SUPERNODE_NAME", "sn02", 1);
	assert_int_equal(sb_prom_write_results(path, res, 3, 0), 0);
	promtool_ok(path);
	t = slurp(path);
	assert_non_null(strstr(
		t,
		"pass{supernode=\"sn01,sn02\",op=\"allreduce\"} 1\n"
		"supernode_bench_pass{supernode=\"sn02\",op=\"allreduce\"} 1\n"
		"# HELP"));
	assert_null(strstr(t, "broadcast")); /* across: no supernode */
	free(t);
	/* outside --supernode: the host */
	unsetenv("SUPERNODE_NAMES");
	unsetenv("SUPERNODE_NAME");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(sb_prom_write_results(path, res, 3, 0), 0);
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	snprintf(want, sizeof(want),
		 "pass{supernode=\"%s\",op=\"allreduce\"} 1\n# HELP", host);
	t = slurp(path);
	assert_non_null(strstr(t, want));
	free(t);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_pass),
		cmocka_unit_test(test_last_wins),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_write_promtool),
		cmocka_unit_test(test_write_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
