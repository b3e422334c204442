// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_calc.c: the pure part of supernode-bench: operation names, argument
 * parsing, buffer sizes and bandwidths as nccl-tests defines them, and the
 * data pattern with its expected results.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb.h"

static const char *const op_names[SB_NOPS] = {
	[SB_ALLREDUCE] = "allreduce",	      [SB_ALLGATHER] = "allgather",
	[SB_REDUCESCATTER] = "reducescatter", [SB_ALLTOALL] = "alltoall",
	[SB_BROADCAST] = "broadcast",	      [SB_SENDRECV] = "sendrecv",
};

static const char *const perf_names[SB_NOPS] = {
	[SB_ALLREDUCE] = "all_reduce_perf",
	[SB_ALLGATHER] = "all_gather_perf",
	[SB_REDUCESCATTER] = "reduce_scatter_perf",
	[SB_ALLTOALL] = "alltoall_perf",
	[SB_BROADCAST] = "broadcast_perf",
	[SB_SENDRECV] = "sendrecv_perf",
};

/** sb_op_name - short name of @op ("allreduce", ...). */
const char *sb_op_name(enum sb_op op)
{
	return op < SB_NOPS ? op_names[op] : "?";
}

/** sb_op_perf_name - the nccl-tests program that measures the same thing. */
const char *sb_op_perf_name(enum sb_op op)
{
	return op < SB_NOPS ? perf_names[op] : "?";
}

/** sb_op_parse - @s is an operation name; 0 and *@op set, or -1. */
int sb_op_parse(const char *s, enum sb_op *op)
{
	for (int i = 0; i < SB_NOPS; i++) {
		if (!strcmp(s, op_names[i])) {
			*op = i;
			return 0;
		}
	}
	return -1;
}

/**
 * sb_parse_size - a size as nccl-tests' -b/-e take it: decimal digits and
 * an optional K, M, G or T (powers of 1024).  Nothing else may follow.
 * Returns 0 and *@bytes, or -1 (empty, junk, zero, overflow).
 */
int sb_parse_size(const char *s, size_t *bytes)
{
	unsigned long long v, mult = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'T':
		mult <<= 10; /* fall through */
	case 'G':
		mult <<= 10; /* fall through */
	case 'M':
		mult <<= 10; /* fall through */
	case 'K':
		mult <<= 10;
		end++;
		break;
	case '\0':
		break;
	default:
		return -1;
	}
	if (*end || v == 0 || v > SIZE_MAX / mult)
		return -1;
	*bytes = v * mult;
	return 0;
}

/**
 * sb_size_text - @bytes as -b and -e take it: with the largest of T, G, M
 * or K that divides it exactly ("32M", "1536K", "1000"), into @buf.
 */
void sb_size_text(size_t bytes, char *buf, size_t size)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%zu", bytes);
	else
		snprintf(buf, size, "%zu%c", bytes, units[u]);
}

/** sb_parse_uint - a decimal integer in [@min, @max], nothing after it. */
int sb_parse_uint(const char *s, long min, long max, long *val)
{
	char *end;
	long v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*val = v;
	return 0;
}

int sb_parse_permille(const char *s, unsigned *permille)
{
	unsigned v = 0, digits = 0;

	if (!s)
		return -1;
	if (s[0] == '0')
		s++;
	if (*s++ != '.')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (++digits > 3)
			return -1;
		v = v * 10 + (unsigned)(*s - '0');
	}
	if (*s || !digits)
		return -1;
	while (digits++ < 3)
		v *= 10;
	if (v < 1 || v > 999)
		return -1;
	*permille = v;
	return 0;
}

/** sb_parse_double - a finite number >= @min, nothing after it. */
int sb_parse_double(const char *s, double min, double *val)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min)
		return -1;
	*val = v;
	return 0;
}

/**
 * sb_bus_factor - busbw / algbw for @op on @nranks ranks (nccl-tests):
 * allreduce 2(n-1)/n; allgather, reduce-scatter, alltoall (n-1)/n;
 * broadcast and sendrecv 1.
 */
double sb_bus_factor(enum sb_op op, int nranks)
{
	double n = nranks;

	if (nranks < 1)
		return 0;
	switch (op) {
	case SB_ALLREDUCE:
		return 2 * (n - 1) / n;
	case SB_ALLGATHER:
	case SB_REDUCESCATTER:
	case SB_ALLTOALL:
		return (n - 1) / n;
	default:
		return 1;
	}
}

/** sb_algbw - algorithm bandwidth in GB/s: @bytes moved in @time_us µs. */
double sb_algbw(size_t bytes, double time_us)
{
	if (time_us <= 0)
		return 0;
	return (double)bytes / 1e3 / time_us; /* bytes/µs / 1e3 = GB/s */
}

/** sb_busbw - bus bandwidth in GB/s (algbw times sb_bus_factor()). */
double sb_busbw(enum sb_op op, size_t bytes, double time_us, int nranks)
{
	return sb_algbw(bytes, time_us) * sb_bus_factor(op, nranks);
}

/**
 * sb_counts - buffer sizes of one run of @op at @bytes on @nranks ranks,
 * in floats, rounded as nccl-tests does (per-rank blocks to 16 bytes).
 * Returns -1 when @bytes is too small to give every rank an element.
 */
int sb_counts(enum sb_op op, size_t bytes, int nranks, struct sb_counts *c)
{
	size_t count = bytes / sizeof(float);
	size_t block;

	memset(c, 0, sizeof(*c));
	if (nranks < 1 || count == 0)
		return -1;
	switch (op) {
	case SB_ALLGATHER:
	case SB_REDUCESCATTER:
	case SB_ALLTOALL:
		block = (count / nranks) & ~(size_t)3;
		if (block == 0)
			return -1;
		c->block = block;
		c->count = block * nranks;
		c->send = op == SB_ALLGATHER ? block : c->count;
		c->recv = op == SB_REDUCESCATTER ? block : c->count;
		break;
	default:
		c->block = c->count = c->send = c->recv = count;
		break;
	}
	c->bytes = c->count * sizeof(float);
	return 0;
}

/*
 * The pattern: rank r's element i is ((7 i + 13 r) mod 31) + 1, a small
 * integer, so every sum over up to 500000 ranks is exact in a float
 * (SB_PAT, 31, is in sb.h).
 */

/** sb_value - rank @rank's element @i of the pattern. */
float sb_value(int rank, size_t i)
{
	return (float)((7 * (i % SB_PAT) + 13 * (size_t)rank) % SB_PAT + 1);
}

/** sb_fill - @buf[k] = sb_value(@rank, @offset + k) for k < @n. */
void sb_fill(float *buf, size_t n, int rank, size_t offset)
{
	size_t k = (7 * (offset % SB_PAT) + 13 * (size_t)rank) % SB_PAT;

	for (size_t i = 0; i < n; i++) {
		buf[i] = (float)(k + 1);
		k += 7;
		if (k >= SB_PAT)
			k -= SB_PAT;
	}
}

/** sb_sum_table - @t[j] = the sum over @nranks ranks of sb_value(r, j). */
void sb_sum_table(int nranks, float t[SB_PAT])
{
	for (size_t i = 0; i < SB_PAT; i++) {
		double s = 0;

		for (int r = 0; r < nranks; r++)
			s += sb_value(r, i);
		t[i] = (float)s;
	}
}

/** sb_expect - the expected result element @i on @rank (slow; tests). */
float sb_expect(enum sb_op op, int rank, int nranks, size_t i,
		const struct sb_counts *c)
{
	float t[SB_PAT];

	switch (op) {
	case SB_ALLREDUCE:
		sb_sum_table(nranks, t);
		return t[i % SB_PAT];
	case SB_REDUCESCATTER:
		sb_sum_table(nranks, t);
		return t[(rank * c->block + i) % SB_PAT];
	case SB_ALLGATHER:
		return sb_value(i / c->block, i % c->block);
	case SB_ALLTOALL:
		return sb_value(i / c->block, rank * c->block + i % c->block);
	case SB_BROADCAST:
		return sb_value(0, i);
	case SB_SENDRECV:
		return sb_value((rank + nranks - 1) % nranks, i);
	default:
		return NAN;
	}
}

/* Wrong elements of a reduction result that starts at pattern index @off. */
static int64_t check_sum(const float *res, size_t n, int nranks, size_t off)
{
	float t[SB_PAT];
	size_t k = off % SB_PAT;
	int64_t wrong = 0;

	sb_sum_table(nranks, t);
	for (size_t i = 0; i < n; i++) {
		wrong += res[i] != t[k];
		if (++k == SB_PAT)
			k = 0;
	}
	return wrong;
}

/* Wrong elements among @n that should be rank @src's from @off on. */
static int64_t check_copy(const float *res, size_t n, int src, size_t off)
{
	size_t k = (7 * (off % SB_PAT) + 13 * (size_t)src) % SB_PAT;
	int64_t wrong = 0;

	for (size_t i = 0; i < n; i++) {
		wrong += res[i] != (float)(k + 1);
		k += 7;
		if (k >= SB_PAT)
			k -= SB_PAT;
	}
	return wrong;
}

/**
 * sb_check - wrong elements in the result @res (@n floats, the length
 * sb_counts() gives for the result) of @op on @rank.
 */
int64_t sb_check(enum sb_op op, const float *res, size_t n, int rank,
		 int nranks, const struct sb_counts *c)
{
	int64_t wrong = 0;

	switch (op) {
	case SB_ALLREDUCE:
		return check_sum(res, n, nranks, 0);
	case SB_REDUCESCATTER:
		return check_sum(res, n, nranks, (size_t)rank * c->block);
	case SB_ALLGATHER:
	case SB_ALLTOALL:
		for (int p = 0; p < nranks; p++) {
			size_t off =
				op == SB_ALLTOALL ? (size_t)rank * c->block : 0;

			wrong += check_copy(res + (size_t)p * c->block,
					    c->block, p, off);
		}
		return wrong;
	case SB_BROADCAST:
		return check_copy(res, n, 0, 0);
	case SB_SENDRECV:
		return check_copy(res, n, (rank + nranks - 1) % nranks, 0);
	default:
		return (int64_t)n;
	}
}

/**
 * sb_result_location - where the result starts, in floats from the start
 * of the receive buffer (out of place) or of the one buffer (in place).
 * In-place reduce-scatter leaves rank r's block at r*block in NCCL and at
 * 0 in MPI (@mpi_semantics).
 */
size_t sb_result_location(enum sb_op op, bool inplace, int rank,
			  const struct sb_counts *c, bool mpi_semantics)
{
	if (op == SB_REDUCESCATTER && inplace && !mpi_semantics)
		return (size_t)rank * c->block;
	return 0;
}

/** sb_row_busbw - the better of a row's out-of-place and in-place busbw. */
double sb_row_busbw(const struct sb_row *row)
{
	double b = 0;

	for (int p = 0; p < 2; p++)
		if (row->ran[p] && row->busbw[p] > b)
			b = row->busbw[p];
	return b;
}

/**
 * sb_avg_busbw - "Avg bus bandwidth" as nccl-tests prints it: the mean
 * busbw over every size and both placements that ran.
 */
double sb_avg_busbw(const struct sb_result *r)
{
	double sum = 0;
	int n = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		for (int p = 0; p < 2; p++) {
			if (!r->rows[i].ran[p])
				continue;
			sum += r->rows[i].busbw[p];
			n++;
		}
	}
	return n ? sum / n : 0;
}

/** sb_total_wrong - wrong elements over the whole sweep (unchecked: 0). */
int64_t sb_total_wrong(const struct sb_result *r)
{
	int64_t w = 0;

	for (size_t i = 0; i < r->nrows; i++)
		for (int p = 0; p < 2; p++)
			if (r->rows[i].ran[p] && r->rows[i].wrong[p] > 0)
				w += r->rows[i].wrong[p];
	return w;
}
