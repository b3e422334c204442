// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_diagnose.c: --diagnose's decisions, pure: the median of the pair
 * matrix, slow pairs and suspect ranks, the bisection over a measuring
 * callback, the confirmation by both tests, the circuit breaker, the
 * drain reason and the writers.  Unit-tested over synthetic matrices
 * (tests/benchtool/test_diagnose.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sb_diag.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/**
 * sb_median - the median of @n values (the mean of the two middle ones
 * when @n is even); 0 when @n is 0 or memory runs out.  @v is not changed.
 */
double sb_median(const double *v, size_t n)
{
	double *s, m;

	if (!n || !(s = malloc(n * sizeof(*s))))
		return 0;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

static bool measured(double v)
{
	return isfinite(v) && v >= 0;
}

/* The median busbw of rank @r's measured pairs, GB/s; 0: none. */
static double rank_median(const struct sb_diag *d, int r)
{
	double v[SB_DIAG_MAX_RANKS];
	size_t k = 0;

	for (int j = 0; j < d->nranks; j++)
		if (j != r && measured(d->pair[r * d->nranks + j]))
			v[k++] = d->pair[r * d->nranks + j];
	return sb_median(v, k);
}

/* Per rank the median of its pairs; the reference is their median. */
static double reference_median(struct sb_diag *d)
{
	size_t k = 0;

	for (int r = 0; r < d->nranks; r++) {
		d->rank_busbw[r] = rank_median(d, r);
		if (d->pair_count[r])
			d->scratch[k++] = d->rank_busbw[r];
	}
	return sb_median(d->scratch, k);
}

static void count_pairs(struct sb_diag *d)
{
	int n = d->nranks;

	d->nslow_pairs = 0;
	for (int i = 0; i < n; i++) {
		d->slow_count[i] = d->pair_count[i] = 0;
		for (int j = 0; j < n; j++) {
			double v = d->pair[i * n + j];
			bool slow = i != j && measured(v) &&
				    v < d->fraction * d->median;

			d->pair_slow[i * n + j] = slow;
			if (i == j || !measured(v))
				continue;
			d->pair_count[i]++;
			d->slow_count[i] += slow;
			d->nslow_pairs += slow && i < j;
		}
	}
}

/**
 * sb_diag_pairs - judge the pair matrix of @d.  The reference (d->median)
 * is the median over the ranks of each rank's median pair: a slow rank
 * drags down only its own row, so this holds while fewer than half of the
 * ranks are slow.  A pair is slow below fraction x reference; a rank is
 * suspect when its own median is (more than half its pairs slow).  With
 * fewer than 3 ranks the pairs cannot tell which end is slow: none is
 * suspect.  Returns 0, or -1 when @d has no measured pair.
 */
int sb_diag_pairs(struct sb_diag *d)
{
	int n = d->nranks;

	d->median = 0;
	count_pairs(d); /* the measured counts; slow ones again below */
	d->median = reference_median(d);
	count_pairs(d);
	for (int i = 0; i < n; i++)
		d->rank_suspect[i] = n >= 3 && d->pair_count[i] &&
				     d->rank_busbw[i] < d->fraction * d->median;
	return d->median > 0 ? 0 : -1;
}

/* Which half is slow: 0, 1, or -1 for neither. */
static int slow_half(const double bw[2], double fraction)
{
	if (bw[0] < fraction * bw[1])
		return 0;
	if (bw[1] < fraction * bw[0])
		return 1;
	return -1;
}

/**
 * sb_bisect_run - halve the ranks [0, @nranks) while one half's busbw is
 * below @fraction x the other's, down to 2 or 3 ranks (a collective needs
 * two).  The end is out->lo..out->hi: the slow part; none (lo == hi) when
 * the first halving finds neither half slow or @nranks < 4; the whole
 * current part when a later halving finds neither (the fault sits across
 * its halves).  Returns 0, or -1 when @measure fails.
 */
int sb_bisect_run(int nranks, double fraction, sb_bisect_measure_fn measure,
		  void *arg, struct sb_bisect *out)
{
	int lo = 0, hi = nranks;

	memset(out, 0, sizeof(*out));
	while (hi - lo >= 4 && out->nsteps < SB_DIAG_MAX_STEPS) {
		struct sb_bisect_step *s = &out->steps[out->nsteps++];

		s->lo = lo;
		s->hi = hi;
		s->mid = lo + (hi - lo) / 2;
		if (measure(lo, s->mid, hi, s->busbw, arg))
			return -1;
		s->chosen = slow_half(s->busbw, fraction);
		if (s->chosen < 0) {
			if (out->nsteps == 1)
				lo = hi = 0;
			break;
		}
		if (s->chosen)
			lo = s->mid;
		else
			hi = s->mid;
	}
	if (nranks < 4)
		lo = hi = 0;
	out->lo = lo;
	out->hi = hi;
	return 0;
}

static int count_true(const bool *v, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += v[i];
	return k;
}

/**
 * sb_diag_limit - the most nodes a run may name: max(1, floor(max_permille
 * x nnodes / 1000)), in integers.
 */
long long sb_diag_limit(const struct sb_diag *d)
{
	long long limit = (long long)d->max_permille * d->nnodes / 1000;

	return limit < 1 ? 1 : limit;
}

/**
 * sb_diag_decide - per node: suspect by pairwise, in the bisection's end,
 * confirmed by both; then the verdict.  More suspect nodes (by pairwise)
 * or confirmed ones than the limit trips the breaker: SHARED, and none
 * stays confirmed.  The limit is max(1, floor(max_permille x nodes /
 * 1000)), in integers: one node may always be named, so a run of 2 or 3
 * nodes can name its one bad node (before, 0.25 x 3 = 0.75 refused it),
 * and 0.58 x 50 is 29 (in doubles 28.999999999999996).  How many nodes
 * may then be drained is lib/drain's cap (sn_drain_cap.h).  Call after sb_diag_pairs() and with
 * d->bisect filled.
 */
enum sb_diag_verdict sb_diag_decide(struct sb_diag *d)
{
	int m = d->nnodes;
	long long limit = sb_diag_limit(d);

	memset(d->node_pairwise, 0, m * sizeof(bool));
	memset(d->node_bisect, 0, m * sizeof(bool));
	for (int r = 0; r < d->nranks; r++)
		if (d->rank_suspect[r])
			d->node_pairwise[d->node_of[r]] = true;
	for (int r = d->bisect.lo; r < d->bisect.hi; r++)
		d->node_bisect[d->node_of[r]] = true;
	for (int k = 0; k < m; k++)
		d->node_confirmed[k] = d->node_pairwise[k] && d->node_bisect[k];
	d->nsuspect_nodes = count_true(d->node_pairwise, m);
	d->nconfirmed = count_true(d->node_confirmed, m);
	if (d->nsuspect_nodes > limit || d->nconfirmed > limit) {
		memset(d->node_confirmed, 0, m * sizeof(bool));
		d->nconfirmed = 0;
		d->verdict = SB_DIAG_SHARED;
	} else if (d->nconfirmed) {
		d->verdict = SB_DIAG_FOUND;
	} else if (d->nslow_pairs || d->nsuspect_nodes) {
		d->verdict = SB_DIAG_SLOW_PAIR;
	} else {
		d->verdict = SB_DIAG_CLEAN;
	}
	return d->verdict;
}

/**
 * sb_diag_alloc - the result arrays of @d for d->nranks ranks and
 * d->nnodes nodes (1..SB_DIAG_MAX_RANKS each).  Returns 0 or -1; free
 * with sb_diag_free().
 */
int sb_diag_alloc(struct sb_diag *d)
{
	size_t n = d->nranks, m = d->nnodes;

	if (d->nranks < 1 || d->nranks > SB_DIAG_MAX_RANKS || d->nnodes < 1 ||
	    d->nnodes > d->nranks)
		return -1;
	d->pair_slow = calloc(n * n, sizeof(bool));
	d->slow_count = calloc(n, sizeof(int));
	d->pair_count = calloc(n, sizeof(int));
	d->rank_suspect = calloc(n, sizeof(bool));
	d->rank_busbw = calloc(n, sizeof(double));
	d->scratch = calloc(n, sizeof(double));
	d->node_pairwise = calloc(m, sizeof(bool));
	d->node_bisect = calloc(m, sizeof(bool));
	d->node_confirmed = calloc(m, sizeof(bool));
	if (!d->pair_slow || !d->slow_count || !d->pair_count ||
	    !d->rank_suspect || !d->rank_busbw || !d->scratch ||
	    !d->node_pairwise || !d->node_bisect || !d->node_confirmed) {
		sb_diag_free(d);
		return -1;
	}
	return 0;
}

/** sb_diag_free - free what sb_diag_alloc() allocated. */
void sb_diag_free(struct sb_diag *d)
{
	free(d->pair_slow);
	free(d->slow_count);
	free(d->pair_count);
	free(d->rank_suspect);
	free(d->rank_busbw);
	free(d->scratch);
	free(d->node_pairwise);
	free(d->node_bisect);
	free(d->node_confirmed);
	d->pair_slow = NULL;
	d->rank_suspect = d->node_pairwise = d->node_bisect = NULL;
	d->node_confirmed = NULL;
	d->slow_count = d->pair_count = NULL;
	d->rank_busbw = d->scratch = NULL;
}

/** sb_diag_verdict_name - "clean", "slow-pair", "found", "shared". */
const char *sb_diag_verdict_name(enum sb_diag_verdict v)
{
	static const char *const names[] = {
		[SB_DIAG_CLEAN] = "clean",
		[SB_DIAG_SLOW_PAIR] = "slow-pair",
		[SB_DIAG_FOUND] = "found",
		[SB_DIAG_SHARED] = "shared",
	};

	return v <= SB_DIAG_SHARED ? names[v] : "?";
}

/* The node's suspect rank with the most slow pairs, or -1. */
static int worst_rank(const struct sb_diag *d, int node)
{
	int best = -1;

	for (int r = 0; r < d->nranks; r++)
		if (d->node_of[r] == node && d->rank_suspect[r] &&
		    (best < 0 || d->slow_count[r] > d->slow_count[best]))
			best = r;
	return best;
}

/* The bisection's last halving that chose a half, or NULL. */
static const struct sb_bisect_step *last_step(const struct sb_diag *d)
{
	for (int i = d->bisect.nsteps - 1; i >= 0; i--)
		if (d->bisect.steps[i].chosen >= 0)
			return &d->bisect.steps[i];
	return NULL;
}

/**
 * sb_diag_reason - the drain reason (without the tag) of confirmed node
 * @node, one line: its worst rank, its slow pairs with their median
 * against the whole median, and the bisection's last halving.  Returns 0,
 * or -1 when @node is not confirmed (buf "").
 */
int sb_diag_reason(const struct sb_diag *d, int node, char *buf, size_t size)
{
	const struct sb_bisect_step *s = last_step(d);
	int r = worst_rank(d, node);

	if (!size)
		return -1;
	buf[0] = '\0';
	if (node < 0 || node >= d->nnodes || !d->node_confirmed[node] ||
	    r < 0 || !s)
		return -1;
	snprintf(
		buf, size,
		"BENCH_SLOW rank %d: %d/%d sendrecv pairs < %.2f x median %.3g GB/s (its median %.3g), allreduce halves %.3g vs %.3g GB/s",
		r, d->slow_count[r], d->pair_count[r], d->fraction, d->median,
		d->rank_busbw[r], s->busbw[s->chosen], s->busbw[!s->chosen]);
	return 0;
}

/* Rank at position @pos of round @r's circle of @m slots. */
static int circle_rank(int m, int r, int pos)
{
	return pos ? 1 + (pos - 1 + r) % (m - 1) : 0;
}

/**
 * sb_round_partner - the pairwise test's schedule (the circle method):
 * in round @r (0 <= r < sb_rounds(@n)) every rank of @n meets one other,
 * and over the rounds every pair meets exactly once.  Returns @rank's
 * partner in round @r, or -1 when it sits this round out (odd @n).
 */
int sb_round_partner(int n, int r, int rank)
{
	int m = n + (n & 1), pos, other;

	if (n < 2 || rank < 0 || rank >= n || r < 0 || r >= m - 1)
		return -1;
	pos = rank ? ((rank - 1 - r) % (m - 1) + (m - 1)) % (m - 1) + 1 : 0;
	other = circle_rank(m, r, m - 1 - pos);
	return other < n ? other : -1;
}

/** sb_rounds - rounds of the pairwise test for @n ranks (n - 1, or n). */
int sb_rounds(int n)
{
	return n < 2 ? 0 : n + (n & 1) - 1;
}
