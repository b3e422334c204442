// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the GPU fill and check of supernode-bench without a GPU:
 * the check plans (sb_pattern.c) against sb_check() for every operation,
 * rank count and kind of wrong float, and sb_cuda.c through a fake
 * libcuda.so.1 (fake_cuda.c, path in FAKE_CUDA_LIB) that runs the PTX
 * kernels' algorithm on the host: fill, exact counts, the grid cap, and
 * each way the driver path falls back (library, symbol, cuInit, JIT).
 * The PTX itself is compiled by the driver on the device run
 * (tests/device/bench_walltime.sh).
 */
#include <dlfcn.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sb.h"
#include "sb_cuda.h"

#define MAXR 8

/* Rank @rank's correct result of @op (c->recv floats). */
static float *expected(enum sb_op op, int rank, int nranks,
		       const struct sb_counts *c)
{
	float *buf = malloc(c->recv * sizeof(float));

	assert_non_null(buf);
	for (size_t i = 0; i < c->recv; i++)
		buf[i] = sb_expect(op, rank, nranks, i, c);
	return buf;
}

static int64_t plan_check(enum sb_op op, const float *buf, int rank, int nranks,
			  const struct sb_counts *c)
{
	struct sb_seg segs[MAXR];
	size_t n = sb_check_plan(op, rank, nranks, c, segs, MAXR);
	int64_t wrong = 0;
	size_t covered = 0;

	assert_true(n >= 1);
	for (size_t i = 0; i < n; i++) {
		wrong += sb_seg_check(&segs[i], buf);
		covered += segs[i].len;
	}
	assert_int_equal(covered, c->recv); /* every float judged once */
	return wrong;
}

/* The plan counts exactly what sb_check() counts, spoiled or not. */
static void test_plan_matches_check(void **state)
{
	static const int ranks[] = { 1, 2, 3, 5, 8 };
	const float bad[] = { NAN, -1.0f, 0.0f, INFINITY, 1e9f };

	(void)state;
	for (int op = 0; op < SB_NOPS; op++) {
		for (size_t r = 0; r < sizeof(ranks) / sizeof(ranks[0]); r++) {
			int nr = ranks[r], rank = nr - 1;
			struct sb_counts c;
			float *buf;

			assert_int_equal(sb_counts(op, 4000, nr, &c), 0);
			buf = expected(op, rank, nr, &c);
			assert_int_equal(plan_check(op, buf, rank, nr, &c), 0);
			assert_int_equal(
				sb_check(op, buf, c.recv, rank, nr, &c), 0);
			for (size_t j = 0; j < 5; j++)
				buf[j * (c.recv - 1) / 4] = bad[j];
			assert_int_equal(plan_check(op, buf, rank, nr, &c), 5);
			assert_int_equal(
				sb_check(op, buf, c.recv, rank, nr, &c), 5);
			free(buf);
		}
	}
}

/* A wrong value off by one pattern step is caught, not only junk. */
static void test_plan_shifted(void **state)
{
	struct sb_counts c;
	float *buf;

	(void)state;
	assert_int_equal(sb_counts(SB_ALLTOALL, 4096, 4, &c), 0);
	buf = expected(SB_ALLTOALL, 2, 4, &c);
	/* rank 1's data at rank 3's place: every float of the block wrong
	 * except where the two patterns agree (never: 13 is prime to 31) */
	for (size_t i = 0; i < c.block; i++)
		buf[3 * c.block + i] = sb_value(1, 2 * c.block + i);
	assert_int_equal(plan_check(SB_ALLTOALL, buf, 2, 4, &c), c.block);
	assert_int_equal(sb_check(SB_ALLTOALL, buf, c.recv, 2, 4, &c), c.block);
	free(buf);
	/* a sum over 3 ranks judged as one over 4: every float wrong */
	assert_int_equal(sb_counts(SB_ALLREDUCE, 1024, 4, &c), 0);
	buf = expected(SB_ALLREDUCE, 0, 3, &c);
	assert_int_equal(plan_check(SB_ALLREDUCE, buf, 0, 4, &c), c.recv);
	free(buf);
}

static void test_plan_bounds(void **state)
{
	struct sb_seg segs[4];
	struct sb_counts c;

	(void)state;
	assert_int_equal(sb_counts(SB_ALLGATHER, 4096, 8, &c), 0);
	assert_int_equal(sb_check_plan(SB_ALLGATHER, 0, 8, &c, segs, 4), 0);
	assert_int_equal(sb_check_plan(SB_ALLGATHER, 0, 4, &c, segs, 4), 4);
	assert_int_equal(sb_check_plan(SB_ALLREDUCE, 0, 8, &c, segs, 1), 1);
	assert_int_equal(sb_check_plan(SB_NOPS, 0, 2, &c, segs, 4), 0);
	assert_int_equal(sb_check_plan(SB_ALLREDUCE, 0, 0, &c, segs, 4), 0);
	/* the reduce-scatter run starts at the rank's block of the pattern */
	assert_int_equal(sb_counts(SB_REDUCESCATTER, 4096, 4, &c), 0);
	assert_int_equal(sb_check_plan(SB_REDUCESCATTER, 3, 4, &c, segs, 1), 1);
	assert_int_equal(segs[0].off, 3 * c.block);
	assert_int_equal(segs[0].len, c.block);
}

/* The host fill of a run is sb_fill() at the same place and offset. */
static void test_seg_fill(void **state)
{
	float a[300], b[300];
	struct sb_seg s;

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	sb_seg_copy(&s, 5, 40, 200, 77);
	sb_seg_fill(&s, a);
	sb_fill(b + 40, 200, 5, 77);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(sb_seg_check(&s, a), 0);
}

static struct sb_cuda *open_fake(char *why)
{
	setenv("SUPERNODE_BENCH_LIBCUDA", FAKE_CUDA_LIB, 1);
	return sb_cuda_open(why, SB_CUDA_WHY);
}

static unsigned int last_blocks(void)
{
	void *h = dlopen(FAKE_CUDA_LIB, RTLD_NOW | RTLD_NOLOAD);
	unsigned int (*fn)(void);
	void *p;

	assert_non_null(h);
	p = dlsym(h, "fake_cuda_last_blocks");
	assert_non_null(p);
	memcpy(&fn, &p, sizeof(p));
	dlclose(h);
	return fn();
}

/* Fill and check through the driver path, counted exactly. */
static void test_cuda_fill_check(void **state)
{
	char why[SB_CUDA_WHY] = "";
	struct sb_cuda_dev d;
	struct sb_seg segs[MAXR], s;
	struct sb_counts c;
	struct sb_cuda *cu;
	float *buf, *ref;

	(void)state;
	unsetenv("FAKE_CUDA_PTX_ERROR");
	cu = open_fake(why);
	assert_non_null(cu);
	assert_int_equal(sb_cuda_dev_init(cu, &d, MAXR, why, sizeof(why)), 0);
	assert_int_equal(d.blocks, 16); /* 8 per multiprocessor, 2 of them */
	/* 100000 floats: 25 blocks wanted, 16 launched, threads loop */
	assert_int_equal(sb_counts(SB_ALLGATHER, 400000, 4, &c), 0);
	buf = malloc(c.recv * sizeof(float));
	ref = malloc(c.recv * sizeof(float));
	assert_true(buf && ref);
	for (size_t i = 0; i < c.recv; i++)
		buf[i] = 5.0f; /* zeroed first, then rank 2's block written */
	sb_seg_copy(&s, 2, 2 * c.block, c.block, 0);
	assert_int_equal(sb_cuda_fill(cu, &d, NULL, buf, c.recv, buf, &s), 0);
	assert_int_equal(last_blocks(), 16);
	memset(ref, 0, c.recv * sizeof(float));
	sb_fill(ref + 2 * c.block, c.block, 2, 0);
	assert_memory_equal(buf, ref, c.recv * sizeof(float));
	/* a whole allgather result, then spoiled floats */
	for (int p = 0; p < 4; p++)
		sb_fill(buf + p * c.block, c.block, p, 0);
	assert_int_equal(sb_check_plan(SB_ALLGATHER, 1, 4, &c, segs, MAXR), 4);
	assert_int_equal(sb_cuda_check(cu, &d, NULL, buf, segs, 4), 0);
	buf[0] = NAN;
	buf[c.block - 1] = -1.0f;
	buf[c.block] = 0.0f;
	buf[c.recv - 1] = INFINITY;
	buf[c.recv / 2] += 1.0f;
	assert_int_equal(sb_cuda_check(cu, &d, NULL, buf, segs, 4), 5);
	assert_int_equal(sb_check(SB_ALLGATHER, buf, c.recv, 1, 4, &c), 5);
	/* more runs than room */
	assert_int_equal(sb_cuda_check(cu, &d, NULL, buf, segs, MAXR + 1), -1);
	sb_cuda_dev_fini(cu, &d);
	sb_cuda_close(cu);
	free(buf);
	free(ref);
}

/* An empty run launches nothing; a short one launches what it needs. */
static void test_cuda_small(void **state)
{
	char why[SB_CUDA_WHY] = "";
	float buf[40] = { 0 };
	struct sb_cuda_dev d;
	struct sb_seg s;
	struct sb_cuda *cu;

	(void)state;
	cu = open_fake(why);
	assert_non_null(cu);
	assert_int_equal(sb_cuda_dev_init(cu, &d, 1, why, sizeof(why)), 0);
	sb_seg_sum(&s, 3, 3, 33, 30);
	assert_int_equal(sb_cuda_fill(cu, &d, NULL, NULL, 0, buf, &s), 0);
	assert_int_equal(last_blocks(), 1);
	assert_int_equal(sb_seg_check(&s, buf), 0);
	assert_float_equal(buf[3], s.tab[30], 0);
	assert_float_equal(buf[4], s.tab[0], 0);
	assert_float_equal(buf[2], 0, 0);
	assert_int_equal(sb_cuda_check(cu, &d, NULL, buf, &s, 1), 0);
	s.len = 0;
	assert_int_equal(sb_cuda_check(cu, &d, NULL, buf, &s, 1), 0);
	sb_cuda_dev_fini(cu, &d);
	sb_cuda_close(cu);
}

/* More runs than one upload holds (16): every table lands in its slot. */
static void test_cuda_many_runs(void **state)
{
	enum {
		NR = 40
	};
	char why[SB_CUDA_WHY] = "";
	struct sb_seg *segs = calloc(NR, sizeof(*segs));
	struct sb_cuda_dev d;
	struct sb_counts c;
	struct sb_cuda *cu;
	float *buf;

	(void)state;
	assert_non_null(segs);
	cu = open_fake(why);
	assert_non_null(cu);
	assert_int_equal(sb_cuda_dev_init(cu, &d, NR, why, sizeof(why)), 0);
	assert_int_equal(sb_counts(SB_ALLTOALL, NR * 64 * 4, NR, &c), 0);
	buf = expected(SB_ALLTOALL, 7, NR, &c);
	assert_int_equal(sb_check_plan(SB_ALLTOALL, 7, NR, &c, segs, NR), NR);
	assert_int_equal(sb_cuda_check(cu, &d, NULL, buf, segs, NR), 0);
	buf[39 * c.block + 5] = -1.0f; /* in the last run's block */
	buf[17 * c.block] = NAN;       /* first float of the 18th */
	assert_int_equal(sb_cuda_check(cu, &d, NULL, buf, segs, NR), 2);
	sb_cuda_dev_fini(cu, &d);
	sb_cuda_close(cu);
	free(buf);
	free(segs);
}

/* Each way the driver path is refused names the cause. */
static void test_cuda_fallbacks(void **state)
{
	char why[SB_CUDA_WHY] = "";
	struct sb_cuda_dev d;
	struct sb_cuda *cu;

	(void)state;
	setenv("SUPERNODE_BENCH_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	assert_null(sb_cuda_open(why, sizeof(why)));
	assert_non_null(strstr(why, "cannot load /nonexistent/libcuda.so.1: "));
	setenv("SUPERNODE_BENCH_LIBCUDA", "libm.so.6", 1);
	assert_null(sb_cuda_open(why, sizeof(why)));
	assert_string_equal(why, "libm.so.6 has no cuInit");
	setenv("FAKE_CUDA_INIT_RC", "3", 1);
	assert_null(open_fake(why));
	assert_string_equal(why, "cuInit: initialization error (error 3)");
	unsetenv("FAKE_CUDA_INIT_RC");
	setenv("FAKE_CUDA_PTX_ERROR", "1", 1);
	cu = open_fake(why);
	assert_non_null(cu);
	assert_int_equal(sb_cuda_dev_init(cu, &d, 4, why, sizeof(why)), -1);
	assert_string_equal(
		why,
		"cuModuleLoadDataEx: a PTX JIT compilation failed (error 218): ptxas fatal: fake");
	assert_null(d.module);
	assert_int_equal(d.tabs, 0);
	unsetenv("FAKE_CUDA_PTX_ERROR");
	assert_int_equal(sb_cuda_dev_init(cu, &d, 0, why, sizeof(why)), -1);
	assert_string_equal(why, "0 runs per check");
	sb_cuda_close(cu);
}

/* The text the driver gets: both entries, the target, one NUL at the end. */
static void test_ptx_text(void **state)
{
	(void)state;
	assert_non_null(strstr(sb_ptx, ".version 6.0\n.target sm_52\n"));
	assert_non_null(strstr(sb_ptx, ".visible .entry " SB_PTX_FILL "(\n"));
	assert_non_null(strstr(sb_ptx, ".visible .entry " SB_PTX_CHECK "(\n"));
	assert_non_null(strstr(sb_ptx, "setp.neu.f32"));
	assert_non_null(strstr(sb_ptx, "atom.global.add.u64"));
	for (const char *p = sb_ptx; *p; p++)
		assert_true((*p >= ' ' && *p < 127) || *p == '\n' ||
			    *p == '\t');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_matches_check),
		cmocka_unit_test(test_plan_shifted),
		cmocka_unit_test(test_plan_bounds),
		cmocka_unit_test(test_seg_fill),
		cmocka_unit_test(test_cuda_fill_check),
		cmocka_unit_test(test_cuda_small),
		cmocka_unit_test(test_cuda_many_runs),
		cmocka_unit_test(test_cuda_fallbacks),
		cmocka_unit_test(test_ptx_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
