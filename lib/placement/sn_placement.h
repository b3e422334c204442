/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_PLACEMENT_H
#define SN_PLACEMENT_H

#include <stdint.h>

#include "config/sn_config.h"
#include "util/sn_error.h"

/* Marks a numeric field the user did not give (Slurm's NO_VAL / NO_VAL16). */
#define SN_UNSET32 0xfffffffeu
#define SN_UNSET16 0xfffeu

/* Values of Slurm's job_desc_msg_t.shared we care about. */
#define SN_SHARED_NONE 0 /* --exclusive */
#define SN_SHARED_OK 1	 /* --oversubscribe */
#define SN_SHARED_USER 2 /* --exclusive=user */
#define SN_SHARED_MCS 3	 /* --exclusive=mcs */
#define SN_SHARED_TOPO 4 /* --exclusive=topo (JOB_SHARED_TOPO, 24.05) */

/* Which client submitted: decides how a task count meets the allocation. */
enum sn_job_client {
	SN_CLIENT_BATCH = 0, /* sbatch (a script): its own counts reach the
				 * job's steps through SLURM_NTASKS */
	SN_CLIENT_ALLOC,     /* salloc: Slurm raises the job's task count to
				 * its node count, and the steps inherit that */
	SN_CLIENT_SRUN,	     /* srun creating the allocation: its first job
				 * step follows at once, from srun's own count */
};

/*
 * struct sn_job_request - the parts of a job submission (job_desc_msg_t)
 * that decide whether and how it can become a whole-supernode allocation.
 * Strings are borrowed; NULL means not given.
 */
struct sn_job_request {
	uint32_t supernodes;   /* N from SUPERNODE=N */
	uint32_t min_nodes;    /* -N min, SN_UNSET32 if not given */
	uint32_t max_nodes;    /* -N ...-max, SN_UNSET32 if not given */
	uint16_t shared;       /* SN_SHARED_*, SN_UNSET16 if not given */
	uint32_t req_switch;   /* --switches, SN_UNSET32 if not given */
	const char *features;  /* --constraint */
	const char *req_nodes; /* --nodelist */
	const char *exc_nodes; /* --exclude */
	uint32_t num_tasks; /* --ntasks (given or counted by the client), SN_UNSET32 */
	uint16_t ntasks_per_node; /* --ntasks-per-node, SN_UNSET16 if not given */
	enum sn_job_client client;
	int few_tasks_refused; /* 1: slurmctld refuses fewer tasks than nodes,
				* sbatch's too (26.05, SN_SLURM_FEW_TASKS_REFUSED) */
};

/*
 * struct sn_job_plan - what to write back into the job description.
 * features is malloc()ed (caller frees) or NULL to leave it as it is.
 */
struct sn_job_plan {
	uint32_t nodes;	       /* min_nodes = max_nodes = N x size */
	uint16_t shared;       /* SN_SHARED_NONE (whole nodes), every method */
	char *features;	       /* new --constraint, or NULL */
	uint32_t req_switch;   /* switch method: N; else SN_UNSET32 */
	uint32_t wait4switch;  /* switch method: seconds; else SN_UNSET32 */
	uint32_t segment_size; /* block method: nodes; else 0 */
	uint32_t num_tasks;    /* new --ntasks, or SN_UNSET32 to leave it */
};

/*
 * sn_placement_plan - turn a --supernode request into a whole-supernode,
 * exclusive allocation for the configured placement method.
 *
 * Combines what can coexist (a --constraint without brackets is ANDed with
 * the supernode choice, --nodelist narrows it to the supernode holding those
 * nodes, --exclude removes the supernodes it touches, a matching -N is
 * kept, --exclusive=user/mcs becomes --exclusive, a task count the client
 * derived from --ntasks-per-node and a smaller node count is scaled to the
 * whole allocation) and refuses the rest with a message that names the
 * conflicting options, notably an srun whose job step would have fewer
 * tasks than nodes (slurmctld 22.05 divides by zero on such a step).  Returns 0 with plan filled, or -1 with err set
 * (plan->features NULL).
 */
int sn_placement_plan(const struct sn_config *cfg,
		      const struct sn_job_request *req,
		      struct sn_job_plan *plan, struct sn_error *err);

#endif
