/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Remote context, per task: NCCL_*, UCX_NET_DEVICES, GLOO/HCCL, the
 * PyTorch ranks and, where Slurm bound no GPU, CUDA_VISIBLE_DEVICES with
 * CUDA_DEVICE_ORDER (lib/env/taskenv.c computes, lib/env/ownership.c
 * decides).
 * task_env_prepare() runs once per step before the tasks are forked, so
 * they inherit what it read (hwloc at most once per step); task_env_set()
 * runs in each task just before exec.  Nothing here fails a task.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sn_vendor.h"
#include "util/sn_hostlist.h"
#include "sn_spank.h"

/* Does the job hold its own value of name (one we may not replace)? */
static bool jobs_own(spank_t sp, const char *marker, const char *name)
{
	struct sn_envbuf eb = { 0 };
	bool own = sn_ownership_users(sn_state.cfg, marker, name,
				      job_getenv(sp, name, &eb));

	sn_envbuf_free(&eb);
	return own;
}

/* Whether the step holds a GPU binding: the job's CUDA_* or Slurm's GRES. */
static bool job_bound(spank_t sp, const char *marker)
{
	struct sn_envbuf a = { 0 }, b = { 0 };
	bool bound = jobs_own(sp, marker, "CUDA_VISIBLE_DEVICES") ||
		     jobs_own(sp, marker, "CUDA_DEVICE_ORDER") ||
		     job_getenv(sp, "SLURM_STEP_GPUS", &a) ||
		     job_getenv(sp, "SLURM_JOB_GPUS", &b);

	sn_envbuf_free(&a);
	sn_envbuf_free(&b);
	return bound;
}

/* What this step needs the topology for (sn_taskenv_wants_topo). */
static unsigned step_wants_topo(spank_t sp)
{
	struct sn_envbuf marker_buf = { 0 };
	const char *marker = job_fact(sp, SN_ENVMARK_VAR, &marker_buf);
	unsigned want;

	marker = marker ? marker : "";
	want = sn_taskenv_wants_topo(
		sn_state.cfg, job_is_batch(sp),
		jobs_own(sp, marker, "UCX_NET_DEVICES"),
		jobs_own(sp, marker, sn_taskenv_visible_name(sn_state.cfg)),
		job_bound(sp, marker));
	sn_envbuf_free(&marker_buf);
	return want;
}

/* The job's topology file (NCCL_TOPO_FILE, ...) against this node. */
static void topo_file_check(spank_t sp)
{
	const char *var =
		sn_vendor_of(sn_state.cfg->node.accel.vendor)->topo_var;
	struct sn_envbuf eb = { 0 };
	const char *user = var ? job_getenv(sp, var, &eb) : NULL;
	uid_t uid = 0;
	long owner = 0; /* the job's user unknown: root's files only */

	if (user == sn_env_unread)
		user = NULL;
	if (spank_get_item(sp, S_JOB_UID, &uid) == ESPANK_SUCCESS)
		owner = (long)uid;
	if (sn_taskenv_topo_file_check(sn_state.cfg, user, owner,
				       &sn_state.task_node) > 0)
		slurm_info("%s: %s", SN_PLUGIN,
			   sn_state.task_node.topo_file_note);
	sn_envbuf_free(&eb);
}

/*
 * The node snapshot through the job's cache (sn_taskenv_cache.h): read
 * when the prolog or an earlier step of the job wrote it, else gathered
 * and written for the next steps.  A cache refused is said once, here.
 */
static enum sn_taskenv_ready node_prepare(spank_t sp, const char *self,
					  struct sn_error *err)
{
	struct sn_taskenv_cache_key key = { 0 };
	enum sn_taskenv_ready rc;
	bool keyed;

	keyed = spank_get_item(sp, S_JOB_ID, &key.job_id) == ESPANK_SUCCESS &&
		key.job_id;
	snprintf(key.node, sizeof(key.node), "%s", self);
	key.config_stamp = config_stamp();
	key.boot_stamp = sn_taskenv_boot_stamp();
	rc = sn_taskenv_node_prepare_cached(
		sn_state.cfg, self, step_wants_topo(sp), keyed ? &key : NULL,
		&sn_state.task_node, &sn_state.task_cache, err);
	if (sn_state.task_cache.note[0])
		slurm_info("%s: %s", SN_PLUGIN, sn_state.task_cache.note);
	else if (sn_state.task_cache.hit)
		slurm_debug(
			"%s: node facts from the job's cache (written by the %s)",
			SN_PLUGIN, sn_state.task_cache.writer);
	return rc;
}

int task_env_prepare(spank_t sp)
{
	struct sn_envbuf nodelist_buf = { 0 };
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
	switch (node_prepare(sp, self, &err)) {
	case SN_TASKENV_UNREAD:
		slurm_error("%s: per-task environment not set: %s", SN_PLUGIN,
			    err.msg);
		return 0;
	case SN_TASKENV_NO_PORTS:
		slurm_error("%s: %s", SN_PLUGIN, err.msg);
		break;
	case SN_TASKENV_NO_TOPO:
		slurm_info("%s: %s", SN_PLUGIN, err.msg);
		break;
	default:
		break;
	}
	topo_file_check(sp);
	sn_state.task_env_ready = 1;
	return 0;
}

/* What --supernode-env=show says: stderr, the task's output. */
static void show_print(char *text)
{
	fputs(text ? text : SN_TASKENV_SHOW "out of memory\n", stderr);
	free(text);
}

/* SUPERNODE_* and MASTER_* as remote.c left them. */
static const char *const *step_values(spank_t sp)
{
	static struct sn_envbuf eb[SN_OWNERSHIP_STEP_VARS]; /* until exec */
	static const char *cur[SN_OWNERSHIP_STEP_VARS];

	for (size_t i = 0; i < SN_OWNERSHIP_STEP_VARS; i++)
		cur[i] = job_getenv(sp, sn_ownership_step_vars[i][0], &eb[i]);
	return cur;
}

/* The task's own facts; strings borrowed from static buffers until exec. */
static void task_facts(spank_t sp, const char *marker,
		       struct sn_taskenv_task *t)
{
	static struct sn_envbuf visible, step_gpus, job_gpus, order;
	const struct sn_config *cfg = sn_state.cfg;

	memset(t, 0, sizeof(*t));
	spank_get_item(sp, S_TASK_GLOBAL_ID, &t->global_rank);
	spank_get_item(sp, S_TASK_ID, &t->local_rank);
	spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &t->world_size);
	spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &t->local_size);
	t->batch = job_is_batch(sp);
	t->visible_name = sn_taskenv_visible_name(cfg);
	t->visible = sn_taskenv_visible_pick(
		cfg, marker, job_getenv(sp, t->visible_name, &visible),
		jobs_own(sp, marker, t->visible_name));
	t->step_gpus = job_fact(sp, "SLURM_STEP_GPUS", &step_gpus);
	t->job_gpus = job_fact(sp, "SLURM_JOB_GPUS", &job_gpus);
	t->device_order = sn_taskenv_job_value(
		marker, "CUDA_DEVICE_ORDER",
		job_getenv(sp, "CUDA_DEVICE_ORDER", &order));
}

/* --supernode-env=show: where the config came from. */
static void config_show(const char *node)
{
	fprintf(stderr, SN_TASKENV_SHOW "%s: config: %s %s\n", node,
		sn_state.cfg_of_job ? "the job's, cut from" : "the whole file",
		sn_state.cfg->path);
}

/* --supernode-env=show: where the node facts came from. */
static void cache_show(const char *node)
{
	const struct sn_taskenv_cache_use *u = &sn_state.task_cache;
	char ports[64];

	if (u->hit) {
		fprintf(stderr,
			SN_TASKENV_SHOW
			"%s: node facts: from the job's cache (written by the %s)\n",
			node, u->writer);
		return;
	}
	if (!u->topo_hit) {
		fprintf(stderr,
			SN_TASKENV_SHOW
			"%s: node facts: gathered by this step%s%s\n",
			node,
			u->topo_written ?
				" (the node's topology file written)" :
				"",
			u->written ? " (the job's cache written)" : "");
		return;
	}
	if (u->ports_hit)
		snprintf(ports, sizeof(ports),
			 "from the job's cache (written by the %s)", u->writer);
	else
		snprintf(ports, sizeof(ports), "gathered by this step");
	fprintf(stderr,
		SN_TASKENV_SHOW
		"%s: node facts: the ports %s, the topology from the node's topology file%s\n",
		node, ports, u->written ? " (the job's cache written)" : "");
}

void task_refusal_print(spank_t sp)
{
	uint32_t local_rank = 0;

	if (!sn_state.step_refused.msg[0] ||
	    spank_get_item(sp, S_TASK_ID, &local_rank) != ESPANK_SUCCESS ||
	    local_rank)
		return;
	fprintf(stderr, "%s: %s\n", SN_PLUGIN, sn_state.step_refused.msg);
	fflush(stderr);
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
	show = sn_taskenv_shows(sn_state.env_mode, &task);
	node = job_fact(sp, "SLURMD_NODENAME", &node_buf);
	node = node ? node : "?";
	if (show) {
		show_print(sn_taskenv_show_head(node, &task, env.accels_why,
						marker, step_values(sp)));
		config_show(node);
		cache_show(node);
	}
	env_write(sp, marker, v, env.count);
	if (show)
		show_print(sn_taskenv_show_vars(node, task.local_rank, v,
						env.count));
	/* notes: all of them in show; warnings by task 0 of each node */
	if (show || task.local_rank == 0)
		show_print(sn_taskenv_show_notes(node, task.local_rank, &env,
						 show));
	sn_taskenv_free(&env);
	fflush(stderr);
	return 0;
}
