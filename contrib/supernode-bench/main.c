// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * supernode-bench: collective bandwidth of a supernode, nccl-tests style.
 *
 *   srun --supernode=1 --mpi=pmix supernode-bench --backend mpi -b 1K -e 1M
 *   supernode-bench --backend nccl -g 2 -b 1M -e 8G -o allreduce
 *
 * Exit status: 0 pass, 1 fail (wrong elements, or busbw below the
 * threshold), 2 usage, 3 could not run.
 *
 * The busbw threshold: --min-busbw if given, else (built inside
 * slurm-supernode) bench.rated_busbw_gbps x (--min-fraction or
 * bench.min_fraction) from supernode.yaml, else none.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sb_backend.h"
#include "sb_out.h"
#include "sb_prom.h"
#include "sb_mode.h"

#ifdef SB_HAVE_CONFIG
#include "config/sn_config.h"
#endif

enum {
	EXIT_PASS,
	EXIT_FAILED,
	EXIT_USAGE,
	EXIT_ERROR
};

static void usage(FILE *f)
{
	fputs("usage: supernode-bench [--backend mpi|nccl] [-b SIZE] [-e SIZE] [-f FACTOR]\n"
	      "         [-w N] [-n N] [-c 0|1] [-o OP[,OP...]|all] [-g NGPUS]\n"
	      "         [--min-busbw GB/s] [--json FILE|-] [--plot FILE.svg]\n"
	      "         [--groups supernode] [--id-file PATH]\n"
	      "         [--config supernode.yaml] [--min-fraction F]\n"
	      "         [--prom FILE.prom] [--one-rank]\n"
	      "       supernode-bench --diagnose [--drain] [--slow-fraction F]\n"
	      "         [--max-drain-fraction F] [-e SIZE] [--json FILE]\n"
	      "       supernode-bench --duration T [--interval T] [--op-timeout T]\n"
	      "         [--soak-fraction F] [--mem-growth MIB] [--json FILE.jsonl]\n"
	      "         [--plot FILE.svg] (T: 90, 20s, 10m, 24h)\n"
	      "  SIZE: bytes with K, M, G or T (powers of 1024); OP: allreduce,\n"
	      "  allgather, reducescatter, alltoall, broadcast, sendrecv.\n"
	      "  Times in us, bandwidths in GB/s (1e9 B/s) as nccl-tests.\n"
	      "  Threshold for the busbw of the largest size: --min-busbw, else\n"
	      "  F (default bench.min_fraction, 0.8) x bench.rated_busbw_gbps of\n"
	      "  --config (default: next to $SLURM_CONF), else none.\n"
	      "  Exit: 0 pass, 1 fail (wrong elements or busbw of the largest\n"
	      "  size below the threshold), 2 usage, 3 could not run;\n"
	      "  --duration: 4 busbw drop, 5 memory growth, 6 hang;\n"
	      "  --diagnose: 1 slow pairs or nodes, 7 shared fault (breaker).\n",
	      f);
}

/* Where the busbw threshold comes from, for the summary lines. */
static struct {
	const char *config;  /* --config; NULL: the default path */
	double min_fraction; /* --min-fraction; 0: not given */
	char desc[1200];     /* "--min-busbw 100.00 GB/s", "0.80 x rated ..." */
	char note[1200];     /* why there is none; printed at the end */
} thr;

/* --diagnose and the soak (sb_mode.h). */
static struct sb_mode mode;

/* -b and -e as typed, for the message when -e is below -b; NULL: default. */
static const char *min_arg, *max_arg;

static int bad(const char *opt, const char *val)
{
	fprintf(stderr, SB_PREFIX "invalid %s '%s'\n", opt, val ? val : "");
	usage(stderr);
	return -1;
}

static int parse_ops(char *s, bool ops[SB_NOPS])
{
	char *save = NULL, *tok;

	memset(ops, 0, SB_NOPS * sizeof(*ops));
	if (!strcmp(s, "all")) {
		for (int i = 0; i < SB_NOPS; i++)
			ops[i] = true;
		return 0;
	}
	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		enum sb_op op;

		if (sb_op_parse(tok, &op))
			return -1;
		ops[op] = true;
	}
	return 0;
}

static const struct option longopts[] = {
	{ "backend", required_argument, NULL, 'B' },
	{ "minbytes", required_argument, NULL, 'b' },
	{ "maxbytes", required_argument, NULL, 'e' },
	{ "stepfactor", required_argument, NULL, 'f' },
	{ "warmup_iters", required_argument, NULL, 'w' },
	{ "iters", required_argument, NULL, 'n' },
	{ "check", required_argument, NULL, 'c' },
	{ "op", required_argument, NULL, 'o' },
	{ "ngpus", required_argument, NULL, 'g' },
	{ "min-busbw", required_argument, NULL, 'M' },
	{ "json", required_argument, NULL, 'J' },
	{ "plot", required_argument, NULL, 'P' },
	{ "groups", required_argument, NULL, 'G' },
	{ "id-file", required_argument, NULL, 'I' },
	{ "config", required_argument, NULL, 'C' },
	{ "min-fraction", required_argument, NULL, 'F' },
	{ "prom", required_argument, NULL, 'R' },
	{ "one-rank", no_argument, NULL, '1' },
	{ "help", no_argument, NULL, 'h' },
	SB_MODE_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

/* One option; 0, 1 for --help, -1 for an error (printed). */
static int parse_one(int c, char *arg, struct sb_opts *o, const char **backend)
{
	long v;

	switch (c) {
	case 'B':
		if (strcmp(arg, "mpi") && strcmp(arg, "nccl"))
			return bad("--backend", arg);
		*backend = arg;
		return 0;
	case 'b':
		min_arg = arg;
		return sb_parse_size(arg, &o->min_bytes) ? bad("-b", arg) : 0;
	case 'e':
		max_arg = arg;
		return sb_parse_size(arg, &o->max_bytes) ? bad("-e", arg) : 0;
	case 'f':
		if (sb_parse_uint(arg, 2, 1024, &o->factor))
			return bad("-f (2..1024)", arg);
		return 0;
	case 'w':
		return sb_parse_uint(arg, 0, 100000, &o->warmup) ?
			       bad("-w", arg) :
			       0;
	case 'n':
		return sb_parse_uint(arg, 1, 1000000, &o->iters) ?
			       bad("-n", arg) :
			       0;
	case 'c':
		if (sb_parse_uint(arg, 0, 1, &v))
			return bad("-c (0 or 1)", arg);
		o->check = v;
		return 0;
	case 'o':
		return parse_ops(arg, o->ops) ? bad("-o", arg) : 0;
	case 'g':
		if (sb_parse_uint(arg, 1, 64, &v))
			return bad("-g (1..64)", arg);
		o->ngpus = (int)v;
		return 0;
	case 'M':
		if (sb_parse_double(arg, 0, &o->min_busbw) || o->min_busbw <= 0)
			return bad("--min-busbw (GB/s > 0)", arg);
		return 0;
	case 'J':
		o->json = arg;
		o->quiet = !strcmp(arg, "-");
		return 0;
	case 'P':
		o->plot = arg;
		return 0;
	case 'G':
		if (strcmp(arg, "supernode"))
			return bad("--groups (supernode)", arg);
		o->groups = arg;
		return 0;
	case 'I':
		o->id_file = arg;
		return 0;
	case 'C':
		if (!*arg)
			return bad("--config", arg);
		thr.config = arg;
		return 0;
	case 'R':
		o->prom = arg;
		return 0;
	case '1':
		o->one_rank = true;
		return 0;
	case 'F':
		if (sb_parse_double(arg, 0, &thr.min_fraction) ||
		    thr.min_fraction <= 0 || thr.min_fraction > 1)
			return bad("--min-fraction (0 < F <= 1)", arg);
		return 0;
	case 'h':
		usage(stdout);
		return 1;
	default:
		if (sb_mode_parse(c, arg, &mode) == 0)
			return 0;
		usage(stderr);
		return -1;
	}
}

/* -e below -b: both values, as typed, or the default's in -b's form. */
static void size_below(const struct sb_opts *o)
{
	char b[32], e[32];

	sb_size_text(o->min_bytes, b, sizeof(b));
	sb_size_text(o->max_bytes, e, sizeof(e));
	fprintf(stderr, SB_PREFIX "-e %s is below -b %s%s\n",
		max_arg ? max_arg : e, min_arg ? min_arg : b,
		min_arg ? "" : " (the default; give -b too)");
}

static int parse_args(int argc, char **argv, struct sb_opts *o,
		      const char **backend)
{
	int c, rc;

	*o = (struct sb_opts){ .min_bytes = 32 << 20,
			       .max_bytes = 32 << 20,
			       .factor = 2,
			       .warmup = 1,
			       .iters = 20,
			       .check = true,
			       .ngpus = 1 };
	for (int i = 0; i < SB_NOPS; i++)
		o->ops[i] = true;
	*backend = "mpi";
	min_arg = max_arg = NULL; /* point into this argv only */
	sb_mode_defaults(&mode);
	mode.o = o;
	while ((c = getopt_long(argc, argv, "b:e:f:w:n:c:o:g:h", longopts,
				NULL)) != -1)
		if ((rc = parse_one(c, optarg, o, backend)))
			return rc;
	if (optind < argc) {
		fprintf(stderr, SB_PREFIX "unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	mode.config = thr.config;
	if (sb_mode_check(&mode, o, *backend))
		return -1;
	if (o->min_bytes > o->max_bytes) {
		size_below(o);
		return -1;
	}
	if (o->min_bytes < sizeof(float)) {
		fprintf(stderr,
			SB_PREFIX "-b must be at least 4 bytes (one float)\n");
		return -1;
	}
	if (o->min_busbw > 0 && thr.min_fraction > 0) {
		fprintf(stderr, SB_PREFIX
			"--min-busbw and --min-fraction exclude each other\n");
		return -1;
	}
	if (o->ngpus > 1 && strcmp(*backend, "nccl")) {
		fprintf(stderr, SB_PREFIX "-g needs --backend nccl\n");
		return -1;
	}
	/* MPI counts are int: 2^31-1 floats per message. */
	if (!strcmp(*backend, "mpi") &&
	    o->max_bytes / sizeof(float) > INT32_MAX) {
		fprintf(stderr,
			SB_PREFIX
			"-e %zu: the MPI backend takes messages up to %zu bytes\n",
			o->max_bytes, (size_t)INT32_MAX * sizeof(float));
		return -1;
	}
	return 0;
}

/*
 * Set o->min_busbw and thr.desc from --min-busbw or the bench: section.
 * Returns 0, or an exit status after printing why.
 */
static int resolve_threshold(struct sb_opts *o)
{
#ifdef SB_HAVE_CONFIG
	struct sn_config *cfg;
	struct sn_error err;
	char def[4096];
	const char *path = thr.config;
	double rated, f;
	int rc = 0;
#endif

	if (o->min_busbw > 0) {
		snprintf(thr.desc, sizeof(thr.desc), "--min-busbw %g GB/s",
			 o->min_busbw);
		if (!thr.config)
			return 0; /* the config is not needed */
	}
#ifndef SB_HAVE_CONFIG
	if (thr.config || thr.min_fraction > 0) {
		fprintf(stderr, SB_PREFIX
			"--config and --min-fraction need supernode-bench built inside slurm-supernode\n");
		return EXIT_USAGE;
	}
	return 0;
#else
	if (!path) {
		sn_config_default_path(def, sizeof(def));
		path = def;
	}
	if (!(cfg = sn_config_load(path, &err))) {
		if (thr.config) { /* asked for by name: must load */
			fprintf(stderr, SB_PREFIX "%s\n", err.msg);
			return EXIT_ERROR;
		}
		if (thr.min_fraction > 0) {
			fprintf(stderr,
				SB_PREFIX
				"--min-fraction needs bench.rated_busbw_gbps: %s\n",
				err.msg);
			return EXIT_USAGE;
		}
		snprintf(thr.note, sizeof(thr.note),
			 "note: no busbw threshold (%.1000s)", err.msg);
		return 0;
	}
	rated = cfg->bench.rated_busbw_gbps;
	if (o->min_busbw > 0) {
		/* --min-busbw wins; --config was only checked. */
	} else if (rated > 0) {
		f = thr.min_fraction > 0 ? thr.min_fraction :
					   cfg->bench.min_fraction;
		o->min_busbw = f * rated;
		snprintf(thr.desc, sizeof(thr.desc),
			 /* 0.80, but 0.825 in full */
			 f * 100 == (double)(long)(f * 100) ?
				 "%.2f x rated %g GB/s (%sbench: in %.1000s)" :
				 "%g x rated %g GB/s (%sbench: in %.1000s)",
			 f, rated,
			 thr.min_fraction > 0 ? "--min-fraction, rated from " :
						"",
			 path);
	} else if (thr.min_fraction > 0) {
		fprintf(stderr,
			SB_PREFIX
			"--min-fraction needs bench.rated_busbw_gbps in %s\n",
			path);
		rc = EXIT_USAGE;
	} else {
		snprintf(
			thr.note, sizeof(thr.note),
			"note: no busbw threshold (%.1000s has no bench.rated_busbw_gbps)",
			path);
	}
	sn_config_free(cfg);
	return rc;
#endif
}

/* "1 GiB", "64 KiB", "1000 B". */
static void fmt_bytes(size_t n, char *out, size_t size)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && n >= 1024 && n % 1024 == 0) {
		n /= 1024;
		u++;
	}
	snprintf(out, size, "%zu %s", n, unit[u]);
}

/** What one run gathered: the results and whether they pass. */
struct run {
	struct sb_result res[3 * SB_NOPS];
	size_t nres;
	bool pass;
	bool print; /* this process prints and writes files */
};

/* Judge @r against @o: wrong elements always fail, busbw when asked. */
static void judge(struct run *run, const struct sb_result *r,
		  const struct sb_opts *o, int64_t wrong_everywhere)
{
	const struct sb_row *last = r->nrows ? &r->rows[r->nrows - 1] : NULL;
	double bw = last ? sb_row_busbw(last) : 0;

	if (wrong_everywhere) {
		run->pass = false;
		if (run->print)
			fprintf(stderr,
				SB_PREFIX
				"FAIL: %s (%s): %lld wrong elements\n",
				sb_op_name(r->op), r->group,
				(long long)wrong_everywhere);
	}
	if (o->min_busbw > 0 && strcmp(r->group, "across")) {
		bool ok = bw >= o->min_busbw;
		char size[32];

		run->pass &= ok;
		fmt_bytes(last ? last->bytes : 0, size, sizeof(size));
		if (run->print)
			fprintf(stderr,
				SB_PREFIX
				"%s (%s, %d ranks): busbw %.2f GB/s at %s %s %s: %s\n",
				sb_op_name(r->op), r->group, r->nranks, bw,
				size, ok ? ">=" : "<", thr.desc,
				ok ? "PASS" : "FAIL");
	}
}

/* Every selected operation in one group; world sums the wrong counts. */
static int run_group(struct run *run, struct sb_backend *b,
		     struct sb_ctl *world, const struct sb_opts *o,
		     const char *group)
{
	for (int op = 0; op < SB_NOPS; op++) {
		struct sb_result *r = &run->res[run->nres];
		double w;

		if (!o->ops[op])
			continue;
		if (b->nranks < 2 && op != SB_BROADCAST && !o->one_rank) {
			if (run->print)
				fprintf(stderr,
					SB_PREFIX
					"%s (%s): one rank only, skipped\n",
					sb_op_name(op), group);
			continue;
		}
		if (sb_measure(b, o, op, group, run->print && !o->quiet, r))
			return -1;
		run->nres++;
		w = (double)sb_total_wrong(r);
		if (strcmp(group, "all") && world->sum(world, &w, 1))
			return -1;
		judge(run, r, o, (int64_t)w);
	}
	return 0;
}

struct json_args {
	const struct run *run;
	const struct sb_opts *o;
	const char *backend;
};

static int json_fill(FILE *f, void *arg)
{
	const struct json_args *a = arg;

	return sb_write_json(f, a->run->res, a->run->nres, a->backend,
			     a->o->min_busbw, a->run->pass);
}

static int svg_fill(FILE *f, void *arg)
{
	const struct run *run = arg;

	return sb_write_svg(f, run->res, run->nres,
			    "supernode-bench: bus bandwidth");
}

static int write_outputs(const struct run *run, const struct sb_opts *o,
			 const char *backend)
{
	if (!run->print)
		return 0;
	if (o->groups)
		sb_write_groups(stdout, run->res, run->nres);
	if (o->json) {
		struct json_args a = { run, o, backend };

		if (sb_out_memstream_write(o->json, "--json", json_fill, &a))
			return -1;
	}
	if (o->prom &&
	    sb_prom_write_results(o->prom, run->res, run->nres, o->min_busbw))
		return -1;
	if (o->plot &&
	    sb_out_memstream_write(o->plot, "--plot", svg_fill, (void *)run))
		return -1;
	return 0;
}

#ifdef SB_HAVE_MPI
/* Started by an MPI launcher (mpirun, srun --mpi=pmix/pmi2)? */
static bool under_mpi(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") ||
	       getenv("PMI_RANK") || getenv("PMI_SIZE");
}

/* The supernode groups: inside each supernode, then across them. */
static int run_supernode_groups(struct run *run, struct sb_ctl *world,
				const struct sb_opts *o)
{
	struct sb_ctl *intra, *across;
	struct sb_backend bi, ba;
	long idx;
	int rc = -1;

	if (sb_parse_uint(getenv("SUPERNODE_INDEX"), 0, 1 << 20, &idx)) {
		fprintf(stderr, SB_PREFIX
			"--groups supernode needs SUPERNODE_INDEX (run under --supernode=N)\n");
		return -1;
	}
	intra = sb_mpi_split(world, (int)idx, world->prank);
	across = intra ? sb_mpi_split(world, intra->prank, (int)idx) : NULL;
	if (across && !sb_mpi_backend(intra, o->max_bytes, &bi)) {
		if (!sb_mpi_backend(across, o->max_bytes, &ba)) {
			rc = run_group(run, &bi, world, o, "intra") ||
					     run_group(run, &ba, world, o,
						       "across") ?
				     -1 :
				     0;
			ba.fini(&ba);
		}
		bi.fini(&bi);
	}
	sb_mpi_ctl_free(across);
	sb_mpi_ctl_free(intra);
	return rc;
}
#endif

/* Measure with @backend; @world is NULL without MPI. */
static int run_all(struct run *run, struct sb_ctl *world, const char *backend,
		   const struct sb_opts *o)
{
	struct sb_backend b;
	int rc;

	if (sb_backend_open(world, backend, o, &b))
		return -1;
	run->print = b.ctl->prank == 0;
	if (b.nranks < 2 && !o->one_rank) {
		/* Forgetting mpirun/srun is the likely mistake: say so, don't pass. */
		if (run->print)
			fprintf(stderr, SB_PREFIX
				"could not run: 1 rank only (launch with mpirun or srun -n 2 or more, or --backend nccl -g 2 or more)\n");
		b.fini(&b);
		return -1;
	}
	rc = run_group(run, &b, b.ctl, o, "all");
#ifdef SB_HAVE_MPI
	if (!rc && o->groups)
		rc = run_supernode_groups(run, world, o);
#endif
	if (!rc)
		rc = write_outputs(run, o, backend);
	b.fini(&b);
	return rc;
}

/*
 * An output file that cannot be written is found out before the benchmark
 * spends the allocation, not after.  A file this creates is removed again.
 */
int main(int argc, char **argv)
{
	static struct run run = { .pass = true };
	struct sb_ctl *world = NULL;
	const char *backend;
	struct sb_opts o;
	int rc;

	rc = parse_args(argc, argv, &o, &backend);
	if (rc)
		return rc > 0 ? EXIT_PASS : EXIT_USAGE;
	if ((rc = resolve_threshold(&o)))
		return rc;
	if (sb_out_check(o.json, "--json") || sb_out_check(o.plot, "--plot") ||
	    sb_out_check(o.prom, "--prom"))
		return EXIT_USAGE;
#ifdef SB_HAVE_MPI
	if ((!strcmp(backend, "mpi") || under_mpi()) &&
	    sb_mpi_init(&argc, &argv, &world)) {
		fprintf(stderr, SB_PREFIX "MPI_Init failed\n");
		return EXIT_ERROR;
	}
#else
	if (!strcmp(backend, "mpi")) {
		fprintf(stderr,
			SB_PREFIX "built without MPI: only --backend nccl\n");
		return EXIT_ERROR;
	}
#endif
	if (o.groups && !world) {
		fprintf(stderr, SB_PREFIX "--groups supernode needs MPI\n");
		return EXIT_USAGE;
	}
	if (sb_mode_on(&mode))
		rc = sb_mode_run(world, backend, &mode);
	else
		rc = run_all(&run, world, backend, &o);
	for (size_t i = 0; i < run.nres; i++)
		free(run.res[i].rows);
	if (run.print && thr.note[0])
		fprintf(stderr, SB_PREFIX "%s\n", thr.note);
	if (run.print && !rc)
		fprintf(stderr, SB_PREFIX "%s\n", run.pass ? "PASS" : "FAIL");
#ifdef SB_HAVE_MPI
	if (world) {
		sb_mpi_ctl_free(world);
		sb_mpi_fini();
	}
#endif
	if (sb_mode_on(&mode))
		return rc;
	if (rc)
		return EXIT_ERROR;
	return run.pass ? EXIT_PASS : EXIT_FAILED;
}
