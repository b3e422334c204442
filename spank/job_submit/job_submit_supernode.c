/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_submit_supernode.so - slurmctld side of --supernode.
 *
 * Reads SUPERNODE=N from job_desc->spank_job_env (put there by supernode.so
 * through spank_job_control_setenv) and rewrites the request into N whole
 * supernodes, exclusive.  lib/placement/ decides (placement.c, submit.c);
 * this file reads job_desc, calls it and copies the plan back.  Every
 * string placed into job_desc comes from Slurm's allocator (slurmctld
 * xfree()s it).  The config is <dir of slurm.conf>/supernode.yaml,
 * reloaded when it changes; one that does not load refuses --supernode
 * jobs with the reason and leaves every other job alone.
 */
#include <limits.h>
#include <stdlib.h>

#include "util/sn_slurm.h"

#include "config/sn_config_cache.h"
#include "placement/sn_option.h"
#include "placement/sn_placement.h"
#include "placement/sn_submit.h"

#ifdef SN_HAVE_JOB_RECORD
#include "job_record.h"
#endif

/* From libslurmfull, which slurmctld is linked with (not in public headers). */
extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **p);
extern void slurm_info(const char *fmt, ...);
extern void slurm_verbose(const char *fmt, ...);
extern void slurm_error(const char *fmt, ...);

const char plugin_name[] = "Job submit plugin for whole supernodes";
const char plugin_type[] = "job_submit/supernode";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define SN_LOG "job_submit/supernode"

/* topology/block's segments (job_desc->segment_size): Slurm 24.05. */
static const bool segments = SN_SLURM_HAS_SEGMENT;

static char sn_cfg_path[PATH_MAX];
static struct sn_config_cache sn_cfg = { .path = sn_cfg_path };

/* (Re)load the config when the file changed since the last load. */
static void config_refresh(void)
{
	if (!sn_config_cache_refresh(&sn_cfg))
		return;
	if (sn_cfg.cfg)
		slurm_info(
			"%s: loaded %s: %zu supernodes of %zu nodes, method %s",
			SN_LOG, sn_cfg_path, sn_cfg.cfg->n_supernodes,
			sn_cfg.cfg->supernode_size,
			sn_placement_method_name(sn_cfg.cfg->method));
	else
		slurm_error("%s: %s", SN_LOG, sn_cfg.err.msg);
}

int init(void)
{
	sn_config_default_path(sn_cfg_path, sizeof(sn_cfg_path));
	config_refresh();
	return SLURM_SUCCESS;
}

int fini(void)
{
	sn_config_cache_free(&sn_cfg);
	return SLURM_SUCCESS;
}

static const struct sn_submit_ops ops = {
	.strdup = slurm_xstrdup,
	.free = slurm_xfree,
	.info = slurm_info,
};

static void plan_apply(job_desc_msg_t *job_desc, const struct sn_job_plan *plan)
{
	job_desc->min_nodes = plan->nodes;
	job_desc->max_nodes = plan->nodes;
	job_desc->shared = plan->shared;
	if (plan->num_tasks != SN_UNSET32) {
		job_desc->num_tasks = plan->num_tasks;
		sn_submit_tasks_env(job_desc->environment, job_desc->env_size,
				    plan->num_tasks, &ops);
	}
	if (plan->features) {
		slurm_xfree((void **)&job_desc->features);
		job_desc->features = slurm_xstrdup(plan->features);
	}
	if (plan->req_switch != SN_UNSET32) {
		job_desc->req_switch = plan->req_switch;
		job_desc->wait4switch = plan->wait4switch;
	}
	if (plan->segment_size) /* block: refused by sn_submit_check before */
		sn_slurm_job_desc_segment_set(job_desc,
					      (uint16_t)plan->segment_size);
}

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	struct sn_job_request req;
	struct sn_job_plan plan;
	struct sn_error err;
	const char *value;

	sn_submit_strip_forged(job_desc->spank_job_env,
			       &job_desc->spank_job_env_size, submit_uid, &ops);
	value = sn_option_env_value(job_desc->spank_job_env,
				    job_desc->spank_job_env_size, "SUPERNODE");
	if (!value)
		return SLURM_SUCCESS; /* not ours: untouched */
	config_refresh();
	switch (sn_submit_check(job_desc->het_job_offset != NO_VAL, sn_cfg.cfg,
				&sn_cfg.err, segments, err_msg, &ops)) {
	case SN_SUBMIT_OK:
		break;
	case SN_SUBMIT_REFUSED_LAYOUT:
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	default:
		return ESLURM_INVALID_FEATURE;
	}
#ifdef SN_HAVE_JOB_RECORD
	{
		char part[128];
		uint16_t share;

		if (sn_job_record_part_forced(job_desc->partition, part,
					      sizeof(part), &share)) {
			sn_submit_forced_refuse(part, share, err_msg, &ops);
			slurm_info(
				"%s: uid %u refused: partition %s has OverSubscribe=FORCE",
				SN_LOG, submit_uid, part);
			return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		}
	}
#endif
	req = (struct sn_job_request){
		.min_nodes = job_desc->min_nodes,
		.max_nodes = job_desc->max_nodes,
		.shared = job_desc->shared,
		.req_switch = job_desc->req_switch,
		.features = job_desc->features,
		.req_nodes = job_desc->req_nodes,
		.exc_nodes = job_desc->exc_nodes,
		.num_tasks = job_desc->num_tasks,
		.ntasks_per_node = job_desc->ntasks_per_node,
		.client = sn_submit_client(job_desc->script,
					   job_desc->spank_job_env,
					   job_desc->spank_job_env_size),
		.few_tasks_refused = SN_SLURM_FEW_TASKS_REFUSED,
	};
	if (sn_supernode_count_parse(value, sn_config_effective_max(sn_cfg.cfg),
				     &req.supernodes, &err) ||
	    sn_placement_plan(sn_cfg.cfg, &req, &plan, &err)) {
		sn_submit_err_set(err_msg, err.msg, &ops);
		slurm_info("%s: uid %u refused: %s", SN_LOG, submit_uid,
			   err.msg);
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	plan_apply(job_desc, &plan);
	/* Per job: verbose, not info (slurmctld writes its log synchronously). */
	slurm_verbose(
		"%s: uid %u --supernode=%u -> nodes=%u exclusive features=%s",
		SN_LOG, submit_uid, req.supernodes, plan.nodes,
		job_desc->features ? job_desc->features : "(none)");
	free(plan.features);
	return SLURM_SUCCESS;
}

#ifdef SN_HAVE_JOB_RECORD
/* The Slurm error each refused field answers (all a 22.05 user sees). */
static int reshape_errno(enum sn_reshape r)
{
	switch (r) {
	case SN_RESHAPE_NODES:
		return ESLURM_INVALID_NODE_COUNT;
	case SN_RESHAPE_FEATURES:
		return ESLURM_INVALID_FEATURE;
	default:
		return ESLURM_NOT_SUPPORTED;
	}
}

/*
 * The record's magic cookies are not the headers': log it once per start
 * (not per update; slurmctld writes its log synchronously) and accept
 * updates, as a build without the headers does.
 */
static void layout_error(void)
{
	static bool said;

	if (said)
		return;
	said = true;
	slurm_error(
		"%s: slurmctld's job record does not match the Slurm %u.%02u.%u headers this plugin was built with (magic cookies differ: another build of this version?); job_modify accepts every update until the plugin is rebuilt against this slurmctld's own source (contrib/slurm-source)",
		SN_LOG, SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
}

/*
 * char **err_msg only from Slurm 23.02 (util/sn_slurm.h).  Any user, root
 * included, any job state: a --supernode job keeps the shape job_submit
 * gave it (README, "Known limits": cancel and resubmit instead).
 */
int job_modify(job_desc_msg_t *job_desc, void *job_ptr,
	       uint32_t submit_uid SN_JOB_MODIFY_ERR_MSG)
{
	struct sn_job_shape job, update;
	const char *value;
	enum sn_reshape r;

	switch (sn_job_record_shape(job_ptr, &job, &value)) {
	case SN_JOB_RECORD_OURS:
		break;
	case SN_JOB_RECORD_LAYOUT:
		layout_error();
		return SLURM_SUCCESS; /* as when built without the headers */
	default:
		return SLURM_SUCCESS; /* not ours: untouched */
	}
	update = (struct sn_job_shape){
		.min_nodes = job_desc->min_nodes,
		.max_nodes = job_desc->max_nodes,
		.features = job_desc->features,
		.req_nodes = job_desc->req_nodes,
		.shared = job_desc->shared,
		.segment_size = sn_slurm_job_desc_segment_get(job_desc),
		.req_switch = job_desc->req_switch,
	};
	r = sn_submit_reshape(&job, &update);
	if (r == SN_RESHAPE_NONE)
		return SLURM_SUCCESS;
	sn_submit_reshape_refuse(r, value, SN_JOB_MODIFY_ERR_MSG_PTR, &ops);
	slurm_info(
		"%s: uid %u: refused the update of %s of a --supernode=%.16s job",
		SN_LOG, submit_uid, sn_submit_reshape_field(r), value);
	return reshape_errno(r);
}
#else
/*
 * Built without Slurm's source tree (cmake says so): the job record
 * cannot be read, every update is accepted, and the controller check
 * (PrologSlurmctld) requeues a job that is no longer whole supernodes.
 */
int job_modify(job_desc_msg_t *job_desc, void *job_ptr,
	       uint32_t submit_uid SN_JOB_MODIFY_ERR_MSG)
{
	(void)job_desc;
	(void)job_ptr;
	(void)submit_uid;
	(void)SN_JOB_MODIFY_ERR_MSG_PTR;
	return SLURM_SUCCESS;
}
#endif
