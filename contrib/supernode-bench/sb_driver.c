// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_driver.c: the measuring loop, common to the backends: per size,
 * out-of-place then in-place: warm-up, timed iterations, data check.
 */
#include <stdlib.h>
#include <time.h>

#include "sb_backend.h"

/** sb_now_us - a monotonic clock in µs. */
double sb_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/**
 * sb_input_layout - where rank @rank's input pattern lives: in the send
 * buffer (out of place) or the one buffer (in place), from float @off,
 * @len floats.  In-place allgather keeps its block at rank*block.
 */
void sb_input_layout(enum sb_op op, bool inplace, int rank,
		     const struct sb_counts *c, size_t *off, size_t *len)
{
	*off = 0;
	*len = c->send;
	if (inplace && op == SB_ALLGATHER)
		*off = (size_t)rank * c->block;
}

/** sb_nsizes - how many sizes the sweep -b..-e by -f holds. */
size_t sb_nsizes(const struct sb_opts *o)
{
	size_t n = 0;

	for (size_t s = o->min_bytes; s <= o->max_bytes; s *= o->factor) {
		n++;
		if (s > o->max_bytes / o->factor)
			break;
	}
	return n;
}

/* Time one placement: mean µs per operation over the group's processes. */
static int time_one(struct sb_backend *b, const struct sb_opts *o,
		    enum sb_op op, const struct sb_counts *c, bool inplace,
		    double *us)
{
	double t0, t;

	if (o->warmup && b->run(b, op, c, inplace, o->warmup))
		return -1;
	if (b->ctl->barrier(b->ctl))
		return -1;
	t0 = sb_now_us();
	if (b->run(b, op, c, inplace, o->iters))
		return -1;
	t = (sb_now_us() - t0) / o->iters;
	if (b->ctl->sum(b->ctl, &t, 1))
		return -1;
	*us = t / b->ctl->nprocs;
	return 0;
}

/* Check one placement: wrong elements summed over the group. */
static int check_one(struct sb_backend *b, enum sb_op op,
		     const struct sb_counts *c, bool inplace, int64_t *wrong)
{
	double w;

	if (b->fill(b, op, c, inplace) || b->run(b, op, c, inplace, 1))
		return -1;
	w = (double)b->check(b, op, c, inplace);
	if (b->ctl->sum(b->ctl, &w, 1))
		return -1;
	*wrong = (int64_t)w;
	return 0;
}

static int measure_row(struct sb_backend *b, const struct sb_opts *o,
		       enum sb_op op, size_t bytes, struct sb_row *row)
{
	struct sb_counts c;

	row->bytes = bytes;
	row->count = bytes / sizeof(float);
	if (sb_counts(op, bytes, b->nranks, &c))
		return 0; /* too small for this many ranks */
	row->bytes = c.bytes;
	row->count = c.count;
	for (int p = 0; p < 2; p++) {
		bool inplace = p;

		row->wrong[p] = -1;
		if (!b->supports(b, op, inplace))
			continue;
		if (b->fill(b, op, &c, inplace) ||
		    time_one(b, o, op, &c, inplace, &row->time_us[p]))
			return -1;
		if (o->check && check_one(b, op, &c, inplace, &row->wrong[p]))
			return -1;
		row->algbw[p] = sb_algbw(c.bytes, row->time_us[p]);
		row->busbw[p] =
			sb_busbw(op, c.bytes, row->time_us[p], b->nranks);
		row->ran[p] = true;
	}
	return 0;
}

/**
 * sb_measure - the size sweep of @op on backend @b; rows printed as they
 * come when @print.  Fills @out (rows allocated).  Returns 0 or -1.
 */
int sb_measure(struct sb_backend *b, const struct sb_opts *o, enum sb_op op,
	       const char *group, bool print, struct sb_result *out)
{
	size_t n = sb_nsizes(o), s = o->min_bytes;

	out->op = op;
	out->group = group;
	out->nranks = b->nranks;
	out->nrows = n;
	out->rows = calloc(n, sizeof(*out->rows));
	if (!out->rows)
		return -1;
	if (print) {
		printf("# Collective test starting: %s (%s, group %s, %d ranks)\n",
		       sb_op_name(op), sb_op_perf_name(op), group, b->nranks);
		sb_write_table_header(stdout, op);
	}
	for (size_t i = 0; i < n; i++, s *= o->factor) {
		if (measure_row(b, o, op, s, &out->rows[i]))
			return -1;
		if (print) {
			sb_write_row(stdout, op, &out->rows[i]);
			fflush(stdout);
		}
	}
	if (print) {
		sb_write_footer(stdout, out, o->min_busbw);
		printf("#\n");
	}
	return 0;
}
