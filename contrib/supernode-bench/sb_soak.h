/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sb_soak.h: --duration/--interval, the stability run.  Every interval
 * (a window) the selected operations' sweep runs once; each window is
 * one JSON line; three flags, each with its own exit code:
 *
 *   busbw drop     the largest size's busbw of an operation below
 *                  fraction x its first window's, two windows in a row
 *   memory growth  host (or device) memory that keeps growing: more than
 *                  the limit above the second window and rising in at
 *                  least half of the steps (4 windows or more)
 *   hang           an operation still running past its time limit: a
 *                  watchdog thread sees it while it hangs and ends the
 *                  process (sb_soak_run.c)
 *
 * The pure part (sb_soak.c) parses, decides and writes; unit-tested in
 * tests/benchtool/test_soak.c.
 */
#ifndef SB_SOAK_H
#define SB_SOAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sb.h"

/* Exit codes of a soak (and of --diagnose), after 0-3 of a plain run. */
enum {
	SB_EXIT_BUSBW_DROP = 4,
	SB_EXIT_MEM_GROWTH = 5,
	SB_EXIT_HANG = 6,
	SB_EXIT_SHARED_FAULT = 7, /* --diagnose: breaker tripped */
};

/* The flags, as bits. */
enum {
	SB_FLAG_BUSBW_DROP = 1,
	SB_FLAG_MEM_GROWTH = 2,
	SB_FLAG_HANG = 4,
};

/* At most this many windows are kept (30 days at 26 s). */
#define SB_SOAK_MAX_WINDOWS 100000
/* --duration and --interval: 1 s to 30 days. */
#define SB_SOAK_MAX_SECONDS (30.0 * 24 * 3600)

/** What --duration, --interval and their companions asked for. */
struct sb_soak_opts {
	double duration_s;     /* 0: no soak */
	double interval_s;     /* a window every this many seconds */
	double op_timeout_s;   /* per operation (watchdog) */
	double fraction;       /* busbw drop below fraction x first window */
	double mem_growth_mib; /* memory growth flag above this */
};

/* The test-only knob's variable. */
#define SB_KNOB_ENV "SUPERNODE_BENCH_TEST_SLOW"

/** The test-only knob, parsed. */
struct sb_knob {
	bool on;
	int rank;	 /* world rank that is slowed */
	double us;	 /* µs of sleep before each operation */
	double after_s;	 /* from this many seconds after the start */
	double leak_mib; /* MiB leaked per soak window */
};

/** The time series, one entry per window; arrays grow as windows come. */
struct sb_soak_series {
	size_t n, cap;
	double *t_s;		  /* window start, seconds since the start */
	double *busbw[SB_NOPS];	  /* GB/s of the largest size; NAN: not run */
	double *host_mib;	  /* host RSS summed over the processes */
	double *dev_mib;	  /* device memory used; NAN: unknown */
	long long wrong;	  /* wrong elements over all windows */
	unsigned flags;		  /* SB_FLAG_* raised so far */
	long long flag_window[3]; /* first window of each flag; -1: none */
	enum sb_op drop_op;	  /* the operation whose busbw dropped */
};

int sb_parse_duration(const char *s, double *seconds);
int sb_knob_parse(const char *s, struct sb_knob *k);
bool sb_soak_busbw_drop(const double *bw, size_t n, double fraction,
			size_t *at);
bool sb_soak_mem_growth(const double *mib, size_t n, double limit_mib);
unsigned sb_soak_judge(struct sb_soak_series *s, const bool ops[SB_NOPS],
		       const struct sb_soak_opts *o);
int sb_soak_exit(unsigned flags, long long wrong);
const char *sb_soak_flag_name(unsigned flag);
int sb_soak_series_add(struct sb_soak_series *s, double t_s);
void sb_soak_series_free(struct sb_soak_series *s);
void sb_soak_write_line(FILE *f, const struct sb_soak_series *s, size_t w,
			const bool ops[SB_NOPS], size_t bytes);
void sb_soak_write_summary(FILE *f, const struct sb_soak_series *s,
			   const bool ops[SB_NOPS],
			   const struct sb_soak_opts *o, bool json);
int sb_soak_write_svg(FILE *f, const struct sb_soak_series *s,
		      const bool ops[SB_NOPS], double fraction);

#endif /* SB_SOAK_H */
