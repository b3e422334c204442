/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reads slurmctld's job record for job_modify().  Built only against the
 * configured headers of the Slurm release the plugin is for (cmake checks
 * that their version is the one of slurm_version.h; slurmctld loads only a
 * plugin of its own major.minor).  Field names are the same 22.05 to 26.05:
 * job_record_t moved from src/slurmctld/slurmctld.h to
 * src/common/job_record.h in 23.11, which slurmctld.h still includes.
 */
#include "src/slurmctld/slurmctld.h"

#include "job_record.h"
#include "placement/sn_option.h"
#include "placement/sn_placement.h"
#include "util/sn_slurm.h"

bool sn_job_record_shape(const void *job_ptr, struct sn_job_shape *shape,
			 const char **supernodes)
{
	const job_record_t *job = job_ptr;
	const char *value;

	if (!job || job->magic != JOB_MAGIC || !job->details)
		return false;
	value = sn_option_env_value(job->spank_job_env, job->spank_job_env_size,
				    "SUPERNODE");
	if (!value)
		return false;
	*shape = (struct sn_job_shape)
	{
		.min_nodes = job->details->min_nodes,
		.max_nodes = job->details->max_nodes,
		.features = job->details->features,
		.req_nodes = job->details->req_nodes,
		/* job_submit made every --supernode job --exclusive. */
			.shared = SN_SHARED_NONE,
#if SN_SLURM_HAS_SEGMENT
		.segment_size = job->details->segment_size,
#endif
		.req_switch = job->req_switch,
	};
	*supernodes = value;
	return true;
}
