/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_JOB_RECORD_H
#define SN_JOB_RECORD_H

/*
 * The one place that reads slurmctld's job record (job_record_t), whose
 * layout only Slurm's source tree describes: job_record.c is built with
 * the configured headers of the exact Slurm release (contrib/slurm-source,
 * cmake -DSN_SLURM_SOURCE), and only then (SN_HAVE_JOB_RECORD).
 */
#include <stdbool.h>

#include "placement/sn_submit.h"

/*
 * sn_job_record_shape - @job_ptr's placement fields into @shape (strings
 * borrowed from the record, valid while slurmctld holds the job lock) and
 * its SUPERNODE= value into *supernodes.  Returns false when @job_ptr is
 * NULL, not a job record (magic), has no details, or is not a --supernode
 * job; @shape is then untouched.
 */
bool sn_job_record_shape(const void *job_ptr, struct sn_job_shape *shape,
			 const char **supernodes);

#endif
