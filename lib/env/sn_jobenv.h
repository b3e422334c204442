/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_JOBENV_H
#define SN_JOBENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/sn_config.h"
#include "util/sn_ephemeral.h" /* sn_ephemeral_range_read, SN_EPHEMERAL_PATH */
#include "util/sn_error.h"

#define SN_JOBENV_MAX 16
#define SN_JOBENV_NOTES \
	3 /* why MASTER_ADDR, MASTER_PORT, SUPERNODE_ATTEMPT are less or unset */
/*
 * MASTER_PORT: ports per job.  Step s of a job takes slot (s + 1) mod
 * SN_MASTER_PORT_STEPS of its job's block, the batch and interactive
 * steps slot 0; see sn_master_port().
 */
#define SN_MASTER_PORT_STEPS 16u
/* Slurm's special step ids start here (SLURM_PENDING_STEP - 15 and up). */
#define SN_STEP_SPECIAL_MIN 0xfffffff0u

/* One variable to set in the job step: name and malloc()ed value. */
struct sn_env_var {
	const char *name; /* static string */
	char *value;
};

/*
 * struct sn_jobenv - the variables of one node's step; sn_jobenv_free().
 * notes: why a variable was left unset (MASTER_PORT: no port outside the
 * ephemeral range) or made of less than asked (MASTER_ADDR: the node's
 * name, its address unknown); for the step's log.
 */
struct sn_jobenv {
	struct sn_env_var vars[SN_JOBENV_MAX];
	size_t count;
	struct sn_error notes[SN_JOBENV_NOTES];
	size_t n_notes;
};

/*
 * sn_jobenv_addr_fn - a node's address (its NodeAddr) from its Slurm
 * name, into out (size bytes).  Must not block: no network, no DNS.
 * Returns 0, or -1 with why set (the caller then uses the name).
 */
typedef int (*sn_jobenv_addr_fn)(void *ctx, const char *node, char *out,
				 size_t size, struct sn_error *why);

/*
 * struct sn_jobenv_input - what slurmstepd knows about the step.
 * Strings are borrowed.
 */
struct sn_jobenv_input {
	const char *job_nodelist; /* SLURM_JOB_NODELIST (the allocation) */
	const char *nodename;	  /* SLURMD_NODENAME (this node) */
	/*
	 * SLURM_STEP_NODELIST: NULL (unset: the job's list) or
	 * sn_env_unread; ignored for the batch step, which runs on the job's
	 * first node.
	 */
	const char *step_nodelist;
	bool batch;
	uint32_t job_id;
	uint32_t step_id;      /* S_JOB_STEPID; special ids (batch...) too */
	uint16_t ephemeral_lo; /* kernel's ip_local_port_range */
	uint16_t ephemeral_hi;
	sn_jobenv_addr_fn addr_of; /* NULL: MASTER_ADDR is the node name */
	void *addr_ctx;
	bool has_restart_count; /* the prolog's restart count (sn_attempt.h) */
	uint32_t restart_count; /* SUPERNODE_ATTEMPT is this + 1 */
};

/*
 * Reading one variable of a job's environment, whole.  No fixed size may
 * change what a user set: a value is read into a buffer that grows up to
 * SN_ENV_VALUE_MAX, and a value that still could not be read whole (too
 * long, or the read failed) comes back as sn_env_unread, which every rule
 * treats as the job's own value: never replaced, never unset, even under
 * env.force.
 */
/* Linux's MAX_ARG_STRLEN (32 pages): execve() takes no longer "NAME=value". */
#define SN_ENV_VALUE_MAX (32u * 4096u)
/*
 * The buffer's first size.  Most values are a few bytes; each buffer is a
 * heap chunk of its own, and at 4 KiB every one sat on a page not yet
 * touched: the task's callback took 27 page faults, 13 at 256 (a fault
 * costs 15 us on the 2-core VM of tests/bench, tests/bench/README.md).
 */
#define SN_ENV_VALUE_FIRST 256u

/* What one read of a variable into a buffer of a given size found. */
enum sn_env_get {
	SN_ENV_GET_OK,	    /* the whole value and its NUL are in buf */
	SN_ENV_GET_NOSPACE, /* set, and longer than buf holds */
	SN_ENV_GET_UNSET,   /* not set */
	SN_ENV_GET_ERROR,   /* could not tell */
};

/* Reads name into buf (size bytes), as spank_getenv() does. */
typedef enum sn_env_get (*sn_env_get_fn)(void *ctx, const char *name, char *buf,
					 size_t size);

/* A growable buffer for sn_env_read(); start zeroed, sn_envbuf_free(). */
struct sn_envbuf {
	char *buf;
	size_t cap;
};

/* The value of a variable that is set but could not be read whole. */
extern const char sn_env_unread[];

/*
 * sn_env_read - name's value, read whole through get into eb (grown as
 * needed, up to SN_ENV_VALUE_MAX bytes with the NUL).  Returns eb's
 * buffer (valid until the next read into eb), NULL when the variable is
 * not set, or sn_env_unread when it is set (or may be) but could not be
 * read whole: too long, a failed read, no memory.
 */
const char *sn_env_read(sn_env_get_fn get, void *ctx, const char *name,
			struct sn_envbuf *eb);

/* sn_envbuf_free - release eb's buffer; eb is then empty again. */
void sn_envbuf_free(struct sn_envbuf *eb);

/*
 * sn_jobenv_build - the SUPERNODE_* variables and MASTER_ADDR/MASTER_PORT
 * for this node of the allocation:
 *   SUPERNODE_COUNT, SUPERNODE_NAMES (comma list, allocation order),
 *   SUPERNODE_NAME, SUPERNODE_INDEX, SUPERNODE_SIZE, SUPERNODE_NODE_RANK
 *   (this node's position among its supernode's nodes in the allocation),
 *   MASTER_ADDR: the address (in->addr_of) of the step's first node, the
 *   node of task 0 under Slurm's block and cyclic distributions (the
 *   job's first node for the batch step); its name when addr_of is NULL
 *   or fails, with a note;
 *   MASTER_PORT: sn_master_port() of the job and step; left out, with a
 *   note, when no port of env.master_port_range lies outside the
 *   ephemeral range (the other variables are still set);
 *   SUPERNODE_ATTEMPT: in->restart_count + 1 when in->has_restart_count,
 *   else left out (with a note: no prolog of ours left the count).
 * Returns 0, or -1 with err set (unparsable node list, a node that is in
 * no supernode, this node not in the allocation, no memory); env is then
 * empty.
 */
int sn_jobenv_build(const struct sn_config *cfg,
		    const struct sn_jobenv_input *in, struct sn_jobenv *env,
		    struct sn_error *err);

/*
 * sn_jobenv_self_name - this node's Slurm name in a step (slurmstepd sets
 * SLURMD_NODENAME only later, per task): element @nodeid (S_JOB_NODEID)
 * of @step_nodelist (SLURM_STEP_NODELIST), or of @job_nodelist
 * (SLURM_JOB_NODELIST) when the step has none; the batch step (@batch)
 * runs on the first node of @job_nodelist.  Either list may be NULL (unset)
 * or sn_env_unread.  Returns 0 with out filled, or -1 with err set (the
 * job's list unset or either list not read whole, not a hostlist, nodeid
 * outside it).
 */
int sn_jobenv_self_name(const char *job_nodelist, const char *step_nodelist,
			bool batch, uint32_t nodeid, char *out, size_t size,
			struct sn_error *err);

/*
 * sn_jobenv_ephemeral - the kernel's ephemeral port range, read from path
 * (SN_EPHEMERAL_PATH), into in->ephemeral_lo/hi: 0.  When it cannot be
 * read, Linux's default 32768-60999 (kept clear of rather than guessing
 * nothing) and -1 with err "WHY; assuming 32768-60999".
 */
int sn_jobenv_ephemeral(const char *path, struct sn_jobenv_input *in,
			struct sn_error *err);

/* sn_jobenv_free - release the values; NULL-safe. */
void sn_jobenv_free(struct sn_jobenv *env);

/*
 * sn_master_port - the rendezvous port of a job's step, among the k ports
 * of [lo, hi] that lie outside the ephemeral range [eph_lo, eph_hi] (in
 * order, those below it first).  The k ports are cut into blocks of
 * S = min(SN_MASTER_PORT_STEPS, k); job j takes block (j mod (k / S)), and
 * its step s slot ((s + 1) mod S) of it, the special steps (batch,
 * interactive, extern: step_id >= SN_STEP_SPECIAL_MIN) slot 0:
 *   index = (j mod (k / S)) * S + slot.
 * So the concurrent steps of a job get different ports (up to S of them:
 * steps s and s + S share one), and so do jobs that share a node unless
 * their ids are equal modulo k / S (625 for the default 10000 ports).
 * Every node of a step computes the same port.  Returns 0 if k is 0.
 */
uint16_t sn_master_port(uint32_t job_id, uint32_t step_id, uint16_t lo,
			uint16_t hi, uint16_t eph_lo, uint16_t eph_hi);

#endif
