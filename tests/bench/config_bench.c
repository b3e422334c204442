/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark: load a supernode.yaml of 1,000 supernodes x 72 nodes (72,000
 * nodes; switch method) and look nodes up.  Prints the load time, the
 * lookup time per node and the memory held, beside a baseline measured in
 * the same run: libyaml alone parsing the same file into a document.
 *
 *   config_bench [RUNS]
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <yaml.h>

#include "config/sn_config.h"

#define SUPERNODES 1000
#define SIZE 72

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char *yaml_make(size_t *len)
{
	size_t cap = 64 + SUPERNODES * 64, used = 0;
	char *buf = malloc(cap);

	used += (size_t)snprintf(buf + used, cap - used, "supernodes:\n");
	for (int i = 0; i < SUPERNODES; i++)
		used += (size_t)snprintf(
			buf + used, cap - used,
			"  - {name: rack%04d, nodes: \"r%04dn[01-%02d]\"}\n", i,
			i, SIZE);
	used += (size_t)snprintf(
		buf + used, cap - used,
		"placement: {method: switch, max_supernodes: 16}\n");
	*len = used;
	return buf;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

static double libyaml_only(const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_document_t d;
	double t0 = now_ms();

	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&p, &d))
		abort();
	yaml_document_delete(&d);
	yaml_parser_delete(&p);
	return now_ms() - t0;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 11;
	double *load = calloc((size_t)runs, sizeof(double));
	double *base = calloc((size_t)runs, sizeof(double));
	struct rusage before, after;

	(void)after;
	struct sn_config *cfg = NULL;
	struct sn_error err;
	size_t len, found = 0;
	char *buf = yaml_make(&len);
	char name[32];
	double t0, lookup_ns;

	for (int r = 0; r < runs; r++) {
		base[r] = libyaml_only(buf, len);
		t0 = now_ms();
		cfg = sn_config_load_buffer("bench.yaml", buf, len, &err);
		load[r] = now_ms() - t0;
		if (!cfg) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		if (r + 1 < runs)
			sn_config_free(cfg);
	}
	t0 = now_ms();
	for (int k = 0; k < 1000000; k++) {
		snprintf(name, sizeof(name), "r%04dn%02d", k % SUPERNODES,
			 1 + (k / SUPERNODES) % SIZE);
		found += sn_config_find_node(cfg, name) != NULL;
	}
	lookup_ns = (now_ms() - t0) * 1e6 / 1e6;
	getrusage(RUSAGE_SELF, &before);
	{
		size_t held = mallinfo2().uordblks;

		sn_config_free(cfg);
		held -= mallinfo2().uordblks;
		printf("heap held by the loaded config: %.1f MiB (%.0f bytes per node)\n",
		       held / 1048576.0, (double)held / (SUPERNODES * SIZE));
	}
	getrusage(RUSAGE_SELF, &after);
	printf("config: %d supernodes x %d nodes = %zu nodes, %zu bytes of YAML\n",
	       SUPERNODES, SIZE, (size_t)SUPERNODES * SIZE, len);
	printf("load (validate, expand hostlists, index)  median %8.2f ms over %d runs\n",
	       median(load, runs), runs);
	printf("libyaml alone (parse to a document)       median %8.2f ms  -> load = %.1f x libyaml\n",
	       median(base, runs), median(load, runs) / median(base, runs));
	printf("lookup of a node name: %.0f ns each (1,000,000 lookups, %zu found; includes formatting the name)\n",
	       lookup_ns, found);
	printf("max resident set size of this process: %ld MiB\n",
	       before.ru_maxrss / 1024);
	free(buf);
	free(load);
	free(base);
	return 0;
}
