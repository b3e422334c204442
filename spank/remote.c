/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Remote context (slurmstepd, every step including the batch step), once
 * per step and node: the SUPERNODE_* and MASTER_* variables of this node
 * (lib/env/jobenv.c computes them), each written where the ownership rule
 * (lib/env/ownership.c) says so.
 */
#include "sn_spank.h"
#include "util/sn_hostlist.h"

/* Read each variable, plan, write. */
static void env_apply(spank_t sp, const struct sn_jobenv *env)
{
	struct sn_envbuf marker_buf = { 0 }, cur[SN_JOBENV_MAX] = { { 0 } };
	struct sn_ownership_var v[SN_JOBENV_MAX] = { { 0 } };
	const char *marker = job_fact(sp, SN_ENVMARK_VAR, &marker_buf);

	for (size_t i = 0; i < env->count; i++) {
		v[i].name = env->vars[i].name;
		v[i].value = env->vars[i].value;
		v[i].cur = job_getenv(sp, v[i].name, &cur[i]);
	}
	/* A marker not read whole claims nothing: every value then stays. */
	sn_ownership_plan(sn_state.cfg, sn_state.env_mode, marker ? marker : "",
			  v, env->count);
	env_write(sp, marker ? marker : "", v, env->count);
	for (size_t i = 0; i < env->count; i++)
		sn_envbuf_free(&cur[i]);
	sn_envbuf_free(&marker_buf);
}

/* What slurmstepd knows about the step; 0, or -1 with err set. */
static int step_input(spank_t sp, const char *job_nodelist, char *self,
		      size_t size, struct sn_jobenv_input *in,
		      struct sn_error *err)
{
	if (self_name(sp, job_nodelist, self, size, err))
		return -1;
	if (spank_get_item(sp, S_JOB_ID, &in->job_id) != ESPANK_SUCCESS) {
		sn_error_set(err, "cannot read the job id");
		return -1;
	}
	if (sn_jobenv_ephemeral(SN_EPHEMERAL_PATH, in, err))
		slurm_info("%s: %s", SN_PLUGIN, err->msg);
	in->job_nodelist = job_nodelist;
	in->nodename = self;
	return 0;
}

int remote_env_set(spank_t sp)
{
	struct sn_envbuf nodelist_buf = { 0 };
	struct sn_jobenv_input in = { 0 };
	struct sn_jobenv env = { 0 };
	const char *job_nodelist;
	struct sn_error err;
	char self[SN_HOST_NAME_SIZE];

	if (!config_get()) {
		slurm_error("%s: job environment not set: %s", SN_PLUGIN,
			    sn_state.cfg_err.msg);
		return 0;
	}
	if (!(job_nodelist =
		      job_fact(sp, "SLURM_JOB_NODELIST", &nodelist_buf))) {
		slurm_error(
			"%s: SLURM_JOB_NODELIST is not set or not readable: job environment not set",
			SN_PLUGIN);
		sn_envbuf_free(&nodelist_buf);
		return 0;
	}
	if (step_input(sp, job_nodelist, self, sizeof(self), &in, &err) ||
	    sn_jobenv_build(sn_state.cfg, &in, &env, &err))
		goto fail;
	env_apply(sp, &env);
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
