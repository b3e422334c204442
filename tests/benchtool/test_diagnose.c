// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * supernode-bench --diagnose's decisions over synthetic pair matrices:
 * the median, slow pairs and ranks, the bisection, confirmation by both
 * tests, the circuit breaker, the drain reason and the JSON.
 *
 * The synthetic fabric: every rank has a speed (GB/s); a pair runs at the
 * slower of its two ends unless a link is set slower; a group's
 * collective runs at its slowest member.
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
#include "sb_diag.h"

#define SET_MAX(d, pm) ((d).max_permille = (pm))

#define N 8

struct fabric {
	int n;
	double speed[N];
	double pair[N * N];
	int node_of[N];
	char names[N][SB_DIAG_NAME_SIZE];
	int calls;
};

static void fabric_init(struct fabric *f, int n, int ranks_per_node)
{
	memset(f, 0, sizeof(*f));
	f->n = n;
	for (int r = 0; r < n; r++) {
		f->speed[r] = 10;
		f->node_of[r] = r / ranks_per_node;
		snprintf(f->names[f->node_of[r]], SB_DIAG_NAME_SIZE, "gpu%02d",
			 f->node_of[r] + 1);
	}
}

/* The pair matrix from the speeds; link (a, b) at @link when a >= 0. */
static void fabric_pairs(struct fabric *f, int a, int b, double link)
{
	for (int i = 0; i < f->n; i++)
		for (int j = 0; j < f->n; j++)
			f->pair[i * f->n + j] =
				i == j ? NAN : fmin(f->speed[i], f->speed[j]);
	if (a >= 0)
		f->pair[a * f->n + b] = f->pair[b * f->n + a] = link;
}

static double group_speed(const struct fabric *f, int lo, int hi)
{
	double s = INFINITY;

	for (int r = lo; r < hi; r++)
		s = fmin(s, f->speed[r]);
	return s;
}

static int measure(int lo, int mid, int hi, double out[2], void *arg)
{
	struct fabric *f = arg;

	f->calls++;
	out[0] = group_speed(f, lo, mid);
	out[1] = group_speed(f, mid, hi);
	return 0;
}

static int measure_fails(int lo, int mid, int hi, double out[2], void *arg)
{
	(void)lo, (void)mid, (void)hi, (void)out, (void)arg;
	return -1;
}

/* Run both tests and decide, as sb_diag_run.c does. */
static enum sb_diag_verdict diagnose(struct fabric *f, struct sb_diag *d,
				     double max_fraction)
{
	int nnodes = f->node_of[f->n - 1] + 1;

	*d = (struct sb_diag){
		.nranks = f->n,
		.nnodes = nnodes,
		.pair = f->pair,
		.node_of = f->node_of,
		.names = (const char(*)[SB_DIAG_NAME_SIZE])f->names,
		.fraction = 0.5,
	};
	SET_MAX(*d, (unsigned)(max_fraction * 1000 + 0.5));
	assert_int_equal(sb_diag_alloc(d), 0);
	assert_int_equal(sb_diag_pairs(d), 0);
	assert_int_equal(
		sb_bisect_run(f->n, d->fraction, measure, f, &d->bisect), 0);
	return sb_diag_decide(d);
}

static void test_median(void **state)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };

	(void)state;
	assert_true(sb_median(odd, 3) == 3);
	assert_true(sb_median(even, 4) == 2.5);
	assert_true(sb_median(odd, 0) == 0);
	assert_true(odd[0] == 5); /* not sorted in place */
}

/* One slow rank (5 of 8, node gpu03): both tests name it, confirmed. */
static void test_one_slow_rank(void **state)
{
	struct fabric f;
	struct sb_diag d;
	char reason[256];

	(void)state;
	fabric_init(&f, 8, 2);
	f.speed[5] = 1;
	fabric_pairs(&f, -1, -1, 0);
	assert_int_equal(diagnose(&f, &d, 0.25), SB_DIAG_FOUND);
	assert_true(d.median == 10);
	assert_int_equal(d.nslow_pairs, 7);
	assert_int_equal(d.slow_count[5], 7);
	assert_int_equal(d.slow_count[4], 1);
	for (int r = 0; r < 8; r++)
		assert_int_equal(d.rank_suspect[r], r == 5);
	/* 0-7: 10 | 1 -> 4-7: 1 | 10 -> 4-5 */
	assert_int_equal(d.bisect.nsteps, 2);
	assert_int_equal(d.bisect.steps[0].chosen, 1);
	assert_int_equal(d.bisect.steps[1].chosen, 0);
	assert_int_equal(d.bisect.lo, 4);
	assert_int_equal(d.bisect.hi, 6);
	assert_int_equal(d.nconfirmed, 1);
	for (int k = 0; k < 4; k++)
		assert_int_equal(d.node_confirmed[k], k == 2);
	assert_int_equal(sb_diag_reason(&d, 2, reason, sizeof(reason)), 0);
	assert_string_equal(
		reason,
		"BENCH_SLOW rank 5: 7/7 sendrecv pairs < 0.50 x median 10 GB/s (its median 1), allreduce halves 1 vs 10 GB/s");
	assert_int_equal(sb_diag_reason(&d, 1, reason, sizeof(reason)), -1);
	assert_string_equal(reason, "");
	sb_diag_free(&d);
}

/* One slow link (2-6): a slow pair, no rank suspect, nothing confirmed. */
static void test_slow_link(void **state)
{
	struct fabric f;
	struct sb_diag d;

	(void)state;
	fabric_init(&f, 8, 1);
	fabric_pairs(&f, 2, 6, 0.5);
	assert_int_equal(diagnose(&f, &d, 0.25), SB_DIAG_SLOW_PAIR);
	assert_int_equal(d.nslow_pairs, 1);
	assert_true(d.pair_slow[2 * 8 + 6] && d.pair_slow[6 * 8 + 2]);
	assert_int_equal(d.nsuspect_nodes, 0);
	assert_int_equal(d.bisect.nsteps, 1);
	assert_int_equal(d.bisect.steps[0].chosen, -1);
	assert_int_equal(d.bisect.hi - d.bisect.lo, 0);
	assert_int_equal(d.nconfirmed, 0);
	sb_diag_free(&d);
}

/* Nothing wrong: clean; a 20% slower rank stays above 0.5 x median. */
static void test_clean(void **state)
{
	struct fabric f;
	struct sb_diag d;

	(void)state;
	fabric_init(&f, 8, 1);
	f.speed[3] = 8;
	fabric_pairs(&f, -1, -1, 0);
	assert_int_equal(diagnose(&f, &d, 0.25), SB_DIAG_CLEAN);
	assert_int_equal(d.nslow_pairs, 0);
	sb_diag_free(&d);
}

/*
 * Three of eight nodes slow (behind one bad switch): more than 0.25 x 8:
 * the breaker trips, nothing is confirmed; with 0.5 the three are found.
 */
static void test_breaker(void **state)
{
	struct fabric f;
	struct sb_diag d;

	(void)state;
	fabric_init(&f, 8, 1);
	f.speed[0] = f.speed[1] = f.speed[2] = 1;
	fabric_pairs(&f, -1, -1, 0);
	assert_int_equal(diagnose(&f, &d, 0.25), SB_DIAG_SHARED);
	assert_true(d.median == 10);
	assert_int_equal(d.nsuspect_nodes, 3);
	assert_int_equal(d.nconfirmed, 0);
	for (int k = 0; k < 8; k++)
		assert_false(d.node_confirmed[k]);
	sb_diag_free(&d);

	/* Two slow: at the limit (2 <= 0.25 x 8), not over it. */
	f.speed[2] = 10;
	fabric_pairs(&f, -1, -1, 0);
	assert_int_equal(diagnose(&f, &d, 0.25), SB_DIAG_FOUND);
	assert_int_equal(d.nsuspect_nodes, 2);
	/* the bisection ends at 0-1: both confirmed */
	assert_int_equal(d.bisect.lo, 0);
	assert_int_equal(d.bisect.hi, 2);
	assert_int_equal(d.nconfirmed, 2);
	sb_diag_free(&d);
}

/*
 * The breaker in integers (issue 17 item 10): ranks 0..k-1 of n (one a
 * node) suspect by pairwise and at the bisection's end, max permille.
 */
static enum sb_diag_verdict decide_k_of_n(int k, int n, unsigned permille)
{
	int node_of[SB_DIAG_MAX_RANKS];
	struct sb_diag d = { .nranks = n, .nnodes = n, .node_of = node_of };
	enum sb_diag_verdict v;

	SET_MAX(d, permille);
	for (int r = 0; r < n; r++)
		node_of[r] = r;
	assert_int_equal(sb_diag_alloc(&d), 0);
	for (int r = 0; r < k; r++)
		d.rank_suspect[r] = true;
	d.bisect.lo = 0;
	d.bisect.hi = k;
	v = sb_diag_decide(&d);
	sb_diag_free(&d);
	return v;
}

static void test_breaker_integer(void **state)
{
	(void)state;
	/* 0.58 x 50 = 29 (in doubles 28.999999999999996: 29 tripped it). */
	assert_int_equal(decide_k_of_n(29, 50, 580), SB_DIAG_FOUND);
	assert_int_equal(decide_k_of_n(30, 50, 580), SB_DIAG_SHARED);
	/* Small runs: one node of 2 or 3 may be named (before: never). */
	assert_int_equal(decide_k_of_n(1, 3, 250), SB_DIAG_FOUND);
	assert_int_equal(decide_k_of_n(1, 2, 250), SB_DIAG_FOUND);
	assert_int_equal(decide_k_of_n(2, 3, 250), SB_DIAG_SHARED);
	/* 4 nodes: one, not two. */
	assert_int_equal(decide_k_of_n(1, 4, 250), SB_DIAG_FOUND);
	assert_int_equal(decide_k_of_n(2, 4, 250), SB_DIAG_SHARED);
}

/* --max-drain-fraction parsed exactly, as parts per thousand. */
static void test_parse_permille(void **state)
{
	static const struct {
		const char *s;
		int rc;
		unsigned v;
	} rows[] = {
		{ "0.25", 0, 250 },  { ".5", 0, 500 },	  { "0.58", 0, 580 },
		{ "0.333", 0, 333 }, { "0.001", 0, 1 },	  { "0.999", 0, 999 },
		{ "0", -1, 0 },	     { "1", -1, 0 },	  { "1.0", -1, 0 },
		{ "0.0", -1, 0 },    { "0.2500", -1, 0 }, { "0.25x", -1, 0 },
		{ "-0.25", -1, 0 },  { "", -1, 0 },	  { "0.", -1, 0 },
		{ "25%", -1, 0 },    { " 0.25", -1, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned v = 0;
		int rc = sb_parse_permille(rows[i].s, &v);

		if (rc != rows[i].rc || (!rc && v != rows[i].v))
			fail_msg("'%s': rc %d v %u", rows[i].s, rc, v);
	}
	assert_int_equal(sb_parse_permille(NULL, NULL), -1);
}

/* Pairwise names rank 6, the bisection ends elsewhere: not confirmed. */
static void test_needs_both(void **state)
{
	struct fabric f;
	struct sb_diag d;

	(void)state;
	fabric_init(&f, 8, 1);
	f.speed[6] = 1;
	fabric_pairs(&f, -1, -1, 0);
	/* the collective on halves does not see rank 6 (a fake fabric) */
	f.speed[6] = 10;
	f.speed[1] = 1;
	assert_int_equal(diagnose(&f, &d, 0.25), SB_DIAG_SLOW_PAIR);
	assert_true(d.rank_suspect[6]);
	assert_int_equal(d.bisect.lo, 0);
	assert_int_equal(d.bisect.hi, 2);
	assert_true(d.node_pairwise[6] && !d.node_bisect[6]);
	assert_true(!d.node_pairwise[1] && d.node_bisect[1]);
	assert_int_equal(d.nconfirmed, 0);
	sb_diag_free(&d);
}

/* Odd counts: 7 ranks halve as 0-2 | 3-6, then 3-4 | 5-6. */
static void test_bisect_odd(void **state)
{
	struct fabric f;
	struct sb_bisect b;

	(void)state;
	fabric_init(&f, 7, 1);
	f.speed[6] = 2;
	assert_int_equal(sb_bisect_run(7, 0.5, measure, &f, &b), 0);
	assert_int_equal(b.nsteps, 2);
	assert_int_equal(b.steps[0].mid, 3);
	assert_int_equal(b.steps[1].lo, 3);
	assert_int_equal(b.steps[1].mid, 5);
	assert_int_equal(b.lo, 5);
	assert_int_equal(b.hi, 7);
	assert_int_equal(f.calls, 2);
	/* fewer than 4 ranks: no halving, no suspect */
	f.calls = 0;
	assert_int_equal(sb_bisect_run(3, 0.5, measure, &f, &b), 0);
	assert_int_equal(b.nsteps, 0);
	assert_int_equal(b.hi - b.lo, 0);
	assert_int_equal(f.calls, 0);
	assert_int_equal(sb_bisect_run(8, 0.5, measure_fails, &f, &b), -1);
}

/* 2 ranks: one pair, no reference to judge it: nothing suspect. */
static void test_two_ranks(void **state)
{
	struct fabric f;
	struct sb_diag d;

	(void)state;
	fabric_init(&f, 2, 1);
	f.speed[1] = 0.1;
	fabric_pairs(&f, -1, -1, 0);
	assert_int_equal(diagnose(&f, &d, 0.25), SB_DIAG_CLEAN);
	assert_false(d.rank_suspect[0] || d.rank_suspect[1]);
	sb_diag_free(&d);
}

static void test_alloc_bounds(void **state)
{
	struct sb_diag d = { .nranks = SB_DIAG_MAX_RANKS + 1, .nnodes = 1 };

	(void)state;
	assert_int_equal(sb_diag_alloc(&d), -1);
	d.nranks = 4;
	d.nnodes = 5;
	assert_int_equal(sb_diag_alloc(&d), -1);
	d.nnodes = 0;
	assert_int_equal(sb_diag_alloc(&d), -1);
}

static void test_name_clean(void **state)
{
	char out[SB_DIAG_NAME_SIZE], big[200];

	(void)state;
	sb_diag_name_clean("gpu-a001.x_1", out);
	assert_string_equal(out, "gpu-a001.x_1");
	sb_diag_name_clean("a\"b\\c<\n", out);
	assert_string_equal(out, "a?b?c??");
	sb_diag_name_clean("", out);
	assert_string_equal(out, "?");
	memset(big, 'n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	sb_diag_name_clean(big, out);
	assert_int_equal(strlen(out), SB_DIAG_NAME_SIZE - 1);
}

static void test_writers(void **state)
{
	struct fabric f;
	struct sb_diag d;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	fabric_init(&f, 4, 1);
	f.speed[3] = 1;
	fabric_pairs(&f, -1, -1, 0);
	assert_int_equal(diagnose(&f, &d, 0.25), SB_DIAG_FOUND);
	m = open_memstream(&buf, &len);
	assert_int_equal(sb_diag_write_json(m, &d, 1048576), 0);
	fclose(m);
	assert_non_null(strstr(buf, "\"median_busbw_gbps\": 10,"));
	assert_non_null(strstr(
		buf,
		"{\"ranks\": [0, 3], \"nodes\": [\"gpu01\", \"gpu04\"], \"busbw_gbps\": 1, \"x_median\": 0.1, \"test\": \"pairwise\"}"));
	assert_non_null(strstr(
		buf,
		"{\"node\": \"gpu04\", \"suspect_ranks\": [3], \"pairwise\": true, \"bisection\": true, \"confirmed\": true}"));
	assert_non_null(strstr(buf, "\"end\": [2, 3]},"));
	assert_non_null(strstr(buf, "\"verdict\": \"found\"}"));
	free(buf);
	buf = NULL;
	m = open_memstream(&buf, &len);
	sb_diag_write_table(m, &d, 1048576);
	fclose(m);
	assert_non_null(strstr(
		buf,
		"# node gpu04: pairwise (rank 3: 3/3 pairs slow, its median 1.000 GB/s) bisection -> CONFIRMED"));
	assert_non_null(
		strstr(buf, "# node gpu03: bisection -> not confirmed"));
	assert_non_null(
		strstr(buf, "# verdict: 1 node(s) confirmed by both tests"));
	free(buf);
	sb_diag_free(&d);
}

/* Every pair meets exactly once; partners agree; nobody meets itself. */
static void test_rounds(void **state)
{
	(void)state;
	assert_int_equal(sb_rounds(8), 7);
	assert_int_equal(sb_rounds(7), 7);
	assert_int_equal(sb_rounds(1), 0);
	for (int n = 2; n <= 33; n++) {
		int met[33][33] = { { 0 } };

		for (int r = 0; r < sb_rounds(n); r++) {
			int idle = 0;

			for (int i = 0; i < n; i++) {
				int p = sb_round_partner(n, r, i);

				if (p < 0) {
					idle++;
					continue;
				}
				assert_int_not_equal(p, i);
				assert_int_equal(sb_round_partner(n, r, p), i);
				met[i][p]++;
			}
			assert_int_equal(idle, n & 1);
		}
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				assert_int_equal(met[i][j], i != j);
	}
	assert_int_equal(sb_round_partner(4, 3, 0), -1);
	assert_int_equal(sb_round_partner(4, 0, 4), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_one_slow_rank),
		cmocka_unit_test(test_slow_link),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_breaker),
		cmocka_unit_test(test_breaker_integer),
		cmocka_unit_test(test_parse_permille),
		cmocka_unit_test(test_needs_both),
		cmocka_unit_test(test_bisect_odd),
		cmocka_unit_test(test_two_ranks),
		cmocka_unit_test(test_alloc_bounds),
		cmocka_unit_test(test_name_clean),
		cmocka_unit_test(test_writers),
		cmocka_unit_test(test_rounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
