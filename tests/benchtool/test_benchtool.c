// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for supernode-bench: the nccl-tests formulas against rows of
 * real nccl-tests output, argument parsing, the data check, and the table,
 * JSON and SVG writers against known text.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sb.h"

static void test_bus_factor(void **state)
{
	(void)state;
	assert_float_equal(sb_bus_factor(SB_ALLREDUCE, 2), 1.0, 1e-12);
	assert_float_equal(sb_bus_factor(SB_ALLREDUCE, 8), 1.75, 1e-12);
	assert_float_equal(sb_bus_factor(SB_ALLGATHER, 16), 15.0 / 16, 1e-12);
	assert_float_equal(sb_bus_factor(SB_REDUCESCATTER, 4), 0.75, 1e-12);
	assert_float_equal(sb_bus_factor(SB_ALLTOALL, 2), 0.5, 1e-12);
	assert_float_equal(sb_bus_factor(SB_BROADCAST, 8), 1.0, 1e-12);
	assert_float_equal(sb_bus_factor(SB_SENDRECV, 8), 1.0, 1e-12);
}

/* Rows of nccl-tests all_reduce_perf -g 2 on 2x H200 (device run). */
static void test_bw_against_nccl_tests(void **state)
{
	(void)state;
	/* 1073741824 B in 3243.60 us: algbw 331.03, busbw 331.03 (n=2) */
	assert_float_equal(sb_algbw(1073741824, 3243.60), 331.03, 0.005);
	assert_float_equal(sb_busbw(SB_ALLREDUCE, 1073741824, 3243.60, 2),
			   331.03, 0.005);
	/* 8589934592 B in 24782.9 us: 346.61 */
	assert_float_equal(sb_busbw(SB_ALLREDUCE, 8589934592UL, 24782.9, 2),
			   346.61, 0.005);
	/* 16 ranks allreduce: busbw = algbw * 30/16 */
	assert_float_equal(sb_busbw(SB_ALLREDUCE, 1000000000, 10000, 16), 187.5,
			   1e-9);
	assert_float_equal(sb_algbw(1, 0), 0, 0);
}

static void test_parse_size(void **state)
{
	size_t b;

	(void)state;
	assert_int_equal(sb_parse_size("1K", &b), 0);
	assert_int_equal(b, 1024);
	assert_int_equal(sb_parse_size("8G", &b), 0);
	assert_int_equal(b, 8589934592UL);
	assert_int_equal(sb_parse_size("3m", &b), 0);
	assert_int_equal(b, 3 << 20);
	assert_int_equal(sb_parse_size("123", &b), 0);
	assert_int_equal(b, 123);
	assert_int_equal(sb_parse_size("", &b), -1);
	assert_int_equal(sb_parse_size("0", &b), -1);
	assert_int_equal(sb_parse_size("1KB", &b), -1);
	assert_int_equal(sb_parse_size("1Q", &b), -1);
	assert_int_equal(sb_parse_size("-1", &b), -1);
	assert_int_equal(sb_parse_size(" 1", &b), -1);
	assert_int_equal(sb_parse_size("99999999999999999999", &b), -1);
	assert_int_equal(sb_parse_size("20000000T", &b), -1);
}

/* The size back in -b's form, for the message when -e is below -b. */
static void test_size_text(void **state)
{
	char buf[32];

	(void)state;
	sb_size_text(32 << 20, buf, sizeof(buf));
	assert_string_equal(buf, "32M");
	sb_size_text(1536 << 10, buf, sizeof(buf));
	assert_string_equal(buf, "1536K");
	sb_size_text(1000, buf, sizeof(buf));
	assert_string_equal(buf, "1000");
	sb_size_text((size_t)4 << 40, buf, sizeof(buf));
	assert_string_equal(buf, "4T");
	sb_size_text((size_t)4096 << 40, buf, sizeof(buf));
	assert_string_equal(buf, "4096T");
}

static void test_parse_numbers(void **state)
{
	long v;
	double d;
	enum sb_op op;

	(void)state;
	assert_int_equal(sb_parse_uint("20", 1, 100, &v), 0);
	assert_int_equal(v, 20);
	assert_int_equal(sb_parse_uint("0", 1, 100, &v), -1);
	assert_int_equal(sb_parse_uint("2x", 1, 100, &v), -1);
	assert_int_equal(sb_parse_double("350.5", 0, &d), 0);
	assert_float_equal(d, 350.5, 0);
	assert_int_equal(sb_parse_double("nan", 0, &d), -1);
	assert_int_equal(sb_parse_double("1e", 0, &d), -1);
	assert_int_equal(sb_op_parse("alltoall", &op), 0);
	assert_int_equal(op, SB_ALLTOALL);
	assert_int_equal(sb_op_parse("all_reduce", &op), -1);
}

static void test_counts(void **state)
{
	struct sb_counts c;

	(void)state;
	/* allgather 1K on 3 ranks: 256/3 = 85 -> 84 (16-byte blocks) */
	assert_int_equal(sb_counts(SB_ALLGATHER, 1024, 3, &c), 0);
	assert_int_equal(c.block, 84);
	assert_int_equal(c.send, 84);
	assert_int_equal(c.recv, 252);
	assert_int_equal(c.bytes, 1008);
	assert_int_equal(sb_counts(SB_REDUCESCATTER, 1024, 3, &c), 0);
	assert_int_equal(c.send, 252);
	assert_int_equal(c.recv, 84);
	assert_int_equal(sb_counts(SB_ALLREDUCE, 1048576, 2, &c), 0);
	assert_int_equal(c.count, 262144);
	assert_int_equal(sb_counts(SB_ALLTOALL, 16, 8, &c), -1);
}

static void test_check(void **state)
{
	struct sb_counts c;
	float buf[256];

	(void)state;
	/* allgather: the result is every rank's block in rank order */
	assert_int_equal(sb_counts(SB_ALLGATHER, 1024, 3, &c), 0);
	for (int p = 0; p < 3; p++)
		sb_fill(buf + p * c.block, c.block, p, 0);
	assert_int_equal(sb_check(SB_ALLGATHER, buf, c.recv, 1, 3, &c), 0);
	buf[100] += 1;
	buf[200] = NAN;
	assert_int_equal(sb_check(SB_ALLGATHER, buf, c.recv, 1, 3, &c), 2);
	/* allreduce: the sum of the patterns */
	assert_int_equal(sb_counts(SB_ALLREDUCE, 1024, 4, &c), 0);
	for (size_t i = 0; i < c.count; i++)
		buf[i] = sb_expect(SB_ALLREDUCE, 0, 4, i, &c);
	assert_int_equal(sb_check(SB_ALLREDUCE, buf, c.count, 2, 4, &c), 0);
	buf[7] = 0;
	assert_int_equal(sb_check(SB_ALLREDUCE, buf, c.count, 2, 4, &c), 1);
	/* sendrecv: the left neighbour's data */
	sb_fill(buf, 256, 3, 0);
	assert_int_equal(sb_check(SB_SENDRECV, buf, 256, 0, 4, &c), 0);
	assert_int_equal(sb_check(SB_SENDRECV, buf, 256, 1, 4, &c), 256);
}

/* Capture a writer's output. */
static char *capture(void (*fn)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, arg);
	fclose(f);
	return buf;
}

static void row_writer(FILE *f, void *arg)
{
	sb_write_row(f, SB_ALLREDUCE, arg);
}

static void test_table_row(void **state)
{
	struct sb_row row = {
		.bytes = 8589934592UL,
		.count = 2147483648UL,
		.ran = { true, true },
		.time_us = { 24782.9, 24770.2 },
		.algbw = { 346.61, 346.78 },
		.busbw = { 346.61, 346.78 },
		.wrong = { 0, 0 },
	};
	char *s;

	(void)state;
	/* the line nccl-tests printed for the same numbers */
	s = capture(row_writer, &row);
	assert_string_equal(
		s,
		"  8589934592    2147483648     float     sum      -1  24782.9  346.61  346.61       0  24770.2  346.78  346.78       0\n");
	free(s);
	row.ran[1] = false;
	row.wrong[0] = -1;
	s = capture(row_writer, &row);
	assert_string_equal(
		s,
		"  8589934592    2147483648     float     sum      -1  24782.9  346.61  346.61    N/A      N/A     N/A     N/A     N/A\n");
	free(s);
}

static void test_fmt_float(void **state)
{
	char b[16];

	(void)state;
	sb_fmt_float(22.27, 7, b);
	assert_string_equal(b, "  22.27");
	sb_fmt_float(24782.94, 7, b);
	assert_string_equal(b, "24782.9");
	sb_fmt_float(1234567.0, 7, b);
	assert_string_equal(b, "1234567");
	sb_fmt_float(123456789.0, 7, b);
	assert_string_equal(b, "1.2e+08");
	sb_fmt_float(1234.5, 6, b);
	assert_string_equal(b, "1234.5");
}

static struct sb_row two_rows[2] = {
	{ .bytes = 1024,
	  .count = 256,
	  .ran = { true, true },
	  .time_us = { 10, 20 },
	  .algbw = { 0.1024, 0.0512 },
	  .busbw = { 0.1024, 0.0512 },
	  .wrong = { 0, 0 } },
	{ .bytes = 1048576,
	  .count = 262144,
	  .ran = { true, false },
	  .time_us = { 100, 0 },
	  .algbw = { 10.48576, 0 },
	  .busbw = { 10.48576, 0 },
	  .wrong = { 3, -1 } },
};

static struct sb_result one_result = {
	.op = SB_ALLREDUCE,
	.group = "all",
	.nranks = 2,
	.nrows = 2,
	.rows = two_rows,
};

static void json_writer(FILE *f, void *arg)
{
	sb_write_json(f, arg, 1, "mpi", 5, false);
}

static void test_json(void **state)
{
	char *s;

	(void)state;
	s = capture(json_writer, &one_result);
	assert_string_equal(
		s,
		"{\"tool\": \"supernode-bench\", \"backend\": \"mpi\", \"units\": {\"time\": \"us\", \"bandwidth\": \"GB/s (1e9 B/s)\"},\n"
		" \"min_busbw_gbps\": 5, \"pass\": false,\n"
		" \"results\": [\n"
		"    {\"op\": \"allreduce\", \"group\": \"all\", \"nranks\": 2, \"avg_busbw_gbps\": 3.54645, \"wrong\": 3,\n"
		"     \"rows\": [\n"
		"      {\"bytes\": 1024, \"count\": 256, \"out_of_place\": {\"time_us\": 10, \"algbw_gbps\": 0.1024, \"busbw_gbps\": 0.1024, \"wrong\": 0}, \"in_place\": {\"time_us\": 20, \"algbw_gbps\": 0.0512, \"busbw_gbps\": 0.0512, \"wrong\": 0}},\n"
		"      {\"bytes\": 1048576, \"count\": 262144, \"out_of_place\": {\"time_us\": 100, \"algbw_gbps\": 10.4858, \"busbw_gbps\": 10.4858, \"wrong\": 3}, \"in_place\": null}]}\n"
		" ]}\n");
	free(s);
	assert_int_equal(sb_total_wrong(&one_result), 3);
	assert_float_equal(sb_avg_busbw(&one_result),
			   (0.1024 + 0.0512 + 10.48576) / 3, 1e-12);
}

static void svg_writer(FILE *f, void *arg)
{
	sb_write_svg(f, arg, 1, "t<&");
}

static void test_svg(void **state)
{
	char *s;

	(void)state;
	s = capture(svg_writer, &one_result);
	/* y axis up to 20 GB/s; x from 2^10 to 2^20 over 560 px */
	assert_non_null(strstr(s, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(s, ">t&lt;&amp;</text>"));
	assert_non_null(strstr(s, "points=\"70.0,428.0 630.0,225.5 \""));
	assert_non_null(strstr(s, ">20</text>"));
	assert_non_null(strstr(s, ">1K</text>"));
	assert_non_null(strstr(s, ">allreduce (all, 2)</text>"));
	assert_non_null(strstr(s, "</svg>\n"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bus_factor),
		cmocka_unit_test(test_bw_against_nccl_tests),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_size_text),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_table_row),
		cmocka_unit_test(test_fmt_float),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_svg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
