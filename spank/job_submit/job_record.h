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
#include <stddef.h>
#include <stdint.h>

#include "placement/sn_submit.h"

/* What sn_job_record_shape() found. */
enum sn_job_record {
	SN_JOB_RECORD_OURS,	/* a --supernode job: shape filled */
	SN_JOB_RECORD_NOT_OURS, /* NULL, no details, no SUPERNODE= */
	/*
	 * job->magic or job->details->magic is not what the headers say: the
	 * plugin was built with the headers of another build of this Slurm
	 * version (an upstream tarball against a Debian +deb12uN with
	 * backports), so no field of the record can be trusted.
	 */
	SN_JOB_RECORD_LAYOUT,
};

/*
 * sn_job_record_shape - @job_ptr's placement fields into @shape (strings
 * borrowed from the record, valid while slurmctld holds the job lock) and
 * its SUPERNODE= value into *supernodes.  Both magic cookies are checked
 * before any other field is read (JOB_MAGIC, then DETAILS_MAGIC).  Returns
 * SN_JOB_RECORD_OURS with @shape filled; otherwise @shape is untouched.
 */
enum sn_job_record sn_job_record_shape(const void *job_ptr,
				       struct sn_job_shape *shape,
				       const char **supernodes);

/*
 * sn_job_record_part_forced - whether a partition the job may run in
 * (@partitions, job_desc's comma-separated list; NULL: the default
 * partition) has OverSubscribe=FORCE, read from slurmctld's partition
 * records (job_submit runs with them readable; job_submit/lua reads them
 * too).  The first such partition's name goes into @name (@size bytes) and
 * its max_share (SHARED_FORCE | the count) into *max_share.  A partition
 * that is not found is left to slurmctld to refuse.
 */
bool sn_job_record_part_forced(const char *partitions, char *name, size_t size,
			       uint16_t *max_share);

#endif
