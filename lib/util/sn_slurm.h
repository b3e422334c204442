/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one place where Slurm releases differ for this tree: every
 * SLURM_VERSION_NUMBER test lives here, as a type, a 0/1 constant or an
 * inline helper; the code that uses them has no #if.  Built and checked
 * against 22.05 (Debian 12, linked) and the public headers of 23.02 to
 * 26.05 (tests/compat/compile_all, compiled with warnings as errors).
 * Facts and sources: ../shared/reference/slurm-internals.md section 8.2.
 *
 * Include it instead of <slurm/slurm.h>.
 */
#ifndef SN_SLURM_H
#define SN_SLURM_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#define SN_SLURM_AT_LEAST(maj, min) \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(maj, min, 0))

/*
 * What every slurm_hostlist_* function takes: up to 23.02 hostlist_t is
 * itself a pointer typedef; from 23.11 hostlist_t is the struct and the
 * functions take hostlist_t *.
 */
#if SN_SLURM_AT_LEAST(23, 11)
typedef hostlist_t *sn_slurm_hostlist;
#else
typedef hostlist_t sn_slurm_hostlist;
#endif

/*
 * Exported by libslurm and libslurmfull in every release from 22.05 to
 * 26.05 (strong_alias in src/common/hostlist.c) but not declared in
 * slurm.h.  It takes the last host, O(1); the caller free()s it.
 */
extern char *slurm_hostlist_pop(sn_slurm_hostlist hl);

/*
 * slurm_get_errno() is gone from 24.11.  libslurm sets errno itself in
 * every release: read errno (slurm_strerror(errno)).  Poisoned, so a use
 * fails on 22.05 too, not only on the releases that lack it.
 */
#pragma GCC poison slurm_get_errno

/*
 * job_desc_msg_t's job id: job_desc->job_id up to 25.05, gone from 25.11
 * (job_desc->step_id.job_id).  NO_VAL when the user asked for none.
 */
static inline uint32_t sn_slurm_job_desc_id(const job_desc_msg_t *job_desc)
{
#if SN_SLURM_AT_LEAST(25, 11)
	return job_desc->step_id.job_id;
#else
	return job_desc->job_id;
#endif
}

/* Sets job_desc_msg_t's job id (see sn_slurm_job_desc_id). */
static inline void sn_slurm_job_desc_id_set(job_desc_msg_t *job_desc,
					    uint32_t job_id)
{
#if SN_SLURM_AT_LEAST(25, 11)
	job_desc->step_id.job_id = job_id;
#else
	job_desc->job_id = job_id;
#endif
}

/*
 * slurm_load_job() of one job by its number: from 26.05 it takes a
 * slurm_step_id_t (the job's id, no step, no SLUID).  Free *resp with
 * slurm_free_job_info_msg.  0, or -1 with errno set.
 */
static inline int sn_slurm_load_job(job_info_msg_t **resp, uint32_t job_id,
				    uint16_t show_flags)
{
#if SN_SLURM_AT_LEAST(26, 5)
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_load_job(resp, id, show_flags);
#else
	return slurm_load_job(resp, job_id, show_flags);
#endif
}

/*
 * topology/block's segments (job_desc->segment_size) and
 * --exclusive=topo (JOB_SHARED_TOPO): Slurm 24.05.
 */
#define SN_SLURM_HAS_SEGMENT SN_SLURM_AT_LEAST(24, 5)

/*
 * 1 where slurmctld refuses a job with fewer tasks than nodes, batch jobs
 * too ("Task count specification invalid": _job_create's num_tasks <
 * min_nodes check, new in 26.05); 0 where it takes them (22.05 to 25.11).
 */
#define SN_SLURM_FEW_TASKS_REFUSED SN_SLURM_AT_LEAST(26, 5)

/* Slurm's JOB_SHARED_TOPO (job_desc->shared = --exclusive=topo). */
#define SN_SLURM_SHARED_TOPO 0x0004
#ifdef JOB_SHARED_TOPO
_Static_assert(JOB_SHARED_TOPO == SN_SLURM_SHARED_TOPO,
	       "Slurm's JOB_SHARED_TOPO changed");
#endif

/*
 * Sets job_desc->segment_size (topology/block's --segment, nodes) where
 * Slurm has it; returns false where it does not (before 24.05).
 */
static inline bool sn_slurm_job_desc_segment_set(job_desc_msg_t *job_desc,
						 uint16_t nodes)
{
#if SN_SLURM_HAS_SEGMENT
	job_desc->segment_size = nodes;
	return true;
#else
	(void)job_desc;
	(void)nodes;
	return false;
#endif
}

/* job_desc->segment_size where Slurm has it (0: not given, or no segments). */
static inline uint16_t
sn_slurm_job_desc_segment_get(const job_desc_msg_t *job_desc)
{
#if SN_SLURM_HAS_SEGMENT
	return job_desc->segment_size;
#else
	(void)job_desc;
	return 0;
#endif
}

/* topology.yaml (several topologies, one per partition): Slurm 25.05. */
#define SN_SLURM_HAS_TOPOLOGY_YAML SN_SLURM_AT_LEAST(25, 5)

/*
 * topology/tree's switch records (record_count, topo_array of a
 * slurm_load_topo() reply) are filled only up to 23.02: from 23.11 the
 * reply carries the topology plugin's own data (record_count stays 0), and
 * from 25.05 the fields are gone and slurm_load_topo takes a topology name.
 * That plugin loads only into slurmctld and scontrol (libslurmfull), not
 * into a libslurm client (undefined node_record_table_ptr, slurm_conf,
 * 24.11's topo_conf): supernodectl config check reads the switches from
 * scontrol show topology in every release (sn_cluster_switches_parse).
 *
 * sn_slurm_load_topo - slurm_load_topo() of the default topology; free
 * *resp with slurm_free_topo_info_msg.  0, or -1 with errno set.
 */
static inline int sn_slurm_load_topo(topo_info_response_msg_t **resp)
{
#if SN_SLURM_AT_LEAST(25, 5)
	return slurm_load_topo(resp, NULL);
#else
	return slurm_load_topo(resp);
#endif
}

/*
 * sn_slurm_free_ctl_conf - free what slurm_load_ctl_conf() returned:
 * slurm_free_ctl_conf() up to 25.11, renamed slurm_free_conf() in 26.05.
 */
static inline void sn_slurm_free_ctl_conf(slurm_conf_t *conf)
{
#if SN_SLURM_AT_LEAST(26, 5)
	slurm_free_conf(conf);
#else
	slurm_free_ctl_conf(conf);
#endif
}

/*
 * Slurm's own text of the whole topology (what scontrol show topology
 * prints; topology/tree: one "SwitchName=S Level=L LinkSpeed=N Nodes=H
 * Switches=H" line per switch) into out.  From 23.11 it loads the topology
 * plugin into this process (see above: scontrol's, not libslurm's).
 */
static inline void sn_slurm_topo_print(FILE *out,
				       topo_info_response_msg_t *resp)
{
#if SN_SLURM_AT_LEAST(25, 5)
	slurm_print_topo_info_msg(out, resp, NULL, NULL, 0);
#elif SN_SLURM_AT_LEAST(23, 11)
	slurm_print_topo_info_msg(out, resp, NULL, 0);
#else
	slurm_print_topo_info_msg(out, resp, 0);
#endif
}

/*
 * job_submit's job_modify(): char **err_msg is its 4th argument from
 * 23.02.  Declare it as
 *   int job_modify(job_desc_msg_t *job_desc, void *job_ptr,
 *                  uint32_t submit_uid SN_JOB_MODIFY_ERR_MSG)
 * and use SN_JOB_MODIFY_ERR_MSG_PTR (NULL on 22.05) for the message.
 */
#if SN_SLURM_AT_LEAST(23, 2)
#define SN_JOB_MODIFY_ERR_MSG , char **err_msg
#define SN_JOB_MODIFY_ERR_MSG_PTR err_msg
#else
#define SN_JOB_MODIFY_ERR_MSG
#define SN_JOB_MODIFY_ERR_MSG_PTR ((char **)NULL)
#endif

/*
 * update_node_msg_t.reason_uid is gone in 26.05: slurmctld takes the
 * reason's owner from the caller's credentials in every release, so it is
 * never set here (slurm_init_update_node_msg leaves it NO_VAL before).
 */

/*
 * slurm_requeue() of one job by its number: from 26.05 it takes a
 * slurm_step_id_t, as slurm_load_job.  flags: JOB_REQUEUE_HOLD and the
 * like.  0, or -1 with errno set.
 */
static inline int sn_slurm_requeue(uint32_t job_id, uint32_t flags)
{
#if SN_SLURM_AT_LEAST(26, 5)
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_requeue(id, flags);
#else
	return slurm_requeue(job_id, flags);
#endif
}

/*
 * MaxBatchRequeue (slurm_conf_t.max_batch_requeue): 23.02; before, a
 * hard-coded 5 that counted node-failure requeues only.  1 where Slurm
 * has the setting.
 */
#define SN_SLURM_HAS_MAX_BATCH_REQUEUE SN_SLURM_AT_LEAST(23, 2)

/* conf's MaxBatchRequeue where Slurm has it; dflt before 23.02. */
static inline uint32_t sn_slurm_max_batch_requeue(const slurm_conf_t *conf,
						  uint32_t dflt)
{
#if SN_SLURM_HAS_MAX_BATCH_REQUEUE
	(void)dflt;
	return conf->max_batch_requeue;
#else
	(void)conf;
	return dflt;
#endif
}

/*
 * sbatch --requeue=expedite with SlurmctldParameters=enable_expedited_requeue:
 * 25.11.
 */
#define SN_SLURM_HAS_EXPEDITED_REQUEUE SN_SLURM_AT_LEAST(25, 11)

/*
 * slurm_spank_init_failure_mode and ESPANK_JOB_FAILURE (a SPANK error that
 * fails the job, not the node): 25.05.
 */
#define SN_SLURM_HAS_SPANK_JOB_FAILURE SN_SLURM_AT_LEAST(25, 5)

/*
 * supernode.so's slurm_spank_init_failure_mode: ESPANK_JOB_FAILURE where
 * Slurm reads it (a failing slurm_spank_init then fails the job and drains
 * no node); before 25.05 Slurm never looks the variable up, and a failing
 * init drains the node, so init fails only on the plugstack line, never on
 * what a user sets (spank/README.md).
 */
#if SN_SLURM_HAS_SPANK_JOB_FAILURE
#define SN_SPANK_INIT_FAILURE_MODE ESPANK_JOB_FAILURE
#else
#define SN_SPANK_INIT_FAILURE_MODE 0
#endif

#endif
