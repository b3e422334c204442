/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_SPANK_H
#define SN_SPANK_H

#include <limits.h>
#include <stdint.h>

#include <slurm/spank.h>

#include "sn_config.h"
#include "sn_error.h"

#define SN_PLUGIN "supernode"

/*
 * struct sn_spank - the plugin's only mutable state, one per process
 * (sbatch, salloc, srun or slurmstepd).  Filled by args.c (plugstack
 * arguments), options.c (the --supernode value) and read by the context
 * handlers.
 */
struct sn_spank {
	char config_path[PATH_MAX];	/* plugstack config=, or the default */
	int cfg_tried;			/* sn_config_get() ran */
	struct sn_config *cfg;		/* NULL when it did not load */
	struct sn_error cfg_err;	/* why it did not load */
	int option_given;		/* --supernode seen (CLI, #SBATCH, env form) */
	char option_arg[64];		/* its text, for messages */
	uint32_t supernodes;		/* N, valid when option_given */
};

extern struct sn_spank sn_state;

/*
 * supernode.c: load the config on first use.  Commands without --supernode
 * never read it, so a huge or broken file cannot slow plain srun/sbatch.
 * Returns sn_state.cfg (NULL: sn_state.cfg_err says why).
 */
const struct sn_config *sn_config_get(void);

/* args.c: parse plugstack.conf arguments ("config=PATH"); 0 or -1. */
int sn_args_parse(int ac, char **av, struct sn_spank *st);

/* options.c: register --supernode (from slurm_spank_init). */
int sn_options_register(spank_t sp);

/* options.c: apply SBATCH_/SALLOC_/SLURM_SUPERNODE when the CLI did not set
 * it, validate N against the config, hand SUPERNODE=N to slurmctld and the
 * prolog/epilog with spank_job_control_setenv.  Local/allocator context. */
int sn_options_post_opt(spank_t sp);

/* remote_env.c: set SUPERNODE_* and MASTER_* in the step (user_init). */
int sn_remote_env_set(spank_t sp);

#endif
