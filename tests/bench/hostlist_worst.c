/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark: hostlists of SN_HOSTLIST_MAX (65536) hosts through
 * sn_hostlist_expand(), in the shapes that make Slurm's hostlist hold one
 * range per host (many ranges: what slurm_hostlist_shift made quadratic),
 * against one range of the same number of hosts, n[00000-65535], measured
 * in the same run.  For each shape: best time of RUNS and the ratio to
 * that baseline.  Exit status 1 if a shape takes 1 s or more.
 *
 *   hostlist_worst [RUNS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/sn_hostlist.h"

#define LIMIT_MS 1000.0

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Best of runs, in ms; -1 if the list is refused. */
static double best_ms(const char *expr, int runs)
{
	double best = -1;

	for (int r = 0; r < runs; r++) {
		struct sn_names names;
		struct sn_error err;
		double t0 = now_ms(), t;

		if (sn_hostlist_expand(expr, SN_HOSTLIST_MAX, &names, &err)) {
			fprintf(stderr, "refused: %s\n", err.msg);
			return -1;
		}
		t = now_ms() - t0;
		sn_names_free(&names);
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/* "n[0,2,...]" (bracket) or "n0,n2,..." (comma list) of 65536 hosts. */
static char *singles(int bracket)
{
	char *s = malloc(65536 * 9 + 8), *p = s;

	if (!s)
		exit(2);
	p += sprintf(p, "%s", bracket ? "n[" : "");
	for (unsigned i = 0; i < 65536; i++)
		p += sprintf(p, "%s%s%u", i ? "," : "", bracket ? "" : "n",
			     2 * i);
	sprintf(p, "%s", bracket ? "]" : "");
	return s;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 5;
	char *bracket = singles(1), *comma = singles(0);
	const struct {
		const char *name, *expr;
	} shapes[] = {
		{ "n[0,2,...,131070]", bracket },
		{ "n0,n2,...,n131070", comma },
		{ "a[0-65535]b[3]", "a[0-65535]b[3]" },
		{ "a[0-16383]b[0-3]", "a[0-16383]b[0-3]" },
	};
	double base = best_ms("n[00000-65535]", runs);
	int rc = 0;

	printf("%-22s %10s %8s\n", "shape (65536 hosts)", "best ms", "ratio");
	printf("%-22s %10.1f %8.2f   (baseline)\n", "n[00000-65535]", base,
	       1.0);
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		double t = best_ms(shapes[i].expr, runs);

		printf("%-22s %10.1f %8.2f\n", shapes[i].name, t, t / base);
		if (t < 0 || t >= LIMIT_MS)
			rc = 1;
	}
	free(bracket);
	free(comma);
	return rc;
}
