/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_bench_args: supernode-bench's command line.  Its main.c is compiled
 * in unchanged (main renamed) so that parse_args(), parse_one(),
 * parse_ops() and the size/number parsers of sb_calc.c run exactly as in
 * the program; after a successful parse, resolve_threshold() computes the
 * busbw threshold against a fixed config with a bench: section (written
 * to tmpfs once), as the program does with --config.
 *
 * Input: the arguments, cut at NUL bytes (at most 32); argv[0] is
 * "supernode-bench".
 * Properties: a parse that succeeds leaves 4 <= min_bytes <= max_bytes,
 * 1 <= ngpus <= 64, 2 <= factor <= 1024 and a known backend.
 */
#define main sb_bench_main
#include "../../contrib/supernode-bench/main.c"
#undef main

#include "fuzz.h"

#define MAX_ARGS 32

static char fz_cfg[PATH_MAX];

static void setup(void)
{
	static const char yaml[] =
		"supernodes:\n  - {name: sn01, nodes: \"a[1-2]\"}\n"
		"bench: {rated_busbw_gbps: 450, min_fraction: 0.8}\n";

	fz_path(fz_cfg, sizeof(fz_cfg), "supernode.yaml");
	fz_write(fz_cfg, yaml, strlen(yaml));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2];
	const char *backend = NULL;
	struct sb_opts o;
	size_t n;
	char *copy;
	int rc;

	if (!fz_cfg[0])
		setup();
	argv[0] = "supernode-bench";
	copy = fz_split(data, size, argv + 1, MAX_ARGS, &n);
	if (!size)
		n = 0;
	argv[n + 1] = NULL;
	memset(&thr, 0, sizeof(thr));
	optind = 0; /* glibc: start over, forget the last argv */
	rc = parse_args((int)n + 1, argv, &o, &backend);
	if (!rc) {
		FZ_ASSERT(o.min_bytes >= 4 && o.min_bytes <= o.max_bytes);
		FZ_ASSERT(o.ngpus >= 1 && o.ngpus <= 64);
		FZ_ASSERT(o.factor >= 2 && o.factor <= 1024);
		FZ_ASSERT(!strcmp(backend, "mpi") || !strcmp(backend, "nccl"));
		thr.config = fz_cfg;
		rc = resolve_threshold(&o);
		FZ_ASSERT(rc == 0);
		FZ_ASSERT(o.min_busbw > 0);
	}
	free(copy);
	return 0;
}
