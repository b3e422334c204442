/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Remote context, per task: NCCL_*, UCX_NET_DEVICES, GLOO/HCCL and the
 * PyTorch ranks.  lib/env/taskenv.c computes them, lib/env/ownership.c
 * decides what may be written; this file reads, asks and writes.
 *
 *  - slurm_spank_user_init (slurmstepd, once per step and node, before the
 *    tasks are forked): task_env_prepare() reads this node's RDMA ports
 *    and, only when some task will need nearest NICs, the topology, in a
 *    child process killed after SN_TASKENV_GATHER_TIMEOUT_MS.  The forked
 *    tasks inherit the result: hwloc runs at most once per step.
 *  - slurm_spank_task_init (the task's own process, just before exec):
 *    task_env_set() computes the task's variables and writes what the
 *    ownership rule allows.  Nothing here fails the task: what cannot be
 *    known is not set and, with --supernode-env=show, said.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sn_checkctx.h"
#include "util/sn_hostlist.h"
#include "sn_spank.h"

#define SHOW "--supernode-env=show"

/* Does the job hold its own value of name (one we may not replace)? */
static bool jobs_own(spank_t sp, const char *marker, const char *name)
{
	struct sn_envbuf eb = { 0 };
	bool own = sn_ownership_users(sn_state.cfg, marker, name,
				      job_getenv(sp, name, &eb));

	sn_envbuf_free(&eb);
	return own;
}

/* Gather this node's facts for the tasks (in a bounded child). */
static void gather(spank_t sp, const struct sn_check_ctx *ctx)
{
	struct sn_envbuf marker_buf = { 0 };
	const char *marker = job_fact(sp, SN_ENVMARK_VAR, &marker_buf);
	bool want_topo;

	marker = marker ? marker : "";
	want_topo = sn_taskenv_wants_topo(
		sn_state.cfg, job_is_batch(sp),
		jobs_own(sp, marker, "UCX_NET_DEVICES"),
		jobs_own(sp, marker, "ASCEND_RT_VISIBLE_DEVICES"));
	if (sn_taskenv_node_gather_bounded(
		    sn_state.cfg, ctx->sysfs, ctx->hwloc_xml, want_topo,
		    SN_TASKENV_GATHER_TIMEOUT_MS, &sn_state.task_node))
		slurm_error("%s: %s: setting what does not need it", SN_PLUGIN,
			    sn_state.task_node.ports_note);
	else if (want_topo && !sn_state.task_node.topo.valid)
		slurm_info("%s: %s: UCX_NET_DEVICES not set", SN_PLUGIN,
			   sn_state.task_node.topo_note);
	sn_envbuf_free(&marker_buf);
}

int task_env_prepare(spank_t sp)
{
	struct sn_envbuf nodelist_buf = { 0 };
	struct sn_check_ctx *ctx;
	struct sn_error err;
	char self[SN_HOST_NAME_SIZE];
	int rc;

	sn_state.task_env_ready = 0;
	if (!config_get())
		return 0; /* remote.c said why */
	rc = self_name(sp, job_fact(sp, "SLURM_JOB_NODELIST", &nodelist_buf),
		       self, sizeof(self), &err);
	sn_envbuf_free(&nodelist_buf);
	if (rc) {
		slurm_error(
			"%s: per-task environment not set: this node's name is unknown",
			SN_PLUGIN);
		return 0;
	}
	ctx = malloc(sizeof(*ctx));
	if (!ctx || sn_check_ctx_init(ctx, sn_state.cfg, self, &err)) {
		slurm_error("%s: per-task environment not set: %s", SN_PLUGIN,
			    ctx ? err.msg : "out of memory");
		free(ctx);
		return 0;
	}
	gather(sp, ctx);
	free(ctx);
	sn_state.task_env_ready = 1;
	return 0;
}

/* One line of --supernode-env=show about v. */
static void show_line(const char *node, uint32_t rank,
		      const struct sn_ownership_var *v)
{
	char *text = sn_ownership_show(v);

	fprintf(stderr, "%s: " SHOW ": %s: task %u: %s\n", SN_PLUGIN, node,
		rank, text ? text : "out of memory");
	free(text);
}

/* The header, and SUPERNODE_* / MASTER_* as remote.c left them. */
static void show_step(spank_t sp, const char *node, const char *marker,
		      const struct sn_taskenv_task *t, const char *accels_why)
{
	static struct sn_envbuf eb; /* task process: gone at exec */

	fprintf(stderr,
		"%s: " SHOW
		": node %s, task %u of %u on it (rank %u of %u); accelerators: %s\n",
		SN_PLUGIN, node, t->local_rank, t->local_size, t->global_rank,
		t->world_size,
		accels_why[0] ? accels_why : "not looked at (batch script)");
	for (size_t i = 0; i < SN_OWNERSHIP_STEP_VARS; i++) {
		struct sn_ownership_var v = {
			.name = sn_ownership_step_vars[i][0]
		};

		v.cur = job_getenv(sp, v.name, &eb);
		sn_ownership_observe(marker, sn_ownership_step_vars[i][1], &v);
		show_line(node, t->local_rank, &v);
	}
}

/* The task's own facts; strings borrowed from static buffers until exec. */
static void task_facts(spank_t sp, const char *marker,
		       struct sn_taskenv_task *t)
{
	static struct sn_envbuf visible, step_gpus, job_gpus;
	const struct sn_config *cfg = sn_state.cfg;

	memset(t, 0, sizeof(*t));
	spank_get_item(sp, S_TASK_GLOBAL_ID, &t->global_rank);
	spank_get_item(sp, S_TASK_ID, &t->local_rank);
	spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &t->world_size);
	spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &t->local_size);
	t->batch = job_is_batch(sp);
	t->visible_name = sn_taskenv_visible_name(cfg);
	t->visible = sn_taskenv_visible_pick(
		cfg, job_getenv(sp, t->visible_name, &visible),
		jobs_own(sp, marker, t->visible_name));
	t->step_gpus = job_fact(sp, "SLURM_STEP_GPUS", &step_gpus);
	t->job_gpus = job_fact(sp, "SLURM_JOB_GPUS", &job_gpus);
}

int task_env_set(spank_t sp)
{
	/* Task process: the buffers go with the exec that follows. */
	static struct sn_envbuf marker_buf, node_buf, cur[SN_TASKENV_MAX_VARS];
	struct sn_ownership_var v[SN_TASKENV_MAX_VARS] = { { 0 } };
	const char *marker, *node;
	struct sn_taskenv_task task;
	struct sn_taskenv env;
	bool show;

	if (!sn_state.task_env_ready || !sn_state.cfg)
		return 0;
	marker = job_fact(sp, SN_ENVMARK_VAR, &marker_buf);
	marker = marker ? marker : ""; /* not read whole: claims nothing */
	task_facts(sp, marker, &task);
	if (sn_taskenv_build(sn_state.cfg, &sn_state.task_node, &task, &env)) {
		slurm_error("%s: per-task environment not set: out of memory",
			    SN_PLUGIN);
		return 0;
	}
	for (size_t i = 0; i < env.count; i++)
		v[i] = (struct sn_ownership_var){
			.name = env.vars[i].name,
			.value = env.vars[i].value,
			.why = env.vars[i].why,
			.cur = job_getenv(sp, env.vars[i].name, &cur[i]),
		};
	sn_ownership_plan(sn_state.cfg, sn_state.env_mode, marker, v,
			  env.count);
	show = sn_state.env_mode == SN_ENV_SHOW && task.local_rank == 0;
	node = job_fact(sp, "SLURMD_NODENAME", &node_buf);
	node = node ? node : "?";
	if (show)
		show_step(sp, node, marker, &task, env.accels_why);
	env_write(sp, marker, v, env.count);
	for (size_t i = 0; show && i < env.count; i++)
		if (v[i].written || !sn_ownership_writes(&v[i]))
			show_line(node, task.local_rank, &v[i]);
	sn_taskenv_free(&env);
	fflush(stderr);
	return 0;
}
