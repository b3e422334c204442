/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Remote context, per task: NCCL_*, UCX_NET_DEVICES, GLOO/HCCL and the
 * PyTorch ranks (lib/taskenv.c computes them; this file decides what may
 * be written and writes it).
 *
 *  - slurm_spank_user_init (slurmstepd, once per step and node, before the
 *    tasks are forked): sn_task_env_prepare() reads this node's RDMA ports
 *    and, only when some task will need nearest NICs, the topology, in a
 *    child process killed after SN_TASKENV_GATHER_TIMEOUT_MS.  The forked
 *    tasks inherit the result: hwloc runs at most once per step.
 *  - slurm_spank_task_init (the task's own process, just before exec):
 *    sn_task_env_set() computes the task's variables and sets each where
 *    it is unset, or where it still holds the value we set before
 *    (SUPERNODE_ENV_SET), or where env.force names it.  A user's own value
 *    stays.  Nothing here fails the task: what cannot be known is not set
 *    and, with --supernode-env=show, said.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/sn_checkctx.h"
#include "env/sn_envmark.h"
#include "sn_spank.h"

/* Slurm's step id of the batch step (SLURM_BATCH_SCRIPT in slurm.h). */
#define SN_BATCH_STEP 0xfffffffbu
#define SHOW "--supernode-env=show"

/* A variable we only read (node list, marker, GPU lists): NULL unless whole. */
static const char *task_fact(spank_t sp, const char *name,
			     struct sn_envbuf *eb)
{
	const char *v = sn_job_getenv(sp, name, eb);

	return v == sn_env_unread ? NULL : v;
}

static bool forced(const struct sn_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_force; i++)
		if (!strcmp(cfg->force[i], name))
			return true;
	return false;
}

/*
 * Does the job hold its own value of name (one we may not replace)?  A
 * value not read whole is the job's, even under env.force.
 */
static bool user_owned(spank_t sp, const struct sn_config *cfg,
		       const char *marker, const char *name)
{
	struct sn_envbuf eb = { 0 };
	const char *cur = sn_job_getenv(sp, name, &eb);
	bool owned = cur == sn_env_unread ||
		     (cur && !sn_envmark_owns(marker, name, cur) &&
		      !forced(cfg, name));

	sn_envbuf_free(&eb);
	return owned;
}

static bool is_batch(spank_t sp)
{
	uint32_t stepid = 0;

	return spank_get_item(sp, S_JOB_STEPID, &stepid) == ESPANK_SUCCESS &&
	       stepid == SN_BATCH_STEP;
}

int sn_task_env_prepare(spank_t sp)
{
	struct sn_envbuf nodelist_buf = { 0 }, marker_buf = { 0 };
	const char *nodelist, *marker;
	const struct sn_config *cfg;
	struct sn_check_ctx *ctx;
	struct sn_error err;
	char self[256];
	bool want_topo;
	int rc;

	sn_state.task_env_ready = 0;
	if (!sn_state.option_given || sn_state.env_mode == SN_ENV_NONE)
		return 0;
	if (!(cfg = sn_config_get()))
		return 0;	/* remote_env.c said why */
	nodelist = task_fact(sp, "SLURM_JOB_NODELIST", &nodelist_buf);
	rc = !nodelist || sn_self_name(sp, nodelist, self, sizeof(self), &err);
	sn_envbuf_free(&nodelist_buf);
	if (rc) {
		slurm_error("%s: per-task environment not set: this node's name is unknown",
			    SN_PLUGIN);
		return 0;
	}
	ctx = malloc(sizeof(*ctx));
	if (!ctx || sn_check_ctx_init(ctx, cfg, self, &err)) {
		slurm_error("%s: per-task environment not set: %s", SN_PLUGIN,
			    ctx ? err.msg : "out of memory");
		free(ctx);
		return 0;
	}
	/* A marker not read whole claims nothing: every value then stays. */
	if (!(marker = task_fact(sp, SN_ENVMARK_VAR, &marker_buf)))
		marker = "";
	/*
	 * hwloc only when a task will use nearest NICs: not for the batch
	 * script, not when the job set UCX_NET_DEVICES itself (unless the
	 * site forces it); and on Ascend when the node's accelerator count
	 * is needed for ASCEND_RT_VISIBLE_DEVICES and not in the config.
	 */
	want_topo = !is_batch(sp) &&
		    (!user_owned(sp, cfg, marker, "UCX_NET_DEVICES") ||
		     (cfg->node.accel.vendor == SN_ACCEL_ASCEND &&
		      !cfg->node.accel.count &&
		      !user_owned(sp, cfg, marker, "ASCEND_RT_VISIBLE_DEVICES")));
	if (sn_taskenv_node_gather_bounded(cfg, ctx->sysfs, ctx->hwloc_xml,
					   want_topo,
					   SN_TASKENV_GATHER_TIMEOUT_MS,
					   &sn_state.task_node))
		slurm_error("%s: %s: setting what does not need it", SN_PLUGIN,
			    sn_state.task_node.ports_note);
	else if (want_topo && !sn_state.task_node.topo.valid)
		slurm_info("%s: %s: UCX_NET_DEVICES not set", SN_PLUGIN,
			   sn_state.task_node.topo_note);
	free(ctx);
	sn_envbuf_free(&marker_buf);
	sn_state.task_env_ready = 1;
	return 0;
}

/* This node's Slurm name, for the show lines (several nodes interleave). */
static char show_node[256] = "?";

/* One line of --supernode-env=show: what was done with name, and why. */
static void show_line(uint32_t node_rank, const char *name, const char *value,
		      enum sn_taskenv_action a, const char *why,
		      const char *user)
{
	switch (a) {
	case SN_TASKENV_SET:
		fprintf(stderr, "%s: " SHOW ": %s: task %u: %s=%s (%s)\n", SN_PLUGIN,
			show_node, node_rank, name, value, why);
		break;
	case SN_TASKENV_FORCE:
		fprintf(stderr, "%s: " SHOW ": %s: task %u: %s=%s (%s; env.force: replaced the job's '%.200s')\n",
			SN_PLUGIN, show_node, node_rank, name, value, why, user);
		break;
	case SN_TASKENV_KEEP:
		fprintf(stderr, "%s: " SHOW ": %s: task %u: %s=%.400s (kept: user set it)\n",
			SN_PLUGIN, show_node, node_rank, name, user);
		break;
	case SN_TASKENV_UNSET:
	case SN_TASKENV_NONE:
		fprintf(stderr, "%s: " SHOW ": %s: task %u: %s not set (%s)\n",
			SN_PLUGIN, show_node, node_rank, name, why);
		break;
	}
}

/* SUPERNODE_* / MASTER_* (remote_env.c set them in user_init), for show. */
static void show_step_vars(spank_t sp, const char *marker, uint32_t rank)
{
	static const char *const names[][2] = {
		{ "SUPERNODE_COUNT", "supernodes in the allocation" },
		{ "SUPERNODE_NAMES", "the allocation's supernodes, in order" },
		{ "SUPERNODE_NAME", "this node's supernode" },
		{ "SUPERNODE_INDEX", "its position in SUPERNODE_NAMES" },
		{ "SUPERNODE_SIZE", "nodes per supernode" },
		{ "SUPERNODE_NODE_RANK", "this node's rank in its supernode" },
		{ "MASTER_ADDR", "first node of SLURM_JOB_NODELIST" },
		{ "MASTER_PORT", "from the job id, in env.master_port_range, outside the ephemeral ports" },
	};
	static struct sn_envbuf eb;	/* task process: gone at exec */

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *cur = sn_job_getenv(sp, names[i][0], &eb);

		if (!cur)
			show_line(rank, names[i][0], NULL, SN_TASKENV_NONE,
				  "see the plugin's error in the job's output or slurmd log",
				  NULL);
		else if (sn_envmark_owns(marker, names[i][0], cur))
			show_line(rank, names[i][0], cur, SN_TASKENV_SET, names[i][1], NULL);
		else
			show_line(rank, names[i][0], NULL, SN_TASKENV_KEEP, NULL, cur);
	}
}

/*
 * The task's visible-devices list; one not read whole reads as a list of
 * unknown devices ("GPU-", a UUID prefix), never as none or all.
 */
static const char *task_visible(spank_t sp, const char *name,
				struct sn_envbuf *eb)
{
	const char *v = sn_job_getenv(sp, name, eb);

	return v == sn_env_unread ? "GPU-" : v;
}

/* Read the task's own facts; strings point into static buffers. */
static void task_facts(spank_t sp, const struct sn_config *cfg,
		       const char *marker, struct sn_taskenv_task *t)
{
	/* Borrowed by t until the task execs. */
	static struct sn_envbuf visible, step_gpus, job_gpus;

	memset(t, 0, sizeof(*t));
	spank_get_item(sp, S_TASK_GLOBAL_ID, &t->global_rank);
	spank_get_item(sp, S_TASK_ID, &t->local_rank);
	spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &t->world_size);
	spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &t->local_size);
	t->batch = is_batch(sp);
	if (cfg->node.accel.vendor == SN_ACCEL_ASCEND) {
		/* Only the job's own value tells which NPUs a task sees. */
		t->visible_name = "ASCEND_RT_VISIBLE_DEVICES";
		if (user_owned(sp, cfg, marker, t->visible_name))
			t->visible = task_visible(sp, t->visible_name, &visible);
	} else {
		t->visible_name = "CUDA_VISIBLE_DEVICES";
		t->visible = task_visible(sp, t->visible_name, &visible);
	}
	t->step_gpus = task_fact(sp, "SLURM_STEP_GPUS", &step_gpus);
	t->job_gpus = task_fact(sp, "SLURM_JOB_GPUS", &job_gpus);
}

int sn_task_env_set(spank_t sp)
{
	/* Task process: the buffers go with the exec that follows. */
	static struct sn_envbuf marker_buf, user;
	const struct sn_config *cfg = sn_state.cfg;
	const char *marker;
	struct sn_jobenv mark = { 0 };
	const char *names[SN_TASKENV_MAX_VARS];
	bool set[SN_JOBENV_MAX] = { false };
	struct sn_taskenv_task task;
	struct sn_taskenv env;
	bool show, nccl_if_users = false;
	char *new_marker;

	if (!sn_state.task_env_ready || !cfg)
		return 0;
	if (!(marker = task_fact(sp, SN_ENVMARK_VAR, &marker_buf)))
		marker = "";
	task_facts(sp, cfg, marker, &task);
	show = sn_state.env_mode == SN_ENV_SHOW && task.local_rank == 0;
	if (sn_taskenv_build(cfg, &sn_state.task_node, &task, &env)) {
		slurm_error("%s: per-task environment not set: out of memory",
			    SN_PLUGIN);
		return 0;
	}
	if (show) {
		static struct sn_envbuf node_name;
		const char *nn = task_fact(sp, "SLURMD_NODENAME", &node_name);

		snprintf(show_node, sizeof(show_node), "%s", nn ? nn : "?");
		fprintf(stderr, "%s: " SHOW ": node %s, task %u of %u on it (rank %u of %u); accelerators: %s\n",
			SN_PLUGIN, show_node,
			task.local_rank, task.local_size, task.global_rank,
			task.world_size,
			env.accels_why[0] ? env.accels_why : "not looked at (batch script)");
		show_step_vars(sp, marker, task.local_rank);
	}
	for (size_t i = 0; i < env.count; i++) {
		struct sn_taskenv_var *v = &env.vars[i];
		const char *cur = sn_job_getenv(sp, v->name, &user);
		enum sn_taskenv_action a = sn_taskenv_decide(cfg, marker,
							     v->name, cur,
							     v->value);
		spank_err_t rc;

		/*
		 * NCCL and Gloo must rendezvous on one interface: when the job
		 * chose its own NCCL_SOCKET_IFNAME, we do not point Gloo at ours.
		 */
		if (!strcmp(v->name, "NCCL_SOCKET_IFNAME") && a == SN_TASKENV_KEEP)
			nccl_if_users = true;
		if (!strcmp(v->name, "GLOO_SOCKET_IFNAME") && nccl_if_users &&
		    (a == SN_TASKENV_SET)) {
			a = SN_TASKENV_NONE;
			snprintf(v->why, sizeof(v->why), "not set: the job chose its own NCCL_SOCKET_IFNAME");
		}

		names[i] = v->name;
		if (a == SN_TASKENV_UNSET)
			spank_unsetenv(sp, v->name);
		if (a == SN_TASKENV_SET || a == SN_TASKENV_FORCE) {
			rc = spank_setenv(sp, v->name, v->value, 1);
			if (rc != ESPANK_SUCCESS) {
				slurm_error("%s: cannot set %s: %s", SN_PLUGIN,
					    v->name, spank_strerror(rc));
				continue;
			}
			if (mark.count < SN_JOBENV_MAX) {
				mark.vars[mark.count].name = v->name;
				mark.vars[mark.count].value = v->value;
				set[mark.count++] = true;
			}
		}
		if (show)
			show_line(task.local_rank, v->name, v->value, a, v->why,
				  cur);
	}
	new_marker = sn_marker_update(marker, &mark, set, names, env.count);
	if (new_marker)
		spank_setenv(sp, SN_ENVMARK_VAR, new_marker, 1);
	free(new_marker);
	/* mark borrowed env's values: no sn_jobenv_free() */
	sn_taskenv_free(&env);
	if (show)
		fflush(stderr);
	return 0;
}
