/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark: what job_submit spends on a --supernode submission with a
 * 0.5 MB --nodelist or --exclude (65536 host names of 8 bytes with their
 * commas), against a config of 3 supernodes of 2 nodes.  sn_placement_plan()
 * refuses such a list by its count before Slurm expands it; the baseline,
 * measured in the same run, is what the plan did before (issue 17, item 12):
 * sn_hostlist_expand() of the same list up to SN_HOSTLIST_MAX hosts.  For
 * each: best time of RUNS and the ratio to that baseline.  Exit status 1
 * if a refusal takes 10 ms or more, or a list is not refused.
 *
 *   hostlist_submit [RUNS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "placement/sn_placement.h"
#include "util/sn_hostlist.h"

#define LIMIT_MS 10.0

static const char yaml[] = "supernodes:\n"
			   "  - {name: sn01, nodes: 'sna[1-2]'}\n"
			   "  - {name: sn02, nodes: 'snb[1-2]'}\n"
			   "  - {name: sn03, nodes: 'snc[1-2]'}\n";

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* "n0000000,n0000001,...": 65536 names, 0.5 MB. */
static char *names_list(void)
{
	char *s = malloc(65536 * 9 + 1), *p = s;

	if (!s)
		exit(2);
	for (unsigned i = 0; i < 65536; i++)
		p += sprintf(p, "%sn%07u", i ? "," : "", i);
	return s;
}

/* Best of runs of the old path, in ms; -1 if refused. */
static double expand_ms(const char *expr, int runs)
{
	double best = -1;

	for (int r = 0; r < runs; r++) {
		struct sn_names names;
		struct sn_error err;
		double t0 = now_ms(), t;

		if (sn_hostlist_expand(expr, SN_HOSTLIST_MAX, &names, &err))
			return -1;
		t = now_ms() - t0;
		sn_names_free(&names);
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/* Best of runs of the plan's refusal, in ms; -1 if it was planned. */
static double refuse_ms(const struct sn_config *cfg,
			const struct sn_job_request *req, int runs)
{
	double best = -1;

	for (int r = 0; r < runs; r++) {
		struct sn_job_plan plan;
		struct sn_error err;
		double t0 = now_ms(), t;

		if (!sn_placement_plan(cfg, req, &plan, &err)) {
			free(plan.features);
			return -1;
		}
		t = now_ms() - t0;
		if (r == 0)
			printf("  refused: %.100s...\n", err.msg);
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 5;
	char *list = names_list();
	struct sn_job_request req = {
		.supernodes = 1,
		.min_nodes = SN_UNSET32,
		.max_nodes = SN_UNSET32,
		.shared = SN_UNSET16,
		.req_switch = SN_UNSET32,
		.num_tasks = SN_UNSET32,
		.ntasks_per_node = SN_UNSET16,
	};
	struct sn_error err;
	struct sn_config *cfg =
		sn_config_load_buffer("bench.yaml", yaml, strlen(yaml), &err);
	double base, nodelist, exclude;
	int rc = 0;

	if (!cfg) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	printf("list: 65536 names, %zu bytes\n", strlen(list));
	base = expand_ms(list, runs);
	req.req_nodes = list;
	nodelist = refuse_ms(cfg, &req, runs);
	req.req_nodes = NULL;
	req.exc_nodes = list;
	exclude = refuse_ms(cfg, &req, runs);
	printf("%-34s %10s %10s\n", "case", "best ms", "ratio");
	printf("%-34s %10.2f %10.4f   (baseline)\n",
	       "expand up to 65536 (before)", base, 1.0);
	printf("%-34s %10.2f %10.4f\n", "--nodelist refused", nodelist,
	       nodelist / base);
	printf("%-34s %10.2f %10.4f\n", "--exclude refused", exclude,
	       exclude / base);
	if (nodelist < 0 || exclude < 0 || nodelist >= LIMIT_MS ||
	    exclude >= LIMIT_MS)
		rc = 1;
	sn_config_free(cfg);
	free(list);
	return rc;
}
