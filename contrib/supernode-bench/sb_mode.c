// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_mode.c: --diagnose and the soak from main(): their options, what
 * may be combined, and the run (a backend over the world for the soak;
 * the MPI world itself for --diagnose).
 */
#include <stdlib.h>
#include <string.h>

#include "sb_hook.h"
#include "sb_mode.h"

/** sb_mode_defaults - no mode; the defaults of every option. */
void sb_mode_defaults(struct sb_mode *m)
{
	*m = (struct sb_mode){ .slow_fraction = 0.5,
			       .max_drain_permille = 250,
			       .soak = { .op_timeout_s = 120,
					 .fraction = 0.8,
					 .mem_growth_mib = 256 } };
}

static int bad(const char *opt, const char *val)
{
	fprintf(stderr, SB_PREFIX "invalid %s '%s'\n", opt, val ? val : "");
	return -1;
}

static int fraction(const char *opt, const char *arg, double *v)
{
	if (sb_parse_double(arg, 0, v) || *v <= 0 || *v >= 1)
		return bad(opt, arg);
	return 0;
}

static int duration(const char *opt, const char *arg, double *v)
{
	return sb_parse_duration(arg, v) ? bad(opt, arg) : 0;
}

/**
 * sb_mode_parse - option @c (an SB_OPT_*) with @arg into @m.  Returns 0,
 * 1 when @c is not one of these, or -1 with the reason printed.
 */
int sb_mode_parse(int c, const char *arg, struct sb_mode *m)
{
	long v;

	switch (c) {
	case SB_OPT_DIAGNOSE:
		m->diagnose = true;
		return 0;
	case SB_OPT_DRAIN:
		m->drain = true;
		return 0;
	case SB_OPT_SLOW_FRACTION:
		return fraction("--slow-fraction (0 < F < 1)", arg,
				&m->slow_fraction);
	case SB_OPT_MAX_DRAIN_FRACTION:
		if (sb_parse_permille(arg, &m->max_drain_permille))
			return bad(
				"--max-drain-fraction (0 < F < 1, at most 3 decimals)",
				arg);
		return 0;
	case SB_OPT_DURATION:
		return duration("--duration (e.g. 24h, 10m, 20s)", arg,
				&m->soak.duration_s);
	case SB_OPT_INTERVAL:
		return duration("--interval (e.g. 10m, 2s)", arg,
				&m->soak.interval_s);
	case SB_OPT_OP_TIMEOUT:
		return duration("--op-timeout (e.g. 120s)", arg,
				&m->soak.op_timeout_s);
	case SB_OPT_SOAK_FRACTION:
		return fraction("--soak-fraction (0 < F < 1)", arg,
				&m->soak.fraction);
	case SB_OPT_MEM_GROWTH:
		if (sb_parse_uint(arg, 1, 1 << 20, &v))
			return bad("--mem-growth (MiB, 1..1048576)", arg);
		m->soak.mem_growth_mib = (double)v;
		return 0;
	default:
		return 1;
	}
}

/** sb_mode_on - is a mode (--diagnose or --duration) asked for? */
bool sb_mode_on(const struct sb_mode *m)
{
	return m->diagnose || m->soak.duration_s > 0;
}

static int refuse(const char *why)
{
	fprintf(stderr, SB_PREFIX "%s\n", why);
	return -1;
}

/**
 * sb_mode_check - what may not be combined, after parsing; the test
 * knobs (sb_knobs_check: refused when malformed in the test build,
 * reported ignored in the installed one).  Defaults the
 * interval to a tenth of the duration (at least 1 s); --diagnose measures
 * one size, -e (o->min_bytes set to it).  Returns 0, or -1 with the
 * reason printed.
 */
int sb_mode_check(const struct sb_mode *m, struct sb_opts *o,
		  const char *backend)
{
	struct sb_mode *w = (struct sb_mode *)m;

	if (sb_knobs_check())
		return -1;
	if (m->drain && !m->diagnose)
		return refuse("--drain needs --diagnose");
	if (m->diagnose && m->soak.duration_s > 0)
		return refuse("--diagnose and --duration exclude each other");
	if (m->soak.interval_s > 0 && !m->soak.duration_s)
		return refuse("--interval needs --duration");
	if (sb_mode_on(m) && o->groups)
		return refuse(
			"--groups is for the sweep, not --diagnose or --duration");
	if (m->diagnose && o->ngpus > 1)
		return refuse("--diagnose takes one GPU per process (no -g)");
	if (m->diagnose && strcmp(backend, "mpi") && strcmp(backend, "nccl"))
		return refuse("--diagnose: unknown backend");
	if (m->soak.duration_s > 0 && !m->soak.interval_s)
		w->soak.interval_s =
			m->soak.duration_s >= 10 ? m->soak.duration_s / 10 : 1;
	if (m->diagnose)
		o->min_bytes = o->max_bytes;
	if (m->soak.interval_s > m->soak.duration_s)
		return refuse("--interval is longer than --duration");
	return 0;
}

/* The soak over the whole world. */
static int soak(struct sb_ctl *world, const char *backend,
		const struct sb_mode *m)
{
	struct sb_backend b;
	int rc = sb_backend_open(world, backend, m->o, &b);

	/*
	 * One rank moves nothing: NCCL's 1-rank broadcast of 256 MiB timed
	 * 226000 to 429000 "GB/s" on one H200, noise that raised busbw_drop.
	 */
	if (!rc && b.nranks < 2) {
		fprintf(stderr, SB_PREFIX
			"could not run: a soak needs 2 ranks or more (launch with mpirun or srun -n 2 or more, or --backend nccl -g 2 or more)\n");
		rc = -1;
	}
	if (!rc)
		rc = sb_soak_run(&b, m->o, &m->soak,
				 world ? world->prank : b.ctl->prank);
	else
		rc = 3;
	if (b.fini)
		b.fini(&b);
	return rc;
}

/**
 * sb_mode_run - the mode asked for; @world is the MPI world or NULL.
 * Returns the exit status.
 */
int sb_mode_run(struct sb_ctl *world, const char *backend,
		const struct sb_mode *m)
{
	if (m->soak.duration_s > 0)
		return soak(world, backend, m);
#ifdef SB_HAVE_MPI
	if (world)
		return sb_diag_run(world, backend, m);
#endif
	fprintf(stderr, SB_PREFIX
		"--diagnose needs MPI (mpirun, or srun --mpi=pmix inside the allocation)\n");
	return 3;
}
