/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_SPANK_H
#define SN_SPANK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slurm/spank.h>

#include "config/sn_config.h"
#include "util/sn_error.h"
#include "env/sn_jobenv.h"
#include "env/sn_taskenv.h"

#define SN_PLUGIN "supernode"

/*
 * The job's environment is read only through sn_job_getenv(): a raw
 * spank_getenv() into a fixed buffer reads a long value as "unset", and a
 * user's value got replaced (issue 9 item 12).  remote_env.c, which wraps
 * it, defines SN_SPANK_GETENV_WRAPPER; anywhere else it does not compile.
 */
#ifndef SN_SPANK_GETENV_WRAPPER
#pragma GCC poison spank_getenv
#endif

/* --supernode-env=MODE: what the plugin does to the job's environment. */
enum sn_env_mode {
	SN_ENV_AUTO = 0,	/* set what is unset (the default) */
	SN_ENV_NONE,		/* set nothing at all */
	SN_ENV_SHOW,		/* as auto, and task 0 of each node prints why */
};

/* Carries the mode into the job's steps (srun inside sbatch/salloc). */
#define SN_ENV_MODE_VAR "SLURM_SPANK_SUPERNODE_ENV"

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
	int env_mode_given;		/* --supernode-env seen */
	enum sn_env_mode env_mode;	/* its value; auto unless given */
	int task_env_ready;		/* user_init gathered task_node */
	struct sn_taskenv_node task_node;	/* this node's ports, topology */
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

/*
 * options.c: the value of the last --supernode on this process's command
 * line (/proc/self/cmdline read whole, sn_cmdline_supernode_find()), in
 * any context, slurm_spank_init included.  Returns 1 with *value a
 * malloc()ed copy of its text (free() it; "" when --supernode was the last
 * word), 0 when the command line has no --supernode (*value NULL), or -1
 * when the command line could not be read (*value NULL, err says why).
 * Does not validate the value (sn_supernode_count_parse does).
 */
int sn_cmdline_supernode(char **value, struct sn_error *err);

/* options.c: register --supernode-env (from slurm_spank_init). */
int sn_env_option_register(spank_t sp);

/*
 * options.c: "auto", "none" or "show" into *mode; 0, or -1 for anything
 * else (case and spaces count).
 */
int sn_env_mode_parse(const char *s, enum sn_env_mode *mode);

/* options.c: the mode's name. */
const char *sn_env_mode_name(enum sn_env_mode mode);

/*
 * remote_env.c: the step's --supernode-env mode (the option, else the
 * SLURM_SPANK_SUPERNODE_ENV the submission left in the job's environment)
 * into sn_state.env_mode.  Remote context.
 */
void sn_env_mode_resolve(spank_t sp);

/* remote_env.c: set SUPERNODE_* and MASTER_* in the step (user_init). */
int sn_remote_env_set(spank_t sp);

/*
 * remote_env.c: this node's Slurm name (element S_JOB_NODEID of the step's
 * node list; the batch step runs on the first node of job_nodelist).
 * Returns 0, or -1 with err set.
 */
int sn_self_name(spank_t sp, const char *job_nodelist, char *out, size_t size,
		 struct sn_error *err);

/*
 * remote_env.c: name from the job's environment (spank_getenv), read
 * whole into eb (sn_env_read): NULL when unset, sn_env_unread when set but
 * not read whole, which every caller leaves alone.  The one way spank/
 * reads the job's environment.  Remote context.
 */
const char *sn_job_getenv(spank_t sp, const char *name, struct sn_envbuf *eb);

/*
 * remote_env.c: the new ownership marker: old entries of other names kept,
 * names[0..n-1] replaced by those of env with set[i].  NULL on no memory.
 */
char *sn_marker_update(const char *old, const struct sn_jobenv *env,
		       const bool *set, const char *const *names, size_t n);

/*
 * task_env.c (user_init, remote): read this node's ports and, when a task
 * will need it, its topology, once per step, in a child with a time limit.
 */
int sn_task_env_prepare(spank_t sp);

/* task_env.c (task_init, remote): set one task's NCCL/UCX/PyTorch variables. */
int sn_task_env_set(spank_t sp);

#endif
