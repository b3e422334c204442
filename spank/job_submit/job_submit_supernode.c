/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_submit_supernode.so - slurmctld side of --supernode.
 *
 * Reads SUPERNODE=N from job_desc->spank_job_env (put there by supernode.so
 * through spank_job_control_setenv) and rewrites the request into N whole
 * supernodes, exclusive (lib/placement.c decides; this file only copies the
 * plan into job_desc).  Jobs without SUPERNODE= are not touched.
 *
 * Runs inside slurmctld: every string placed into job_desc comes from
 * Slurm's allocator (slurm_xstrdup) because slurmctld xfree()s it; a
 * strdup() string would crash it.  The config is
 * <dir of slurm.conf>/supernode.yaml, reloaded when its mtime changes; a
 * config that does not load refuses --supernode jobs with the reason and
 * leaves every other job alone.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "config/sn_config_cache.h"
#include "placement/sn_option.h"
#include "placement/sn_placement.h"

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

/* The value of NAME= in the job's SPANK environment (the last), or NULL. */
static const char *spank_env_get(const job_desc_msg_t *job_desc,
				 const char *name)
{
	return sn_option_env_value(job_desc->spank_job_env,
				   job_desc->spank_job_env_size, name);
}

/*
 * Drop every entry the prolog and epilog would read as SPANK_SUPERNODE
 * without it being our SUPERNODE= (sn_option_env_forged).  After this,
 * SPANK_SUPERNODE in a prolog's environment comes only from a SUPERNODE=
 * this plugin accepted, so it is data that only slurmctld lets through.
 */
static void spank_env_strip_forged(job_desc_msg_t *job_desc, uint32_t uid)
{
	uint32_t i, kept = 0;

	if (!job_desc->spank_job_env)
		return;
	for (i = 0; i < job_desc->spank_job_env_size; i++) {
		char *e = job_desc->spank_job_env[i];

		if (sn_option_env_forged(e)) {
			slurm_info(
				"%s: uid %u: dropped the job's own SPANK environment entry '%.80s' (only SUPERNODE= from supernode.so counts)",
				SN_LOG, uid, e);
			slurm_xfree((void **)&job_desc->spank_job_env[i]);
			continue;
		}
		job_desc->spank_job_env[kept++] = e;
	}
	for (i = kept; i < job_desc->spank_job_env_size; i++)
		job_desc->spank_job_env[i] = NULL;
	job_desc->spank_job_env_size = kept;
}

/* The marker is set by supernode.so in srun (S_CTX_LOCAL). */
static enum sn_job_client job_client(const job_desc_msg_t *job_desc)
{
	if (job_desc->script)
		return SN_CLIENT_BATCH;
	if (spank_env_get(job_desc, SN_SPANK_SRUN_MARK))
		return SN_CLIENT_SRUN;
	return SN_CLIENT_ALLOC;
}

/*
 * sbatch exports its own pre-submission task count to the job's steps
 * (SLURM_NTASKS, SLURM_NPROCS in the job's environment): keep them equal
 * to the scaled count.  Entries are Slurm's (xmalloc), replaced likewise.
 */
static void env_tasks_set(job_desc_msg_t *job_desc, uint32_t tasks)
{
	static const char *const names[] = { "SLURM_NTASKS=", "SLURM_NPROCS=" };
	char buf[40];

	for (uint32_t i = 0; job_desc->environment && i < job_desc->env_size;
	     i++) {
		char *e = job_desc->environment[i];

		for (size_t j = 0; e && j < 2; j++) {
			if (strncmp(e, names[j], strlen(names[j])))
				continue;
			snprintf(buf, sizeof(buf), "%s%u", names[j], tasks);
			slurm_xfree((void **)&job_desc->environment[i]);
			job_desc->environment[i] = slurm_xstrdup(buf);
			break;
		}
	}
}

static void err_set(char **err_msg, const char *msg)
{
	char buf[1300];

	if (!err_msg)
		return;
	snprintf(buf, sizeof(buf), "supernode: %s", msg);
	if (*err_msg)
		slurm_xfree((void **)err_msg);
	*err_msg = slurm_xstrdup(buf);
}

static void plan_apply(job_desc_msg_t *job_desc, const struct sn_job_plan *plan)
{
	job_desc->min_nodes = plan->nodes;
	job_desc->max_nodes = plan->nodes;
	job_desc->shared = plan->shared;
	if (plan->num_tasks != SN_UNSET32) {
		job_desc->num_tasks = plan->num_tasks;
		env_tasks_set(job_desc, plan->num_tasks);
	}
	if (plan->features) {
		slurm_xfree((void **)&job_desc->features);
		job_desc->features = slurm_xstrdup(plan->features);
	}
	if (plan->req_switch != SN_UNSET32) {
		job_desc->req_switch = plan->req_switch;
		job_desc->wait4switch = plan->wait4switch;
	}
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
	/* Untested here (Debian 12 ships 22.05): topology/block segments. */
	if (plan->segment_size)
		job_desc->segment_size = (uint16_t)plan->segment_size;
#endif
}

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	struct sn_job_request req;
	struct sn_job_plan plan;
	struct sn_error err;
	const char *value;
	int rc = SLURM_SUCCESS;

	spank_env_strip_forged(job_desc, submit_uid);
	value = spank_env_get(job_desc, "SUPERNODE");
	if (!value)
		return SLURM_SUCCESS; /* not ours: untouched */
	if (job_desc->het_job_offset != NO_VAL) {
		/* sbatch hands SPANK options to every component alike. */
		err_set(err_msg,
			"--supernode cannot be used in a heterogeneous job: Slurm would apply it to every component; submit the supernode part as a job of its own");
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	config_refresh();
	if (!sn_cfg.cfg) {
		char buf[1200];

		snprintf(
			buf, sizeof(buf),
			"--supernode cannot be used now: the site config does not load (%s); tell your admin",
			sn_cfg.err.msg);
		err_set(err_msg, buf);
		return ESLURM_INVALID_FEATURE;
	}
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 5, 0)
	if (sn_cfg.cfg->method == SN_PLACE_BLOCK) {
		err_set(err_msg,
			"placement.method 'block' needs Slurm 24.05 or later (topology/block with --segment); this plugin was built for an older Slurm");
		return ESLURM_INVALID_FEATURE;
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
		.client = job_client(job_desc),
	};
	if (sn_supernode_count_parse(value, sn_config_effective_max(sn_cfg.cfg),
				     &req.supernodes, &err) ||
	    sn_placement_plan(sn_cfg.cfg, &req, &plan, &err)) {
		err_set(err_msg, err.msg);
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
	return rc;
}

int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
	       char **err_msg)
{
	(void)job_desc;
	(void)job_ptr;
	(void)submit_uid;
	(void)err_msg;
	return SLURM_SUCCESS;
}
