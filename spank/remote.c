/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Remote context (slurmstepd, every step including the batch step), once
 * per step and node: the SUPERNODE_* and MASTER_* variables of this node
 * (lib/env/jobenv.c computes them), each written where the ownership rule
 * (lib/env/ownership.c) says so.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "sn_spank.h"
#include "env/sn_attempt.h"
#include "util/sn_hostlist.h"
#include "util/sn_slurm_env.h"

/*
 * MASTER_ADDR's address: the NodeAddr that slurmstepd itself holds for a
 * NodeName, from slurm.conf (and, from 23.02, the addresses slurmctld sent
 * with the step for cloud and dynamic nodes): Slurm's
 * slurm_conf_get_address(), which every mpi plugin uses in slurmstepd.  It
 * reads memory (or slurm.conf once), never the network or DNS, so it cannot
 * stall the step; slurm_load_node() would be one RPC to slurmctld per node
 * and step.  It is not in Slurm's public headers, so it is looked up in the
 * daemon (dlsym): where a release lacks it, MASTER_ADDR stays the node's
 * name and the step's log says so.
 */
static int node_addr(void *ctx, const char *node, char *out, size_t size,
		     struct sn_error *why)
{
	char *(*get_address)(const char *) = (char *(*)(const char *))dlsym(
		RTLD_DEFAULT, "slurm_conf_get_address");
	void (*xfree)(void **) =
		(void (*)(void **))dlsym(RTLD_DEFAULT, "slurm_xfree");
	char *addr;
	int n;

	(void)ctx;
	if (!get_address || !xfree) {
		sn_error_set(why,
			     "slurm_conf_get_address not in this slurmstepd");
		return -1;
	}
	addr = get_address(node);
	if (!addr || !*addr) {
		sn_error_set(why, "slurm.conf gives %s no NodeAddr", node);
		xfree((void **)&addr);
		return -1;
	}
	n = snprintf(out, size, "%s", addr);
	xfree((void **)&addr);
	if (n < 0 || (size_t)n >= size) {
		sn_error_set(why, "its NodeAddr is longer than %zu bytes",
			     size);
		return -1;
	}
	return 0;
}

/*
 * The restart count supernode-prolog left on this node (sn_attempt.h):
 * slurmstepd's own SPANK item reads 0 after a requeue, and the job's
 * SLURM_RESTART_COUNT is the submitter's on a first run.
 */
static void attempt_read(const char *self, struct sn_jobenv_input *in)
{
	char host[SN_HOST_NAME_SIZE], dir[PATH_MAX];
	struct sn_error err;
	int rc;

	sn_slurm_env_host(host, sizeof(host));
	if (sn_path_expand(sn_state.cfg->state_dir, self, host, dir,
			   sizeof(dir)))
		return;
	rc = sn_attempt_load(dir, in->job_id, &in->restart_count, &err);
	if (rc < 0) /* a file there we do not trust: the job should know */
		slurm_error("%s: %s not set: %s", SN_PLUGIN, SN_ATTEMPT_VAR,
			    err.msg);
	else if (rc > 0) /* slurmd's log only: no Prolog= of ours here */
		slurm_info(
			"%s: %s not set: supernode-prolog left no restart count for job %u on %s (is Prolog= ours?)",
			SN_PLUGIN, SN_ATTEMPT_VAR, in->job_id, self);
	in->has_restart_count = rc == 0;
}

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

/*
 * What slurmstepd knows about the step; 0, or -1 with err set.  in's
 * step_nodelist lives in step_buf.
 */
static int step_input(spank_t sp, const char *job_nodelist, char *self,
		      struct sn_jobenv_input *in, struct sn_envbuf *step_buf,
		      struct sn_error *err)
{
	if (spank_get_item(sp, S_JOB_STEPID, &in->step_id) != ESPANK_SUCCESS) {
		sn_error_set(err, "cannot read the step id");
		return -1;
	}
	in->batch = job_is_batch(sp);
	in->step_nodelist = job_getenv(sp, "SLURM_STEP_NODELIST", step_buf);
	in->addr_of = node_addr;
	if (sn_jobenv_ephemeral(SN_EPHEMERAL_PATH, in, err))
		slurm_info("%s: %s", SN_PLUGIN, err->msg);
	in->job_nodelist = job_nodelist;
	in->nodename = self;
	attempt_read(self, in);
	return 0;
}

/* Why MASTER_PORT or MASTER_ADDR is unset, or MASTER_ADDR a name. */
static void notes_log(const struct sn_jobenv *env)
{
	for (size_t i = 0; i < env->n_notes; i++)
		slurm_error("%s: %s", SN_PLUGIN, env->notes[i].msg);
}

int remote_env_set(spank_t sp)
{
	struct sn_envbuf nodelist_buf = { 0 }, step_buf = { 0 };
	struct sn_jobenv_input in = { 0 };
	struct sn_jobenv env = { 0 };
	const char *job_nodelist;
	struct sn_error err;
	char self[SN_HOST_NAME_SIZE];

	if (!(job_nodelist =
		      job_fact(sp, "SLURM_JOB_NODELIST", &nodelist_buf))) {
		slurm_error(
			"%s: SLURM_JOB_NODELIST is not set or not readable: job environment not set",
			SN_PLUGIN);
		sn_envbuf_free(&nodelist_buf);
		return 0;
	}
	if (self_name(sp, job_nodelist, self, sizeof(self), &err))
		goto fail;
	if (spank_get_item(sp, S_JOB_ID, &in.job_id) != ESPANK_SUCCESS) {
		sn_error_set(&err, "cannot read the job id");
		goto fail;
	}
	if (!config_get_job(in.job_id, self)) {
		slurm_error("%s: job environment not set: %s", SN_PLUGIN,
			    sn_state.cfg_err.msg);
		sn_envbuf_free(&nodelist_buf);
		return 0;
	}
	job_config_save(in.job_id, self, job_nodelist);
	if (step_input(sp, job_nodelist, self, &in, &step_buf, &err) ||
	    sn_jobenv_build(sn_state.cfg, &in, &env, &err))
		goto fail;
	notes_log(&env);
	env_apply(sp, &env);
	sn_jobenv_free(&env);
	sn_envbuf_free(&nodelist_buf);
	sn_envbuf_free(&step_buf);
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
	sn_envbuf_free(&step_buf);
	return 0;
}
