/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_JOBENV_H
#define SN_JOBENV_H

#include <stddef.h>
#include <stdint.h>

#include "sn_config.h"
#include "sn_error.h"

#define SN_JOBENV_MAX 16
#define SN_EPHEMERAL_PATH "/proc/sys/net/ipv4/ip_local_port_range"

/* One variable to set in the job step: name and malloc()ed value. */
struct sn_env_var {
	const char *name;	/* static string */
	char *value;
};

/* struct sn_jobenv - the variables of one node's step; sn_jobenv_free(). */
struct sn_jobenv {
	struct sn_env_var vars[SN_JOBENV_MAX];
	size_t count;
};

/*
 * struct sn_jobenv_input - what slurmstepd knows about the step.
 * Strings are borrowed.
 */
struct sn_jobenv_input {
	const char *job_nodelist;	/* SLURM_JOB_NODELIST (the allocation) */
	const char *nodename;		/* SLURMD_NODENAME (this node) */
	uint32_t job_id;
	uint16_t ephemeral_lo;		/* kernel's ip_local_port_range */
	uint16_t ephemeral_hi;
};

/*
 * sn_jobenv_build - the SUPERNODE_* variables and MASTER_ADDR/MASTER_PORT
 * for this node of the allocation:
 *   SUPERNODE_COUNT, SUPERNODE_NAMES (comma list, allocation order),
 *   SUPERNODE_NAME, SUPERNODE_INDEX, SUPERNODE_SIZE, SUPERNODE_NODE_RANK
 *   (this node's position among its supernode's nodes in the allocation),
 *   MASTER_ADDR (host 0 of the expanded allocation), MASTER_PORT.
 * Returns 0, or -1 with err set (unparsable nodelist, a node that is in no
 * supernode, this node not in the allocation, no usable port); env is then
 * empty.
 */
int sn_jobenv_build(const struct sn_config *cfg,
		    const struct sn_jobenv_input *in, struct sn_jobenv *env,
		    struct sn_error *err);

/* sn_jobenv_free - release the values; NULL-safe. */
void sn_jobenv_free(struct sn_jobenv *env);

/*
 * sn_master_port - the rendezvous port of a job: element (job_id mod k) of
 * the k ports in [lo, hi] that lie outside the ephemeral range
 * [eph_lo, eph_hi], so consecutive jobs get different ports and none
 * collides with the kernel's outgoing ports.  Returns 0 if k is 0.
 */
uint16_t sn_master_port(uint32_t job_id, uint16_t lo, uint16_t hi,
			uint16_t eph_lo, uint16_t eph_hi);

/*
 * sn_ephemeral_range_read - parse ip_local_port_range ("32768\t60999").
 * Returns 0, or -1 with err set (unreadable or malformed).
 */
int sn_ephemeral_range_read(const char *path, uint16_t *lo, uint16_t *hi,
			    struct sn_error *err);

#endif
