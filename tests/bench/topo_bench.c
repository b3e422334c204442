/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark (issue 9 item 3): the topology check on garbage XML against
 * the same check on a real hwloc XML of the same size, at 128 KiB,
 * 512 KiB, 1 MiB and 4 MiB.  Both must grow linearly with the size: the
 * ratio garbage / real stays flat from one size to the next, and the time
 * per MiB too.  (Before the fix, 1 MiB of "<object a>" tags took seconds
 * and a check timeout drained the node: the pre-check searched each tag's
 * attributes up to the end of the file.)
 *
 * The real XML is tests/unit/fixtures/hwloc/lassen-power9-4xV100-4xCX5.xml
 * (a real lstopo export, 88 KiB) with <info name="Pad" .../> lines added
 * to its Machine object up to the size: a valid topology hwloc loads, so
 * the baseline is the whole check (read, pre-check, hwloc parse, nearness).
 * Garbage, same size: "tags" is "<object a>" repeated (the old quadratic
 * case), "bytes" is pseudo-random bytes.
 *
 *   topo_bench [RUNS]     (median of RUNS after one warm-up, default 11)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks/sn_check_groups.h"
#include "config/sn_checkctx.h"
#include "config/sn_config.h"
#include "util/sn_file.h"

#define REAL SN_BENCH_FIXTURES "/hwloc/lassen-power9-4xV100-4xCX5.xml"
#define PAD_LINE "    <info name=\"Pad\" value=\"%0990d\"/>\n"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void write_or_die(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* The real XML padded to size bytes after the Machine's opening tag. */
static void make_real(const char *path, const char *xml, size_t len,
		      size_t size)
{
	const char *machine = strstr(xml, "<object type=\"Machine\"");
	const char *cut = machine ? strchr(machine, '\n') : NULL;
	char *buf = malloc(size + 1024), line[1100];
	size_t used, n = 0;

	if (!cut || !buf || len > size) {
		fprintf(stderr, "%s: cannot pad to %zu bytes\n", REAL, size);
		exit(1);
	}
	used = (size_t)(cut + 1 - xml);
	memcpy(buf, xml, used);
	while (used + (len - (size_t)(cut + 1 - xml)) + 1100 < size) {
		int w = snprintf(line, sizeof(line), PAD_LINE, (int)n++);

		memcpy(buf + used, line, (size_t)w);
		used += (size_t)w;
	}
	memcpy(buf + used, cut + 1, len - (size_t)(cut + 1 - xml));
	used += len - (size_t)(cut + 1 - xml);
	write_or_die(path, buf, used);
	free(buf);
}

static void make_tags(const char *path, size_t size)
{
	static const char tag[] = "<object a>";
	char *buf = malloc(size);

	for (size_t i = 0; i < size; i++)
		buf[i] = tag[i % (sizeof(tag) - 1)];
	write_or_die(path, buf, size);
	free(buf);
}

static void make_bytes(const char *path, size_t size)
{
	char *buf = malloc(size);
	unsigned long x = 88172645463325252ul;

	for (size_t i = 0; i < size; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (char)(x >> 24);
	}
	write_or_die(path, buf, size);
	free(buf);
}

/* Median time of the topology check over xml; *code gets its first code. */
static double time_check(const char *xml, int runs, char *code, size_t size)
{
	double *t = calloc((size_t)runs, sizeof(double)), med;
	char yaml[1024];
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	struct sn_error err;

	snprintf(yaml, sizeof(yaml),
		 "supernodes:\n  - {name: sn01, nodes: 'n[1-2]'}\n"
		 "paths:\n  hwloc_xml: %s\n"
		 "node:\n  accelerators: {vendor: nvidia, count: 4}\n"
		 "  topology:\n    nearness: numa\n    pairs:\n"
		 "      - {accelerator: 0, nic: mlx5_0}\n",
		 xml);
	cfg = sn_config_load_buffer("bench.yaml", yaml, strlen(yaml), &err);
	if (!cfg || sn_check_ctx_init(&ctx, cfg, "n1", &err)) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	for (int r = -1; r < runs; r++) { /* r = -1: warm-up, not counted */
		struct sn_results res;
		double t0 = now_ms();

		memset(&res, 0, sizeof(res));
		sn_check_topology(&ctx, &res);
		if (r >= 0)
			t[r] = now_ms() - t0;
		snprintf(code, size, "%s", res.count ? res.items[0].code : "-");
		sn_results_free(&res);
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp);
	med = t[runs / 2];
	free(t);
	sn_config_free(cfg);
	return med;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 128u << 10, 512u << 10, 1u << 20,
					4u << 20 };
	int runs = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 11;
	char dir[] = "/tmp/sn-topo-bench-XXXXXX", path[3][64];
	char code[3][32], why[SN_FILE_WHY_MAX];
	size_t len;
	char *xml = sn_file_load_why(REAL, 1u << 20, &len, why, sizeof(why));

	if (!xml || !mkdtemp(dir)) {
		fprintf(stderr, "%s: %s\n", REAL, xml ? "mkdtemp failed" : why);
		return 1;
	}
	snprintf(path[0], sizeof(path[0]), "%s/real.xml", dir);
	snprintf(path[1], sizeof(path[1]), "%s/tags.xml", dir);
	snprintf(path[2], sizeof(path[2]), "%s/bytes.xml", dir);
	printf("topology check, median of %d runs; real = %s padded to the size\n",
	       runs, REAL);
	printf("%8s %10s %10s %10s %12s %12s %12s %12s\n", "size", "real ms",
	       "tags ms", "bytes ms", "tags/real", "bytes/real", "real ms/MiB",
	       "tags ms/MiB");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		double t[3], mib = sizes[i] / 1048576.0;

		make_real(path[0], xml, len, sizes[i]);
		make_tags(path[1], sizes[i]);
		make_bytes(path[2], sizes[i]);
		for (int k = 0; k < 3; k++)
			t[k] = time_check(path[k], runs, code[k],
					  sizeof(code[k]));
		printf("%7zuK %10.2f %10.2f %10.2f %12.2f %12.2f %12.2f %12.2f\n",
		       sizes[i] >> 10, t[0], t[1], t[2], t[1] / t[0],
		       t[2] / t[0], t[0] / mib, t[1] / mib);
		if (i == 0)
			printf("         (results: real %s, tags %s, bytes %s)\n",
			       code[0], code[1], code[2]);
	}
	for (int k = 0; k < 3; k++)
		unlink(path[k]);
	rmdir(dir);
	free(xml);
	return 0;
}
