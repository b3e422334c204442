/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_ATTEMPT_H
#define SN_ATTEMPT_H

/*
 * Which attempt of a job a step belongs to (SUPERNODE_ATTEMPT = Slurm's
 * restart count + 1).  slurmstepd has no trusted source of its own on any
 * release we support: the SPANK item S_SLURM_RESTART_COUNT reads a field
 * slurmstepd never fills (0 after a requeue, measured on 22.05.8; the same
 * code in 26.05.3's spank.c and slurmstepd_job.c), and SLURM_RESTART_COUNT
 * in the job's environment is Slurm's only in the batch task of a restarted
 * job (a first run inherits whatever the submitter had).  The job's
 * credential carries the count to the prolog (SLURM_JOB_RESTART_COUNT), so
 * supernode-prolog, as root, leaves it in state_dir/attempt/<jobid>, the
 * SPANK plugin reads it there in slurmstepd (root), and the epilog removes
 * it.  The file is this node's, root's, in a trusted folder (sn_safedir).
 */
#include <stddef.h>
#include <stdint.h>

#include "util/sn_error.h"

#define SN_ATTEMPT_VAR "SUPERNODE_ATTEMPT"
#define SN_ATTEMPT_DIR "attempt" /* in paths.state_dir */
#define SN_ATTEMPT_FILE_MAX 32	 /* bytes of the file */

/*
 * sn_attempt_save - write "<restart_count>\n" to
 * state_dir/attempt/<job_id> (folders created 0700, file 0600, atomic).
 * Returns 0, or -1 with err set.
 */
int sn_attempt_save(const char *state_dir, uint32_t job_id,
		    uint32_t restart_count, struct sn_error *err);

/*
 * sn_attempt_load - the restart count sn_attempt_save() left for job_id
 * into *restart_count (0..SN_RESTART_COUNT_MAX).  Returns 0; 1 when there
 * is no such file (no prolog of ours ran for the job on this node); -1
 * with err set when it is untrusted (a link, another owner) or not
 * "<number>\n".
 */
int sn_attempt_load(const char *state_dir, uint32_t job_id,
		    uint32_t *restart_count, struct sn_error *err);

/*
 * sn_attempt_failed_save - the prolog failed this attempt on this node:
 * its drain reason (one line, at most SN_ATTEMPT_REASON_MAX bytes kept)
 * into state_dir/attempt/<job_id>.failed, for the epilog's record.
 * Returns 0, or -1 with err set.
 */
#define SN_ATTEMPT_REASON_MAX 256
int sn_attempt_failed_save(const char *state_dir, uint32_t job_id,
			   const char *reason, struct sn_error *err);

/*
 * sn_attempt_failed_load - the reason sn_attempt_failed_save() left into
 * buf (size bytes, cut to fit, no newline).  Returns 0, or -1 when there
 * is none or it is untrusted (buf then empty).
 */
int sn_attempt_failed_load(const char *state_dir, uint32_t job_id, char *buf,
			   size_t size);

/*
 * sn_attempt_remove - remove state_dir/attempt/<job_id> and <job_id>.failed;
 * 0 also when they are not there, -1 with err set when one cannot be
 * removed.
 */
int sn_attempt_remove(const char *state_dir, uint32_t job_id,
		      struct sn_error *err);

#endif
