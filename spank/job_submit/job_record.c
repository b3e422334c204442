/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reads slurmctld's job record for job_modify().  Built only against the
 * configured headers of the Slurm release the plugin is for (cmake checks
 * that their version is the one of slurm_version.h, and their Debian
 * revision the installed slurmctld's; slurmctld loads only a plugin of its
 * own exact release, major.minor.micro).  Two builds of one version may
 * still differ (a tarball against a Debian package with backports): both
 * magic cookies are checked at run time before any field is trusted.
 * Field names are the same 22.05 to 26.05:
 * job_record_t moved from src/slurmctld/slurmctld.h to
 * src/common/job_record.h in 23.11, which slurmctld.h still includes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/slurmctld/slurmctld.h"

#include "job_record.h"
#include "placement/sn_option.h"
#include "placement/sn_placement.h"
#include "util/sn_slurm.h"

enum sn_job_record sn_job_record_shape(const void *job_ptr,
				       struct sn_job_shape *shape,
				       const char **supernodes)
{
	const job_record_t *job = job_ptr;
	const char *value;

	if (!job)
		return SN_JOB_RECORD_NOT_OURS;
	if (job->magic != JOB_MAGIC)
		return SN_JOB_RECORD_LAYOUT;
	if (!job->details)
		return SN_JOB_RECORD_NOT_OURS;
	if (job->details->magic != DETAILS_MAGIC)
		return SN_JOB_RECORD_LAYOUT;
	value = sn_option_env_value(job->spank_job_env, job->spank_job_env_size,
				    "SUPERNODE");
	if (!value)
		return SN_JOB_RECORD_NOT_OURS;
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
	return SN_JOB_RECORD_OURS;
}

/*
 * slurmctld's partition table.  Weak: a slurmctld without these symbols
 * (none known, 22.05 to 26.05) leaves them NULL and the check off, where a
 * strong reference would stop the plugin, and slurmctld, from loading.
 */
#pragma weak find_part_record
#pragma weak default_part_loc

/* One partition record, checked by its magic cookie; NULL if unreadable. */
static const part_record_t *part_get(char *name)
{
	const part_record_t *part;

	if (name)
		part = find_part_record ? find_part_record(name) : NULL;
	else
		part = &default_part_loc ? default_part_loc : NULL;
	return part && part->magic == PART_MAGIC ? part : NULL;
}

bool sn_job_record_part_forced(const char *partitions, char *name, size_t size,
			       uint16_t *max_share)
{
	char *copy = partitions ? strdup(partitions) : NULL, *save = NULL;
	const part_record_t *part = NULL;
	bool forced = false;

	if (!partitions) {
		part = part_get(NULL);
		forced = part && (part->max_share & SHARED_FORCE);
	}
	for (char *p = copy ? strtok_r(copy, ",", &save) : NULL; p && !forced;
	     p = strtok_r(NULL, ",", &save)) {
		part = part_get(p);
		forced = part && (part->max_share & SHARED_FORCE);
	}
	if (forced) {
		snprintf(name, size, "%s", part->name ? part->name : "?");
		*max_share = part->max_share;
	}
	free(copy);
	return forced;
}
