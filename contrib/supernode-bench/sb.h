/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernode-bench: collective benchmark for a supernode (MPI and NCCL).
 *
 * Units everywhere: sizes in bytes, times in µs, bandwidths in GB/s with
 * 1 GB/s = 1e9 bytes/s, the definitions of nccl-tests (doc/PERFORMANCE.md).
 */
#ifndef SB_H
#define SB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SB_PREFIX "supernode-bench: "

/* The data pattern repeats every SB_PAT elements (sb_calc.c). */
#define SB_PAT 31

enum sb_op {
	SB_ALLREDUCE,
	SB_ALLGATHER,
	SB_REDUCESCATTER,
	SB_ALLTOALL,
	SB_BROADCAST,
	SB_SENDRECV,
	SB_NOPS
};

/** Element counts of one run of @op, as nccl-tests sizes them (float). */
struct sb_counts {
	size_t bytes; /* the "size (B)" column */
	size_t count; /* the "count (elements)" column */
	size_t send;  /* elements in the send buffer */
	size_t recv;  /* elements in the receive buffer */
	size_t block; /* per-rank block (allgather, reduce-scatter, alltoall) */
};

/** One row of the table: out-of-place [0] and in-place [1]. */
struct sb_row {
	size_t bytes;
	size_t count;
	bool ran[2];
	double time_us[2]; /* mean time per operation, µs */
	double algbw[2];   /* GB/s */
	double busbw[2];   /* GB/s */
	int64_t wrong[2];  /* wrong elements, summed over ranks; -1 unchecked */
};

/** The results of one operation over the size sweep, in one group. */
struct sb_result {
	enum sb_op op;
	const char *group; /* "all", "intra", "across" */
	int nranks;
	size_t nrows;
	struct sb_row *rows;
};

/* sb_calc.c: pure functions */
const char *sb_op_name(enum sb_op op);
const char *sb_op_perf_name(enum sb_op op);
int sb_op_parse(const char *s, enum sb_op *op);
int sb_parse_size(const char *s, size_t *bytes);
void sb_size_text(size_t bytes, char *buf, size_t size);
int sb_parse_uint(const char *s, long min, long max, long *val);
int sb_parse_double(const char *s, double min, double *val);
/*
 * sb_parse_permille - a fraction 0 < F < 1 written as a decimal ("0.25",
 * ".5", "0.333": at most three decimals) into parts per thousand (1-999),
 * without floating point.  Returns 0, or -1 for anything else.
 */
int sb_parse_permille(const char *s, unsigned *permille);
double sb_bus_factor(enum sb_op op, int nranks);
double sb_algbw(size_t bytes, double time_us);
double sb_busbw(enum sb_op op, size_t bytes, double time_us, int nranks);
int sb_counts(enum sb_op op, size_t bytes, int nranks, struct sb_counts *c);
float sb_value(int rank, size_t i);
void sb_fill(float *buf, size_t n, int rank, size_t offset);
void sb_sum_table(int nranks, float t[SB_PAT]);
float sb_expect(enum sb_op op, int rank, int nranks, size_t i,
		const struct sb_counts *c);
int64_t sb_check(enum sb_op op, const float *res, size_t n, int rank,
		 int nranks, const struct sb_counts *c);
size_t sb_result_location(enum sb_op op, bool inplace, int rank,
			  const struct sb_counts *c, bool mpi_semantics);
double sb_avg_busbw(const struct sb_result *r);
int64_t sb_total_wrong(const struct sb_result *r);
double sb_row_busbw(const struct sb_row *row);

/**
 * struct sb_seg - a run of floats that follows the pattern: element i
 * (0 <= i < len) of the run, float start + i of its buffer, is
 * tab[(off + i) % SB_PAT].  The fill and the check, on the host or on a
 * GPU (sb_cuda.c), are lists of these.
 */
struct sb_seg {
	size_t start; /* first float of the run, from the buffer's start */
	size_t len;   /* floats */
	size_t off;   /* pattern index of the first float */
	float tab[SB_PAT];
};

/* sb_pattern.c: the pattern as runs (pure) */
void sb_seg_copy(struct sb_seg *s, int src, size_t start, size_t len,
		 size_t off);
void sb_seg_sum(struct sb_seg *s, int nranks, size_t start, size_t len,
		size_t off);
size_t sb_check_plan(enum sb_op op, int rank, int nranks,
		     const struct sb_counts *c, struct sb_seg *segs,
		     size_t max);
void sb_seg_fill(const struct sb_seg *s, float *buf);
int64_t sb_seg_check(const struct sb_seg *s, const float *buf);

/* sb_report.c: writers */
void sb_fmt_float(double v, int width, char *out);
void sb_write_table_header(FILE *f, enum sb_op op);
void sb_write_row(FILE *f, enum sb_op op, const struct sb_row *row);
void sb_write_footer(FILE *f, const struct sb_result *r, double min_busbw);
int sb_write_json(FILE *f, const struct sb_result *res, size_t nres,
		  const char *backend, double min_busbw, bool pass);
int sb_write_svg(FILE *f, const struct sb_result *res, size_t nres,
		 const char *title);
void sb_write_groups(FILE *f, const struct sb_result *res, size_t nres);

#endif /* SB_H */
