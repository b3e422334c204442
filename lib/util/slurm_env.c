/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The job and the node as Slurm describes them to our programs
 * (sn_slurm_env.h): one reader, so the prolog, the epilog and supernodectl
 * agree on the job id's range, on "is it a --supernode job" and on %h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sn_number.h"
#include "util/sn_slurm_env.h"

bool sn_slurm_env_supernode(void)
{
	const char *s = getenv(SN_ENV_SUPERNODE);

	return s && *s;
}

int sn_slurm_env_job(struct sn_slurm_job *job)
{
	const char *s = getenv(SN_ENV_JOB_ID), *r;
	long long v;

	memset(job, 0, sizeof(*job));
	job->node = getenv(SN_ENV_NODENAME);
	if (job->node && !*job->node)
		job->node = NULL;
	job->supernode = sn_slurm_env_supernode();
	r = getenv(SN_ENV_RESTART_COUNT);
	if (r && sn_number_parse(r, &v) && v >= 0 &&
	    v <= SN_RESTART_COUNT_MAX) {
		job->has_restart_count = true;
		job->restart_count = (uint32_t)v;
	}
	if (!s || !sn_number_parse(s, &v) || v < 1 || v > SN_JOB_ID_MAX)
		return -1;
	job->id = (uint32_t)v;
	return 0;
}

char *sn_slurm_env_host(char *buf, size_t size)
{
	char host[256];

	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	host[strcspn(host, ".")] = '\0';
	if (!host[0] || strlen(host) >= size)
		snprintf(buf, size, "%s", "localhost");
	else
		memcpy(buf, host, strlen(host) + 1);
	return buf;
}
