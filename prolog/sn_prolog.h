/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_PROLOG_H
#define SN_PROLOG_H

#include <stdbool.h>

#include "sn_config.h"
#include "sn_log.h"

#define SN_PROLOG_NAME "supernode-prolog"

/* Exit codes of --check (Nagios convention) and of the prolog. */
enum {
	SN_EXIT_OK = 0,		/* --check: all OK; prolog: node fine, job runs */
	SN_EXIT_WARN = 1,	/* --check: worst is WARN */
	SN_EXIT_CRIT = 2,	/* --check: a CRIT; prolog: node drained, job requeued */
	SN_EXIT_UNKNOWN = 3,	/* --check: worst is UNKNOWN */
	SN_EXIT_USAGE = 4,	/* bad arguments or a config that does not load */
};

/* Parsed command line. */
struct sn_prolog_args {
	const char *config;	/* --config PATH */
	const char *node;	/* --node NAME (else SLURMD_NODENAME, else host) */
	bool check;		/* --check: print every check, drain nothing */
	bool json;		/* --json: the same as JSON */
	bool learn;		/* --learn: print this node's manifest */
};

/* prolog_run.c: the Prolog= flow (slurmd's environment). */
int sn_prolog_run(const struct sn_prolog_args *args, struct sn_config *cfg);

/* check_mode.c: --check / --json. */
int sn_prolog_check(const struct sn_prolog_args *args, struct sn_config *cfg);

/* learn.c: --learn. */
int sn_prolog_learn(const struct sn_prolog_args *args, struct sn_config *cfg);


#endif
