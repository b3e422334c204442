/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_SPANK_H
#define SN_SPANK_H

/*
 * supernode.so's files, bottom to top: state.c (the plugin's state and
 * the reads every context shares), local.c (the options, submission
 * side), remote.c (step variables), task.c (task variables), supernode.c
 * (SPANK's entry points: dispatch only).  A file calls only files below it; every decision is lib/'s
 * (env/sn_ownership.h for who owns a variable).  Functions here carry no
 * sn_ prefix, which is lib/'s; the one state keeps its name, sn_state.
 */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slurm/spank.h>

#include "config/sn_config.h"
#include "util/sn_error.h"
#include "env/sn_jobenv.h"
#include "env/sn_ownership.h"
#include "env/sn_taskenv.h"
#include "env/sn_taskenv_cache.h"
#include "placement/sn_option.h"

#define SN_PLUGIN "supernode"
#define SN_BATCH_STEP 0xfffffffbu /* SLURM_BATCH_SCRIPT in slurm.h */

/*
 * The job's environment is read only through job_getenv(): a raw
 * spank_getenv() into a fixed buffer reads a long value as "unset", and a
 * user's value got replaced (issue 9 item 12).  state.c, which wraps it,
 * defines SN_SPANK_GETENV_WRAPPER; anywhere else it does not compile.
 */
#ifndef SN_SPANK_GETENV_WRAPPER
#pragma GCC poison spank_getenv
#endif

/*
 * struct sn_spank - the plugin's only mutable state, one per process
 * (sbatch, salloc, srun or slurmstepd), in state.c.
 */
struct sn_spank {
	struct sn_plugin_args args; /* plugstack config=, state_dir= */
	int cfg_tried;		    /* config_get() ran */
	struct sn_config *cfg;	    /* NULL when it did not load */
	/* cfg is the job's (config/sn_config_snapshot.h), not the file's */
	bool cfg_of_job;
	uint64_t config_stamp; /* config_stamp(): the file's, once; 0 unread */
	struct sn_error cfg_err; /* why it did not load */
	int option_given;	 /* --supernode seen (CLI, #SBATCH, env form) */
	uint32_t supernodes;	 /* N, valid when option_given */
	int env_mode_given;	 /* --supernode-env seen */
	enum sn_env_mode env_mode; /* its value; auto unless given */
	int task_env_ready;	   /* user_init gathered task_node */
	/*
	 * A value of ours the step refused (remote context: a user's value
	 * past the client's check), and what it used instead; task 0 of each
	 * node prints it on the job's stderr.  "" none.
	 */
	struct sn_error step_refused;
	struct sn_taskenv_node task_node; /* this node's ports, topology */
	struct sn_taskenv_cache_use task_cache; /* where task_node came from */
};

extern struct sn_spank sn_state;

/*
 * state.c: load the config on first use.  Commands without --supernode
 * never read it, so a huge or broken file cannot slow plain srun/sbatch.
 * Returns sn_state.cfg (NULL: sn_state.cfg_err says why).
 */
const struct sn_config *config_get(void);

/*
 * state.c: sn_config_stamp() of the config file, stat()ed once per
 * process (the job's config and the node cache are both keyed by it).
 */
uint64_t config_stamp(void);

/*
 * state.c: config_get() for a job's step on node self: the job's config
 * when the job's first step on this node left one
 * (config/sn_config_snapshot.h), else the file.  Remote context.
 */
const struct sn_config *config_get_job(uint32_t job_id, const char *self);

/*
 * state.c: after config_get_job() read the whole file, write the job's
 * config for the job's later steps on this node (job_nodelist: the
 * job's nodes), when plugstack's state_dir= is the config's
 * paths.state_dir (the epilog removes it from there).  Logged when not.
 */
void job_config_save(uint32_t job_id, const char *self,
		     const char *job_nodelist);

/* state.c: release the config (slurm_spank_exit). */
void state_release(void);

/*
 * state.c: name from the job's environment (spank_getenv), read whole
 * into eb (sn_env_read): NULL when unset, sn_env_unread when set but not
 * read whole, which every caller leaves alone.  The one way spank/ reads
 * the job's environment.  Remote context.
 */
const char *job_getenv(spank_t sp, const char *name, struct sn_envbuf *eb);

/* state.c: a variable we only read (node lists, modes): NULL unless whole. */
const char *job_fact(spank_t sp, const char *name, struct sn_envbuf *eb);

/*
 * state.c: write what sn_ownership_plan() said (unset, or set: v[i].written
 * tells which sets took; a failure is logged), then the new marker.
 */
void env_write(spank_t sp, const char *marker, struct sn_ownership_var *v,
	       size_t n);

/* state.c: the step is the batch script. */
bool job_is_batch(spank_t sp);

/*
 * state.c: this node's Slurm name (element S_JOB_NODEID of the step's
 * node list; the batch step runs on the first node of SLURM_JOB_NODELIST).
 * Returns 0, or -1 with err set.
 */
int self_name(spank_t sp, const char *job_nodelist, char *out, size_t size,
	      struct sn_error *err);

/*
 * state.c: the step's --supernode and --supernode-env (the options, else
 * what the submission left in the job's environment) into sn_state.
 * Remote context; returns sn_ownership_active().
 */
bool state_resolve(spank_t sp);

/* local.c: register --supernode and --supernode-env (slurm_spank_init). */
int options_register(spank_t sp);

/* local.c: apply SBATCH_/SALLOC_/SLURM_SUPERNODE when the CLI did not set
 * it, validate N against the config, hand SUPERNODE=N to slurmctld and the
 * prolog/epilog with spank_job_control_setenv.  Local/allocator context. */
int options_post_opt(spank_t sp);

/* remote.c: set SUPERNODE_* and MASTER_* in the step (user_init). */
int remote_env_set(spank_t sp);

/*
 * task.c (user_init, remote): read this node's ports and, when a task
 * will need it, its topology, once per step, in a child with a time limit.
 */
int task_env_prepare(spank_t sp);

/* task.c (task_init, remote): set one task's NCCL/UCX/PyTorch variables. */
int task_env_set(spank_t sp);

/*
 * task.c (task_init, remote): task 0 of the node prints
 * sn_state.step_refused, if any, on the task's stderr.
 */
void task_refusal_print(spank_t sp);

#endif
