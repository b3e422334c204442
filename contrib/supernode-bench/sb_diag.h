/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sb_diag.h: --diagnose, the pure decisions (sb_diagnose.c) over a
 * matrix of pair bandwidths and a bisection, and their writers.  The
 * measuring side is sb_diag_run.c.
 *
 * The reference is the median over the ranks of each rank's median pair
 * busbw.  A pair is slow below fraction x the reference; a rank is
 * suspect when its own median is (more than half of its pairs slow).
 * The bisection halves the suspect set while one half's busbw is below
 * fraction x the other's.  A node is confirmed when both tests, which
 * measure different things (sendrecv between two ranks, a collective on
 * halves), name one of its ranks.  When more than max_permille of the
 * nodes are suspect, the fault is probably shared (a switch, the fabric):
 * the verdict says so and nothing is drained.
 */
#ifndef SB_DIAG_H
#define SB_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Ranks --diagnose takes: n-1 rounds of n/2 pairs, n*n doubles. */
#define SB_DIAG_MAX_RANKS 1024
/* A node name, bytes with the NUL (Slurm's are shorter). */
#define SB_DIAG_NAME_SIZE 64
/* Bisection steps kept: log2(SB_DIAG_MAX_RANKS) + 1. */
#define SB_DIAG_MAX_STEPS 11

enum sb_diag_verdict {
	SB_DIAG_CLEAN,	   /* no pair and no node below the fraction */
	SB_DIAG_SLOW_PAIR, /* slow pairs (links), no node named by both */
	SB_DIAG_FOUND,	   /* nodes confirmed by both tests */
	SB_DIAG_SHARED, /* more than max_permille of the nodes: shared fault */
};

/** One halving: busbw of each half (GB/s), ranks [lo, mid) and [mid, hi). */
struct sb_bisect_step {
	int lo, mid, hi; /* positions in the bisection's rank order */
	double busbw[2]; /* the two halves */
	int chosen;	 /* 0 or 1: the slow half; -1: neither, stop */
};

/** The bisection's trace and its final suspect ranks. */
struct sb_bisect {
	struct sb_bisect_step steps[SB_DIAG_MAX_STEPS];
	int nsteps;
	int lo, hi; /* the final suspect ranks [lo, hi); hi == lo: none */
};

/*
 * Measure the collective on the halves [lo, mid) and [mid, hi) of the
 * ranks at once; out[0], out[1] in GB/s.  Called the same way on every
 * rank (MPI) or on synthetic data (tests).  Returns 0 or -1.
 */
typedef int (*sb_bisect_measure_fn)(int lo, int mid, int hi, double out[2],
				    void *arg);

/** Everything --diagnose found; arrays owned by the caller. */
struct sb_diag {
	int nranks;
	int nnodes;
	const double *pair; /* nranks x nranks busbw (GB/s), symmetric;
			     * the diagonal and NAN are not measured */
	const int *node_of; /* rank -> node index */
	const char (*names)[SB_DIAG_NAME_SIZE]; /* node index -> name */
	double fraction;       /* slow below fraction x median (0 < f < 1) */
	unsigned max_permille; /* breaker: at most max(1, floor(permille x
				* nnodes / 1000)) nodes (integers) */
	/* results */
	double median;	     /* the reference: median of rank_busbw, GB/s */
	double *rank_busbw;  /* per rank: the median of its pairs, GB/s */
	double *scratch;     /* nranks doubles */
	bool *pair_slow;     /* nranks x nranks */
	int *slow_count;     /* per rank: its slow pairs */
	int *pair_count;     /* per rank: its measured pairs */
	bool *rank_suspect;  /* pairwise: rank_busbw < fraction x median */
	bool *node_pairwise; /* per node: a rank suspect by pairwise */
	bool *node_bisect;   /* per node: a rank in the bisection's end */
	bool *node_confirmed;
	int nslow_pairs, nsuspect_nodes, nconfirmed;
	struct sb_bisect bisect;
	enum sb_diag_verdict verdict;
};

double sb_median(const double *v, size_t n);
int sb_round_partner(int n, int r, int rank);
int sb_rounds(int n);
int sb_diag_pairs(struct sb_diag *d);
int sb_bisect_run(int nranks, double fraction, sb_bisect_measure_fn measure,
		  void *arg, struct sb_bisect *out);
long long sb_diag_limit(const struct sb_diag *d);
enum sb_diag_verdict sb_diag_decide(struct sb_diag *d);
int sb_diag_alloc(struct sb_diag *d);
void sb_diag_free(struct sb_diag *d);
const char *sb_diag_verdict_name(enum sb_diag_verdict v);
void sb_diag_name_clean(const char *in, char out[SB_DIAG_NAME_SIZE]);
int sb_diag_reason(const struct sb_diag *d, int node, char *buf, size_t size);
void sb_diag_write_table(FILE *f, const struct sb_diag *d, size_t bytes);
int sb_diag_write_json(FILE *f, const struct sb_diag *d, size_t bytes);

#endif /* SB_DIAG_H */
