// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_diag_report.c: --diagnose's table and JSON: the pairs below the
 * fraction of the median, the bisection's halvings, every node with the
 * tests that named it, and the verdict.  Node names are cleaned when
 * gathered (sb_diag_name_clean): no escaping is needed.
 */
#include <ctype.h>
#include <string.h>

#include "sb_diag.h"

/**
 * sb_diag_name_clean - @in as a node name for the writers and the drain
 * request: letters, digits, '.', '-' and '_' kept, any other byte '?',
 * cut to SB_DIAG_NAME_SIZE - 1 bytes; "" becomes "?".
 */
void sb_diag_name_clean(const char *in, char out[SB_DIAG_NAME_SIZE])
{
	size_t i = 0;

	for (; in && in[i] && i < SB_DIAG_NAME_SIZE - 1; i++) {
		unsigned char c = in[i];

		out[i] = isalnum(c) || c == '.' || c == '-' || c == '_' ? c :
									  '?';
	}
	out[i] = '\0';
	if (!i)
		strcpy(out, "?");
}

static void write_pairs(FILE *f, const struct sb_diag *d)
{
	int n = d->nranks;

	fprintf(f, "# %5s %-16s %5s %-16s %10s %9s  %s\n", "rank", "node",
		"peer", "peer node", "busbw", "x median", "test");
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (d->pair_slow[i * n + j])
				fprintf(f,
					"  %5d %-16s %5d %-16s %10.3f %9.2f  pairwise\n",
					i, d->names[d->node_of[i]], j,
					d->names[d->node_of[j]],
					d->pair[i * n + j],
					d->pair[i * n + j] / d->median);
}

static void write_steps(FILE *f, const struct sb_diag *d)
{
	for (int k = 0; k < d->bisect.nsteps; k++) {
		const struct sb_bisect_step *s = &d->bisect.steps[k];

		fprintf(f,
			"# bisection: ranks %d-%d: %d-%d %.3f GB/s | %d-%d %.3f GB/s -> %s\n",
			s->lo, s->hi - 1, s->lo, s->mid - 1, s->busbw[0],
			s->mid, s->hi - 1, s->busbw[1],
			s->chosen < 0 ? "neither half slow, stop" :
			s->chosen     ? "second half slow" :
					"first half slow");
	}
	if (d->bisect.hi > d->bisect.lo)
		fprintf(f, "# bisection ends at ranks %d-%d\n", d->bisect.lo,
			d->bisect.hi - 1);
	else
		fprintf(f, "# bisection names no rank\n");
}

/* The node's suspect ranks: " (rank 5: 7/7 pairs slow, its median 1.2)". */
static void write_ranks(FILE *f, const struct sb_diag *d, int node)
{
	for (int r = 0; r < d->nranks; r++)
		if (d->node_of[r] == node && d->rank_suspect[r])
			fprintf(f,
				" (rank %d: %d/%d pairs slow, its median %.3f GB/s)",
				r, d->slow_count[r], d->pair_count[r],
				d->rank_busbw[r]);
}

static void write_nodes(FILE *f, const struct sb_diag *d)
{
	for (int k = 0; k < d->nnodes; k++) {
		if (!d->node_pairwise[k] && !d->node_bisect[k])
			continue;
		fprintf(f, "# node %s:", d->names[k]);
		if (d->node_pairwise[k]) {
			fputs(" pairwise", f);
			write_ranks(f, d, k);
		}
		fprintf(f, "%s -> %s\n", d->node_bisect[k] ? " bisection" : "",
			d->node_confirmed[k] ? "CONFIRMED" :
			d->verdict == SB_DIAG_SHARED ?
					       "not drained (shared fault)" :
					       "not confirmed");
	}
}

/**
 * sb_diag_write_table - the human-readable report of @d for pairs of
 * @bytes bytes: header with the median and threshold, slow pairs, the
 * bisection, the nodes named, the verdict line.
 */
void sb_diag_write_table(FILE *f, const struct sb_diag *d, size_t bytes)
{
	fprintf(f,
		"# diagnose: sendrecv %zu B between every pair of %d ranks on %d nodes: median busbw %.3f GB/s, slow below %.2f x median = %.3f GB/s\n",
		bytes, d->nranks, d->nnodes, d->median, d->fraction,
		d->fraction * d->median);
	write_pairs(f, d);
	write_steps(f, d);
	write_nodes(f, d);
	switch (d->verdict) {
	case SB_DIAG_SHARED:
		fprintf(f,
			"# verdict: %d of %d nodes look slow (more than max(1, %u/1000 x %d) = %lld of them): probably a shared fault (switch), nothing drained\n",
			d->nsuspect_nodes, d->nnodes, d->max_permille,
			d->nnodes, sb_diag_limit(d));
		break;
	case SB_DIAG_FOUND:
		fprintf(f, "# verdict: %d node(s) confirmed by both tests\n",
			d->nconfirmed);
		break;
	case SB_DIAG_SLOW_PAIR:
		fprintf(f,
			"# verdict: %d slow pair(s), no node named by both tests\n",
			d->nslow_pairs);
		break;
	default:
		fprintf(f, "# verdict: clean\n");
	}
}

static void json_pairs(FILE *f, const struct sb_diag *d)
{
	int n = d->nranks;
	bool first = true;

	fputs("\"slow_pairs\": [", f);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			if (!d->pair_slow[i * n + j])
				continue;
			fprintf(f,
				"%s\n  {\"ranks\": [%d, %d], \"nodes\": [\"%s\", \"%s\"], \"busbw_gbps\": %.6g, \"x_median\": %.4g, \"test\": \"pairwise\"}",
				first ? "" : ",", i, j, d->names[d->node_of[i]],
				d->names[d->node_of[j]], d->pair[i * n + j],
				d->pair[i * n + j] / d->median);
			first = false;
		}
	fputs("],\n", f);
}

static void json_steps(FILE *f, const struct sb_diag *d)
{
	fputs("\"bisection\": {\"steps\": [", f);
	for (int k = 0; k < d->bisect.nsteps; k++) {
		const struct sb_bisect_step *s = &d->bisect.steps[k];

		fprintf(f,
			"%s\n  {\"ranks\": [%d, %d], \"halves\": [[%d, %d], [%d, %d]], \"busbw_gbps\": [%.6g, %.6g], \"slow_half\": %d}",
			k ? "," : "", s->lo, s->hi - 1, s->lo, s->mid - 1,
			s->mid, s->hi - 1, s->busbw[0], s->busbw[1], s->chosen);
	}
	fprintf(f, "], \"end\": [%d, %d]},\n", d->bisect.lo, d->bisect.hi - 1);
}

static void json_ranks(FILE *f, const struct sb_diag *d, int node)
{
	bool first = true;

	for (int r = 0; r < d->nranks; r++) {
		if (d->node_of[r] != node || !d->rank_suspect[r])
			continue;
		fprintf(f, "%s%d", first ? "" : ", ", r);
		first = false;
	}
}

static void json_nodes(FILE *f, const struct sb_diag *d)
{
	bool first = true;

	fputs("\"nodes\": [", f);
	for (int k = 0; k < d->nnodes; k++) {
		if (!d->node_pairwise[k] && !d->node_bisect[k])
			continue;
		fprintf(f, "%s\n  {\"node\": \"%s\", \"suspect_ranks\": [",
			first ? "" : ",", d->names[k]);
		json_ranks(f, d, k);
		fprintf(f,
			"], \"pairwise\": %s, \"bisection\": %s, \"confirmed\": %s}",
			d->node_pairwise[k] ? "true" : "false",
			d->node_bisect[k] ? "true" : "false",
			d->node_confirmed[k] ? "true" : "false");
		first = false;
	}
	fputs("],\n", f);
}

/**
 * sb_diag_write_json - @d as one JSON object: the median, threshold, the
 * slow pairs, the bisection, the nodes named and the verdict.  Returns 0,
 * or -1 on a write error.
 */
int sb_diag_write_json(FILE *f, const struct sb_diag *d, size_t bytes)
{
	fprintf(f,
		"{\"tool\": \"supernode-bench\", \"mode\": \"diagnose\", \"units\": {\"bandwidth\": \"GB/s (1e9 B/s)\"},\n"
		"\"pair_test\": \"sendrecv\", \"bytes\": %zu, \"ranks\": %d, \"nodes_total\": %d,\n"
		"\"median_busbw_gbps\": %.6g, \"fraction\": %.4g, \"max_fraction\": %.4g,\n",
		bytes, d->nranks, d->nnodes, d->median, d->fraction,
		d->max_permille / 1000.0);
	json_pairs(f, d);
	json_steps(f, d);
	json_nodes(f, d);
	fprintf(f, "\"verdict\": \"%s\"}\n", sb_diag_verdict_name(d->verdict));
	return ferror(f) ? -1 : 0;
}
