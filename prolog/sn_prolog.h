/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_PROLOG_H
#define SN_PROLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "config/sn_config.h"
#include "util/sn_log.h"

#define SN_PROLOG_NAME "supernode-prolog"

/* Exit codes of --check (Nagios convention) and of the prolog. */
enum {
	SN_EXIT_OK = 0,	  /* --check: all OK; prolog: node fine, job runs */
	SN_EXIT_WARN = 1, /* --check: worst is WARN */
	SN_EXIT_CRIT =
		2, /* --check: a CRIT; prolog: node drained, job requeued */
	SN_EXIT_UNKNOWN = 3, /* --check: worst is UNKNOWN */
	SN_EXIT_USAGE = 4,   /* bad arguments or a config that does not load */
};

/* Parsed command line. */
struct sn_prolog_args {
	const char *config; /* --config PATH */
	const char *node;   /* --node NAME (else SLURMD_NODENAME, else host) */
	bool check;	    /* --check: print every check, drain nothing */
	bool json;	    /* --json: the same as JSON */
	bool learn;	    /* --learn: print this node's manifest */
	bool identity;	    /* --identity: print the hardware's supernode */
	bool controller; /* --controller (or SLURM_SCRIPT_CONTEXT=prolog_slurmctld) */
	int64_t start_ms; /* sn_now_ms() when main() began: prolog.timeout counts from it */
};

/* prolog_run.c: the Prolog= flow (slurmd's environment). */
int sn_prolog_run(const struct sn_prolog_args *args, struct sn_config *cfg);

/* check_mode.c: --check / --json. */
int sn_prolog_check(const struct sn_prolog_args *args, struct sn_config *cfg);

/*
 * identity.c: --identity [--json]: the node's hardware identity and its
 * configured supernode; exit SN_EXIT_UNKNOWN when the hardware could not
 * tell, else SN_EXIT_OK.
 */
int sn_prolog_identity(const struct sn_prolog_args *args,
		       struct sn_config *cfg);

/* learn.c: --learn. */
int sn_prolog_learn(const struct sn_prolog_args *args, struct sn_config *cfg);

/*
 * controller.c: --controller, slurmctld's PrologSlurmctld.  Exit 0 if the
 * job's allocation (SLURM_JOB_NODELIST) is exactly SPANK_SUPERNODE whole
 * supernodes, SN_EXIT_CRIT (Slurm requeues, drains nothing) if not or if it
 * cannot be verified.
 */
int sn_prolog_controller(const struct sn_prolog_args *args,
			 const struct sn_config *cfg);

/* True when slurmctld runs us as PrologSlurmctld (SLURM_SCRIPT_CONTEXT). */
bool sn_prolog_controller_context(void);

/* True when the job asked for --supernode (SPANK_SUPERNODE is set). */
bool sn_prolog_controller_wanted(void);

#endif
