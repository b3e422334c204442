/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_SLURM_ENV_H
#define SN_SLURM_ENV_H
/*
 * What Slurm tells a prolog, an epilog or an admin command about the job and
 * the node, read in one place: the variable names, the job id, whether the
 * job asked for --supernode, and %h (the host name as Slurm means it).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Set by slurmd for Prolog=/Epilog= and by slurmctld for PrologSlurmctld. */
#define SN_ENV_JOB_ID "SLURM_JOB_ID"
/* This node's Slurm name (slurmd only; several slurmd -N on one host). */
#define SN_ENV_NODENAME "SLURMD_NODENAME"
/*
 * The job control variable SUPERNODE=N as prologs and epilogs see it
 * (spank_job_env entries get the SPANK_ prefix).  The job_submit plugin
 * refuses a job whose entry it did not validate, so it is N or absent.
 */
#define SN_ENV_SUPERNODE "SPANK_SUPERNODE"
/*
 * How often Slurm has started the job again (requeues), from the job's
 * credential: slurmd sets it for Prolog= and Epilog= on every release we
 * support (22.05 to 26.05), 0 on the first run.
 */
#define SN_ENV_RESTART_COUNT "SLURM_JOB_RESTART_COUNT"
/* The largest restart count taken (Slurm counts in 16 bits). */
#define SN_RESTART_COUNT_MAX 65535u

/* The largest job id taken (Slurm's ids stay below 0xfffffff0). */
#define SN_JOB_ID_MAX 0xfffffff0u

/**
 * struct sn_slurm_job - the job a prolog or epilog runs for.
 * @id:        SLURM_JOB_ID, 1..SN_JOB_ID_MAX.
 * @node:      SLURMD_NODENAME, or NULL when unset or empty (the environment
 *             owns the string).
 * @supernode: true when the job asked for --supernode (SPANK_SUPERNODE is
 *             set and not empty).
 * @has_restart_count: SLURM_JOB_RESTART_COUNT is set and a whole number
 *             0..SN_RESTART_COUNT_MAX; then @restart_count holds it (the
 *             job's attempt is @restart_count + 1).
 */
struct sn_slurm_job {
	uint32_t id;
	const char *node;
	bool supernode;
	bool has_restart_count;
	uint32_t restart_count;
};

/**
 * sn_slurm_env_job - read the job from the environment.
 * Returns 0, or -1 when SLURM_JOB_ID is missing or not a job id (then *job
 * still holds node and supernode).
 */
int sn_slurm_env_job(struct sn_slurm_job *job);

/** sn_slurm_env_supernode - true when SPANK_SUPERNODE is set and not empty. */
bool sn_slurm_env_supernode(void);

/**
 * sn_slurm_env_host - what %h means in every path of the config: the host
 * name up to its first dot, as slurmd's own %h (gethostname_short).
 * Writes at most @size bytes, NUL-terminated; "localhost" when the host has
 * no name or it does not fit.  Returns @buf.
 */
char *sn_slurm_env_host(char *buf, size_t size);

#endif
