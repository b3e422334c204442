/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sb_mode.h: the two modes besides the sweep, their options and their
 * entry points (sb_mode.c):
 *
 *   --diagnose [--drain] [--slow-fraction F] [--max-drain-fraction F]
 *   --duration T [--interval T] [--op-timeout T] [--soak-fraction F]
 *              [--mem-growth MIB]
 */
#ifndef SB_MODE_H
#define SB_MODE_H

#include <getopt.h>

#include "sb_backend.h"
#include "sb_soak.h"

/* getopt values of the options below (past any character). */
enum {
	SB_OPT_DIAGNOSE = 0x100,
	SB_OPT_DRAIN,
	SB_OPT_SLOW_FRACTION,
	SB_OPT_MAX_DRAIN_FRACTION,
	SB_OPT_DURATION,
	SB_OPT_INTERVAL,
	SB_OPT_OP_TIMEOUT,
	SB_OPT_SOAK_FRACTION,
	SB_OPT_MEM_GROWTH,
};

/* The long options of both modes, for getopt_long's table. */
#define SB_MODE_LONGOPTS                                                      \
	{ "diagnose", no_argument, NULL, SB_OPT_DIAGNOSE },                   \
		{ "drain", no_argument, NULL, SB_OPT_DRAIN },                 \
		{ "slow-fraction", required_argument, NULL,                   \
		  SB_OPT_SLOW_FRACTION },                                     \
		{ "max-drain-fraction", required_argument, NULL,              \
		  SB_OPT_MAX_DRAIN_FRACTION },                                \
		{ "duration", required_argument, NULL, SB_OPT_DURATION },     \
		{ "interval", required_argument, NULL, SB_OPT_INTERVAL },     \
		{ "op-timeout", required_argument, NULL, SB_OPT_OP_TIMEOUT }, \
		{ "soak-fraction", required_argument, NULL,                   \
		  SB_OPT_SOAK_FRACTION },                                     \
	{                                                                     \
		"mem-growth", required_argument, NULL, SB_OPT_MEM_GROWTH      \
	}

/** What the modes were asked for. */
struct sb_mode {
	bool diagnose, drain;
	double slow_fraction;	     /* diagnose: slow below F x median */
	unsigned max_drain_permille; /* diagnose: the breaker and the drain
				      * cap, parts per thousand */
	struct sb_soak_opts soak;    /* duration_s 0: no soak */
	const char *config;	     /* --config (drain.tag) or NULL */
	const struct sb_opts *o;     /* the sweep's options */
};

void sb_mode_defaults(struct sb_mode *m);
int sb_mode_parse(int c, const char *arg, struct sb_mode *m);
int sb_mode_check(const struct sb_mode *m, struct sb_opts *o,
		  const char *backend);
bool sb_mode_on(const struct sb_mode *m);
int sb_mode_run(struct sb_ctl *world, const char *backend,
		const struct sb_mode *m);
int sb_soak_run(struct sb_backend *b, const struct sb_opts *o,
		const struct sb_soak_opts *so, int world_rank);
int sb_diag_run(struct sb_ctl *world, const char *backend,
		const struct sb_mode *m);

#endif /* SB_MODE_H */
