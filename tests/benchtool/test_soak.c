// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * supernode-bench's soak decisions over synthetic time series: durations,
 * the busbw drop (two windows in a row below fraction x the first), memory
 * that keeps growing (not one step up), the exit codes, the JSON lines,
 * the summary and the SVG.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sb_soak.h"

static void test_duration(void **state)
{
	double s;

	(void)state;
	assert_int_equal(sb_parse_duration("24h", &s), 0);
	assert_true(s == 86400);
	assert_int_equal(sb_parse_duration("10m", &s), 0);
	assert_true(s == 600);
	assert_int_equal(sb_parse_duration("20s", &s), 0);
	assert_true(s == 20);
	assert_int_equal(sb_parse_duration("90", &s), 0);
	assert_true(s == 90);
	assert_int_equal(sb_parse_duration("30d", &s), 0);
	assert_true(s == 30 * 86400);
	assert_int_equal(sb_parse_duration("31d", &s), -1);
	assert_int_equal(sb_parse_duration("0s", &s), -1);
	assert_int_equal(sb_parse_duration("", &s), -1);
	assert_int_equal(sb_parse_duration("-5s", &s), -1);
	assert_int_equal(sb_parse_duration("5 s", &s), -1);
	assert_int_equal(sb_parse_duration("5sec", &s), -1);
	assert_int_equal(sb_parse_duration("1.5h", &s), -1);
	assert_int_equal(sb_parse_duration("99999999999999999999", &s), -1);
	assert_int_equal(sb_parse_duration(NULL, &s), -1);
}

static void test_busbw_drop(void **state)
{
	double steady[] = { 10, 9.5, 10.2, 9.9, 10, 9.7 };
	double one_dip[] = { 10, 9.5, 7.0, 9.9, 10, 9.7 };
	double drop[] = { 10, 9.5, 9.9, 7.9, 7.5, 7.0 };
	double no_ref[] = { NAN, 1, 1, 1 };
	size_t at = 99;

	(void)state;
	assert_false(sb_soak_busbw_drop(steady, 6, 0.8, &at));
	assert_false(sb_soak_busbw_drop(one_dip, 6, 0.8, &at));
	assert_true(sb_soak_busbw_drop(drop, 6, 0.8, &at));
	assert_int_equal(at, 3);
	/* only the last window below: not yet (two in a row) */
	assert_false(sb_soak_busbw_drop(drop, 4, 0.8, &at));
	assert_false(sb_soak_busbw_drop(drop, 6, 0.7, &at));
	assert_false(sb_soak_busbw_drop(no_ref, 4, 0.8, &at));
}

static void test_mem_growth(void **state)
{
	/* 50 MiB a window: a leak */
	double leak[] = { 100, 150, 200, 250, 300, 350, 400 };
	/* one step up after the start, then flat */
	double step[] = { 100, 100, 500, 500, 500, 500, 500, 500 };
	/* up and down */
	double saw[] = { 100, 100, 200, 100, 200, 100, 200, 110 };
	double unknown[] = { 100, NAN, 200, 300, 400, 500 };

	(void)state;
	assert_true(sb_soak_mem_growth(leak, 7, 64));
	assert_false(sb_soak_mem_growth(leak, 7, 300)); /* 250 grown */
	assert_false(sb_soak_mem_growth(leak, 3, 64));	/* too few */
	assert_false(sb_soak_mem_growth(step, 8, 64));
	assert_false(sb_soak_mem_growth(saw, 8, 64));
	assert_false(sb_soak_mem_growth(unknown, 6, 64));
	/* growth since the second window, not the first */
	assert_false(sb_soak_mem_growth(
		(double[]){ 10, 1000, 1010, 1020, 1030 }, 5, 64));
}

static void test_exit(void **state)
{
	(void)state;
	assert_int_equal(sb_soak_exit(0, 0), 0);
	assert_int_equal(sb_soak_exit(SB_FLAG_BUSBW_DROP, 0), 4);
	assert_int_equal(sb_soak_exit(SB_FLAG_MEM_GROWTH, 0), 5);
	assert_int_equal(sb_soak_exit(SB_FLAG_HANG, 0), 6);
	assert_int_equal(
		sb_soak_exit(SB_FLAG_BUSBW_DROP | SB_FLAG_MEM_GROWTH, 0), 4);
	assert_int_equal(sb_soak_exit(SB_FLAG_BUSBW_DROP, 3), 1);
	assert_int_equal(sb_soak_exit(SB_FLAG_HANG | SB_FLAG_BUSBW_DROP, 3), 6);
	assert_string_equal(sb_soak_flag_name(SB_FLAG_HANG), "hang");
}

/* A series of @n windows: allreduce from @bw, host memory from @mib. */
static void series(struct sb_soak_series *s, const double *bw,
		   const double *mib, size_t n)
{
	memset(s, 0, sizeof(*s));
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(sb_soak_series_add(s, 2.0 * k), (int)k);
		s->busbw[SB_ALLREDUCE][k] = bw[k];
		s->host_mib[k] = mib[k];
	}
}

static void test_judge(void **state)
{
	struct sb_soak_opts o = { .duration_s = 12,
				  .interval_s = 2,
				  .fraction = 0.8,
				  .mem_growth_mib = 64 };
	double bw[] = { 10, 10, 3, 3, 3, 3 },
	       mib[] = { 50, 60, 60, 60, 61, 60 };
	double leak[] = { 50, 60, 160, 260, 360, 460 };
	bool ops[SB_NOPS] = { [SB_ALLREDUCE] = true };
	struct sb_soak_series s;

	(void)state;
	series(&s, bw, mib, 3);
	assert_int_equal(sb_soak_judge(&s, ops, &o), 0);
	assert_int_equal(sb_soak_series_add(&s, 6), 3);
	s.busbw[SB_ALLREDUCE][3] = 3;
	s.host_mib[3] = 60;
	assert_int_equal(sb_soak_judge(&s, ops, &o), SB_FLAG_BUSBW_DROP);
	assert_int_equal(s.flag_window[0], 2);
	assert_int_equal(s.drop_op, SB_ALLREDUCE);
	assert_int_equal(sb_soak_judge(&s, ops, &o), 0); /* raised once */
	sb_soak_series_free(&s);

	series(&s, (double[]){ 10, 10, 10, 10, 10, 10 }, leak, 6);
	assert_int_equal(sb_soak_judge(&s, ops, &o), SB_FLAG_MEM_GROWTH);
	assert_int_equal(s.flag_window[1], 5);
	assert_int_equal(sb_soak_exit(s.flags, s.wrong), 5);
	sb_soak_series_free(&s);

	/* an operation not selected is not judged */
	series(&s, bw, mib, 6);
	ops[SB_ALLREDUCE] = false;
	ops[SB_SENDRECV] = true;
	assert_int_equal(sb_soak_judge(&s, ops, &o), 0);
	sb_soak_series_free(&s);
}

static char *capture_line(const struct sb_soak_series *s, size_t w,
			  const bool *ops)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	sb_soak_write_line(m, s, w, ops, 1048576);
	fclose(m);
	return buf;
}

static void test_writers(void **state)
{
	struct sb_soak_opts o = { .duration_s = 8,
				  .interval_s = 2,
				  .fraction = 0.8,
				  .mem_growth_mib = 64 };
	bool ops[SB_NOPS] = { [SB_ALLREDUCE] = true, [SB_SENDRECV] = true };
	double bw[] = { 10, 10, 2, 2 }, mib[] = { 50, 51, 51, 52 };
	struct sb_soak_series s;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	series(&s, bw, mib, 4);
	for (size_t k = 0; k < 4; k++)
		s.busbw[SB_SENDRECV][k] = 5;
	sb_soak_judge(&s, ops, &o);
	buf = capture_line(&s, 3, ops);
	assert_string_equal(
		buf,
		"{\"window\": 3, \"t_s\": 6.000, \"bytes\": 1048576, \"busbw_gbps\": {\"allreduce\": 2, \"sendrecv\": 5}, \"host_rss_mib\": 52, \"device_used_mib\": null, \"flags\": [\"busbw_drop\"]}\n");
	free(buf);
	m = open_memstream(&buf, &len);
	sb_soak_write_summary(m, &s, ops, &o, true);
	fclose(m);
	assert_string_equal(
		buf,
		"{\"summary\": {\"windows\": 4, \"duration_s\": 8, \"interval_s\": 2, \"fraction\": 0.8, \"wrong\": 0, \"busbw_gbps\": {\"allreduce\": {\"first\": 10, \"min\": 2, \"max\": 10, \"last\": 2}, \"sendrecv\": {\"first\": 5, \"min\": 5, \"max\": 5, \"last\": 5}}, \"flags\": [\"busbw_drop\"], \"exit\": 4}}\n");
	free(buf);
	m = open_memstream(&buf, &len);
	sb_soak_write_summary(m, &s, ops, &o, false);
	fclose(m);
	assert_non_null(strstr(
		buf,
		"# FLAG busbw_drop: allreduce below 0.80 x its first window from window 2\n"));
	assert_non_null(strstr(buf, "# exit 4\n"));
	free(buf);
	m = open_memstream(&buf, &len);
	assert_int_equal(sb_soak_write_svg(m, &s, ops, 0.8), 0);
	fclose(m);
	assert_non_null(strstr(buf, "</svg>"));
	/* 4 windows over 6 s: x from 70 to 70 + 6/10 x 580 */
	assert_non_null(strstr(buf, "points=\"70.0,"));
	assert_non_null(strstr(buf, "stroke-dasharray"));
	assert_non_null(strstr(buf, "time since start (s)"));
	free(buf);
	sb_soak_series_free(&s);
}

/* Device memory that keeps growing raises the flag as host memory does. */
static void test_device_growth(void **state)
{
	struct sb_soak_opts o = { .fraction = 0.8, .mem_growth_mib = 64 };
	bool ops[SB_NOPS] = { [SB_ALLREDUCE] = true };
	double flat[] = { 10, 10, 10, 10, 10 }, host[] = { 50, 50, 50, 50, 50 };
	struct sb_soak_series s;

	(void)state;
	series(&s, flat, host, 5);
	for (size_t k = 0; k < 5; k++)
		s.dev_mib[k] = 2000 + 40.0 * k; /* 120 MiB since window 1 */
	assert_int_equal(sb_soak_judge(&s, ops, &o), SB_FLAG_MEM_GROWTH);
	assert_int_equal(s.flag_window[1], 4);
	sb_soak_series_free(&s);
}

static void test_knob(void **state)
{
	struct sb_knob k;

	(void)state;
	assert_int_equal(sb_knob_parse(NULL, &k), 0);
	assert_false(k.on);
	assert_int_equal(sb_knob_parse("", &k), 0);
	assert_false(k.on);
	assert_int_equal(sb_knob_parse("2:50000", &k), 0);
	assert_true(k.on && k.rank == 2 && k.us == 50000 && k.after_s == 0 &&
		    k.leak_mib == 0);
	assert_int_equal(sb_knob_parse("1:20000:6:100", &k), 0);
	assert_true(k.rank == 1 && k.us == 20000 && k.after_s == 6 &&
		    k.leak_mib == 100);
	assert_int_equal(sb_knob_parse("1", &k), -1);
	assert_false(k.on);
	assert_int_equal(sb_knob_parse("1:", &k), -1);
	assert_int_equal(sb_knob_parse("x", &k), -1);
	assert_int_equal(sb_knob_parse("1:x", &k), -1);
	assert_int_equal(sb_knob_parse("1.5:100", &k), -1);
	assert_int_equal(sb_knob_parse("-1:100", &k), -1);
	assert_int_equal(sb_knob_parse("65536:100", &k), -1);
	assert_int_equal(sb_knob_parse("1:1e10", &k), -1);
	assert_int_equal(sb_knob_parse("1:1:1:4097", &k), -1);
	assert_int_equal(sb_knob_parse("1:1:1:1:1", &k), -1);
	assert_int_equal(sb_knob_parse("1:nan", &k), -1);
}

static void test_series_bound(void **state)
{
	struct sb_soak_series s = { 0 };

	(void)state;
	s.n = SB_SOAK_MAX_WINDOWS;
	assert_int_equal(sb_soak_series_add(&s, 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_busbw_drop),
		cmocka_unit_test(test_mem_growth),
		cmocka_unit_test(test_exit),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_writers),
		cmocka_unit_test(test_device_growth),
		cmocka_unit_test(test_knob),
		cmocka_unit_test(test_series_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
