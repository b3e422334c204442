/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Remote context (slurmstepd, every step including the batch step): set the
 * SUPERNODE_* and MASTER_* variables of this node, each only where the job
 * has not set it already.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdbool.h>

#include "sn_envmark.h"
#include "sn_hostlist.h"
#include "sn_jobenv.h"
#include "sn_spank.h"

/* Slurm's step id of the batch step (SLURM_BATCH_SCRIPT in slurm.h). */
#define SN_BATCH_STEP 0xfffffffbu

static int job_getenv(spank_t sp, const char *name, char *buf, int size)
{
	return spank_getenv(sp, name, buf, size) == ESPANK_SUCCESS ? 0 : -1;
}

/*
 * This node's Slurm name: element S_JOB_NODEID of the step's node list
 * (slurmstepd sets SLURMD_NODENAME only later, per task).  The batch step
 * runs on the first node of the allocation.
 */
int sn_self_name(spank_t sp, const char *job_nodelist, char *out, size_t size,
		 struct sn_error *err)
{
	static char step_nodelist[65536];
	const char *list = job_nodelist;
	uint32_t stepid = 0, nodeid = 0;
	struct sn_names hosts;

	if (spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NODEID, &nodeid) != ESPANK_SUCCESS) {
		sn_error_set(err, "cannot read the step id or node id");
		return -1;
	}
	if (stepid != SN_BATCH_STEP &&
	    !job_getenv(sp, "SLURM_STEP_NODELIST", step_nodelist,
			sizeof(step_nodelist)))
		list = step_nodelist;
	else if (stepid == SN_BATCH_STEP)
		nodeid = 0;
	if (sn_hostlist_expand(list, SN_HOSTLIST_MAX, &hosts, err))
		return -1;
	if (nodeid >= hosts.count) {
		sn_error_set(err, "node id %u is outside the step's node list", nodeid);
		sn_names_free(&hosts);
		return -1;
	}
	snprintf(out, size, "%s", hosts.names[nodeid]);
	sn_names_free(&hosts);
	return 0;
}

void sn_env_mode_resolve(spank_t sp)
{
	char value[16];
	enum sn_env_mode mode;

	if (sn_state.env_mode_given ||
	    job_getenv(sp, SN_ENV_MODE_VAR, value, sizeof(value)))
		return;
	if (sn_env_mode_parse(value, &mode)) {
		slurm_error("%s: %s=%s: expected auto, none or show; using auto",
			    SN_PLUGIN, SN_ENV_MODE_VAR, value);
		return;
	}
	sn_state.env_mode = mode;
}

char *sn_marker_update(const char *old, const struct sn_jobenv *env,
		       const bool *set, const char *const *names, size_t n)
{
	char *fresh = sn_envmark_build(env, set), *out;

	if (!fresh)
		return NULL;
	out = sn_taskenv_marker_merge(old, names, n, fresh);
	free(fresh);
	return out;
}

/*
 * Set each variable where it is unset, or where it still holds the value
 * an earlier step of ours set (sn_envmark.h); a user's own value stays.
 * The marker keeps the entries of the per-task variables (task_env.c).
 */
static void env_export(spank_t sp, const struct sn_jobenv *env)
{
	static char marker[2048], current[65536];
	bool set[SN_JOBENV_MAX] = { false };
	const char *names[SN_JOBENV_MAX];
	char *new_marker;

	if (job_getenv(sp, SN_ENVMARK_VAR, marker, sizeof(marker)))
		marker[0] = '\0';
	for (size_t i = 0; i < env->count; i++) {
		const char *name = env->vars[i].name;
		spank_err_t rc;

		names[i] = name;
		if (!job_getenv(sp, name, current, sizeof(current)) &&
		    !sn_envmark_owns(marker, name, current))
			continue;	/* the user's own value */
		rc = spank_setenv(sp, name, env->vars[i].value, 1);
		if (rc != ESPANK_SUCCESS)
			slurm_error("%s: cannot set %s: %s", SN_PLUGIN, name,
				    spank_strerror(rc));
		else
			set[i] = true;
	}
	new_marker = sn_marker_update(marker, env, set, names, env->count);
	if (new_marker)
		spank_setenv(sp, SN_ENVMARK_VAR, new_marker, 1);
	free(new_marker);
}

int sn_remote_env_set(spank_t sp)
{
	static char job_nodelist[65536];
	struct sn_jobenv_input in = { 0 };
	struct sn_jobenv env = { 0 };
	struct sn_error err;
	char self[256];

	if (!sn_state.option_given && !job_getenv(sp, "SLURM_SPANK_SUPERNODE",
						   self, sizeof(self)))
		sn_state.option_given = self[0] != '\0';
	if (!sn_state.option_given || sn_state.env_mode == SN_ENV_NONE)
		return 0;	/* without --supernode, or --supernode-env=none */
	if (!sn_config_get()) {
		slurm_error("%s: job environment not set: %s", SN_PLUGIN,
			    sn_state.cfg_err.msg);
		return 0;
	}
	if (job_getenv(sp, "SLURM_JOB_NODELIST", job_nodelist,
		       sizeof(job_nodelist))) {
		slurm_error("%s: SLURM_JOB_NODELIST is not set: job environment not set",
			    SN_PLUGIN);
		return 0;
	}
	if (sn_self_name(sp, job_nodelist, self, sizeof(self), &err))
		goto fail;
	if (spank_get_item(sp, S_JOB_ID, &in.job_id) != ESPANK_SUCCESS) {
		sn_error_set(&err, "cannot read the job id");
		goto fail;
	}
	if (sn_ephemeral_range_read(SN_EPHEMERAL_PATH, &in.ephemeral_lo,
				    &in.ephemeral_hi, &err)) {
		/* Linux's default: keep clear of it rather than guess nothing. */
		slurm_info("%s: %s; assuming 32768-60999", SN_PLUGIN, err.msg);
		in.ephemeral_lo = 32768;
		in.ephemeral_hi = 60999;
	}
	in.job_nodelist = job_nodelist;
	in.nodename = self;
	if (sn_jobenv_build(sn_state.cfg, &in, &env, &err))
		goto fail;
	env_export(sp, &env);
	sn_jobenv_free(&env);
	return 0;
fail:
	/*
	 * Set nothing rather than something made up (an unusable node list
	 * must not yield a MASTER_ADDR), and do not fail the step: a required
	 * plugin failing user_init makes Slurm drain the node, which a
	 * config or name mismatch must never do.
	 */
	slurm_error("%s: job environment not set: %s", SN_PLUGIN, err.msg);
	return 0;
}
