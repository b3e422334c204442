/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Remote context (slurmstepd, every step including the batch step): set the
 * SUPERNODE_* and MASTER_* variables of this node, each only where the job
 * has not set it already.
 */
/* The one caller of spank_getenv() (sn_spank.h poisons it elsewhere). */
#define SN_SPANK_GETENV_WRAPPER
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/sn_envmark.h"
#include "util/sn_hostlist.h"
#include "env/sn_jobenv.h"
#include "sn_spank.h"

/* Slurm's step id of the batch step (SLURM_BATCH_SCRIPT in slurm.h). */
#define SN_BATCH_STEP 0xfffffffbu

/* spank_getenv() as sn_env_read() wants it. */
static enum sn_env_get spank_get(void *ctx, const char *name, char *buf,
				 size_t size)
{
	spank_err_t rc;

	if (size > INT_MAX)
		size = INT_MAX;
	rc = spank_getenv(ctx, name, buf, (int)size);
	if (rc == ESPANK_SUCCESS)
		return SN_ENV_GET_OK;
	if (rc == ESPANK_NOSPACE)
		return SN_ENV_GET_NOSPACE;	/* set: never "unset" */
	if (rc == ESPANK_ENV_NOEXIST)
		return SN_ENV_GET_UNSET;
	return SN_ENV_GET_ERROR;
}

const char *sn_job_getenv(spank_t sp, const char *name, struct sn_envbuf *eb)
{
	return sn_env_read(spank_get, sp, name, eb);
}

/* A variable we only read (node lists, modes): NULL unless read whole. */
static const char *job_fact(spank_t sp, const char *name,
			    struct sn_envbuf *eb)
{
	const char *v = sn_job_getenv(sp, name, eb);

	return v == sn_env_unread ? NULL : v;
}

/*
 * This node's Slurm name: element S_JOB_NODEID of the step's node list
 * (slurmstepd sets SLURMD_NODENAME only later, per task).  The batch step
 * runs on the first node of the allocation.
 */
int sn_self_name(spank_t sp, const char *job_nodelist, char *out, size_t size,
		 struct sn_error *err)
{
	struct sn_envbuf step_nodelist = { 0 };
	const char *list = job_nodelist, *step;
	uint32_t stepid = 0, nodeid = 0;
	struct sn_names hosts;
	int rc;

	if (spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NODEID, &nodeid) != ESPANK_SUCCESS) {
		sn_error_set(err, "cannot read the step id or node id");
		return -1;
	}
	if (stepid == SN_BATCH_STEP) {
		nodeid = 0;
	} else if ((step = sn_job_getenv(sp, "SLURM_STEP_NODELIST",
					 &step_nodelist))) {
		if (step == sn_env_unread) {
			sn_error_set(err, "SLURM_STEP_NODELIST could not be read");
			sn_envbuf_free(&step_nodelist);
			return -1;
		}
		list = step;
	}
	rc = sn_hostlist_expand(list, SN_HOSTLIST_MAX, &hosts, err);
	sn_envbuf_free(&step_nodelist);
	if (rc)
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
	struct sn_envbuf eb = { 0 };
	const char *value;
	enum sn_env_mode mode;

	if (sn_state.env_mode_given ||
	    !(value = job_fact(sp, SN_ENV_MODE_VAR, &eb)))
		goto out;
	if (sn_env_mode_parse(value, &mode)) {
		slurm_error("%s: %s=%.64s: expected auto, none or show; using auto",
			    SN_PLUGIN, SN_ENV_MODE_VAR, value);
		goto out;
	}
	sn_state.env_mode = mode;
out:
	sn_envbuf_free(&eb);
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
	struct sn_envbuf marker_buf = { 0 }, current = { 0 };
	bool set[SN_JOBENV_MAX] = { false };
	const char *names[SN_JOBENV_MAX];
	const char *marker, *cur;
	char *new_marker;

	/* A marker not read whole claims nothing: every value then stays. */
	if (!(marker = job_fact(sp, SN_ENVMARK_VAR, &marker_buf)))
		marker = "";
	for (size_t i = 0; i < env->count; i++) {
		const char *name = env->vars[i].name;
		spank_err_t rc;

		names[i] = name;
		cur = sn_job_getenv(sp, name, &current);
		if (cur && !sn_envmark_owns(marker, name, cur))
			continue;	/* the user's own value, read or not */
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
	sn_envbuf_free(&marker_buf);
	sn_envbuf_free(&current);
}

int sn_remote_env_set(spank_t sp)
{
	struct sn_envbuf nodelist_buf = { 0 };
	struct sn_jobenv_input in = { 0 };
	struct sn_jobenv env = { 0 };
	const char *job_nodelist, *given;
	struct sn_error err;
	char self[256];

	if (!sn_state.option_given) {
		given = sn_job_getenv(sp, "SLURM_SPANK_SUPERNODE", &nodelist_buf);
		sn_state.option_given = given && *given;
		sn_envbuf_free(&nodelist_buf);
	}
	if (!sn_state.option_given || sn_state.env_mode == SN_ENV_NONE)
		return 0;	/* without --supernode, or --supernode-env=none */
	if (!sn_config_get()) {
		slurm_error("%s: job environment not set: %s", SN_PLUGIN,
			    sn_state.cfg_err.msg);
		return 0;
	}
	if (!(job_nodelist = job_fact(sp, "SLURM_JOB_NODELIST", &nodelist_buf))) {
		slurm_error("%s: SLURM_JOB_NODELIST is not set or not readable: job environment not set",
			    SN_PLUGIN);
		sn_envbuf_free(&nodelist_buf);
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
	sn_envbuf_free(&nodelist_buf);
	return 0;
fail:
	/*
	 * Set nothing rather than something made up (an unusable node list
	 * must not yield a MASTER_ADDR), and do not fail the step: a required
	 * plugin failing user_init makes Slurm drain the node, which a
	 * config or name mismatch must never do.
	 */
	slurm_error("%s: job environment not set: %s", SN_PLUGIN, err.msg);
	sn_envbuf_free(&nodelist_buf);
	return 0;
}
