// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_pattern.c: the data pattern of sb_calc.c as runs (struct sb_seg), the
 * form in which the GPU kernels of sb_cuda.c fill and check it: each run
 * is a 31-entry table and the pattern index of its first float, so one
 * fill kernel and one check kernel serve every operation.  The host
 * versions here are the reference the unit tests hold the plans to.
 */
#include "sb.h"

/**
 * sb_seg_copy - @s is rank @src's data: floats @start..@start+@len of the
 * buffer hold sb_value(@src, @off + i).
 */
void sb_seg_copy(struct sb_seg *s, int src, size_t start, size_t len,
		 size_t off)
{
	s->start = start;
	s->len = len;
	s->off = off;
	for (size_t j = 0; j < SB_PAT; j++)
		s->tab[j] = sb_value(src, j);
}

/**
 * sb_seg_sum - @s is a reduction over @nranks ranks: floats @start.. hold
 * the sum over the ranks of sb_value(r, @off + i).
 */
void sb_seg_sum(struct sb_seg *s, int nranks, size_t start, size_t len,
		size_t off)
{
	s->start = start;
	s->len = len;
	s->off = off;
	sb_sum_table(nranks, s->tab);
}

/**
 * sb_check_plan - the runs that rank @rank's result of @op must hold, the
 * same judgement as sb_check() over c->recv floats from the result's
 * start (sb_result_location()).  At most @max runs go to @segs (nranks
 * for allgather and alltoall, else 1).  Returns the number of runs, or 0
 * when @max is too small or @op unknown.
 */
size_t sb_check_plan(enum sb_op op, int rank, int nranks,
		     const struct sb_counts *c, struct sb_seg *segs, size_t max)
{
	size_t need = op == SB_ALLGATHER || op == SB_ALLTOALL ? nranks : 1;

	if (max < need || nranks < 1 || op >= SB_NOPS)
		return 0;
	switch (op) {
	case SB_ALLREDUCE:
		sb_seg_sum(segs, nranks, 0, c->recv, 0);
		break;
	case SB_REDUCESCATTER:
		sb_seg_sum(segs, nranks, 0, c->recv, (size_t)rank * c->block);
		break;
	case SB_ALLGATHER:
	case SB_ALLTOALL:
		for (int p = 0; p < nranks; p++)
			sb_seg_copy(&segs[p], p, (size_t)p * c->block, c->block,
				    op == SB_ALLTOALL ?
					    (size_t)rank * c->block :
					    0);
		break;
	case SB_BROADCAST:
		sb_seg_copy(segs, 0, 0, c->recv, 0);
		break;
	default: /* SB_SENDRECV */
		sb_seg_copy(segs, (rank + nranks - 1) % nranks, 0, c->recv, 0);
		break;
	}
	return need;
}

/** sb_seg_fill - write run @s into @buf (the host version of the kernel). */
void sb_seg_fill(const struct sb_seg *s, float *buf)
{
	size_t k = s->off % SB_PAT;

	for (size_t i = 0; i < s->len; i++) {
		buf[s->start + i] = s->tab[k];
		if (++k == SB_PAT)
			k = 0;
	}
}

/**
 * sb_seg_check - floats of @buf in run @s that differ from it (a NaN
 * always differs), as the check kernel counts them.
 */
int64_t sb_seg_check(const struct sb_seg *s, const float *buf)
{
	size_t k = s->off % SB_PAT;
	int64_t wrong = 0;

	for (size_t i = 0; i < s->len; i++) {
		wrong += buf[s->start + i] != s->tab[k];
		if (++k == SB_PAT)
			k = 0;
	}
	return wrong;
}
