/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "placement/sn_option.h"
#include "placement/sn_submit.h"
#include "util/sn_strbuf.h"

void sn_submit_strip_forged(char **env, uint32_t *size, uint32_t uid,
			    const struct sn_submit_ops *ops)
{
	uint32_t i, kept = 0;

	if (!env)
		return;
	for (i = 0; i < *size; i++) {
		char *e = env[i];

		if (sn_option_env_forged(e)) {
			ops->info(
				"job_submit/supernode: uid %u: dropped the job's own SPANK environment entry '%.80s' (only SUPERNODE= from supernode.so counts)",
				uid, e);
			ops->free((void **)&env[i]);
			continue;
		}
		env[kept++] = e;
	}
	for (i = kept; i < *size; i++)
		env[i] = NULL;
	*size = kept;
}

enum sn_job_client sn_submit_client(bool script, char *const *spank_env,
				    uint32_t n)
{
	if (script)
		return SN_CLIENT_BATCH;
	if (sn_option_env_value(spank_env, n, SN_SPANK_SRUN_MARK))
		return SN_CLIENT_SRUN;
	return SN_CLIENT_ALLOC;
}

void sn_submit_tasks_env(char **env, uint32_t n, uint32_t tasks,
			 const struct sn_submit_ops *ops)
{
	static const char *const names[] = { "SLURM_NTASKS=", "SLURM_NPROCS=" };
	char buf[40];

	for (uint32_t i = 0; env && i < n; i++) {
		for (size_t j = 0; env[i] && j < 2; j++) {
			if (strncmp(env[i], names[j], strlen(names[j])))
				continue;
			snprintf(buf, sizeof(buf), "%s%u", names[j], tasks);
			ops->free((void **)&env[i]);
			env[i] = ops->strdup(buf);
			break;
		}
	}
}

void sn_submit_err_set(char **err_msg, const char *msg,
		       const struct sn_submit_ops *ops)
{
	struct sn_strbuf sb = { 0 };

	if (!err_msg)
		return;
	sn_strbuf_appendf(&sb, "supernode: %s", msg);
	if (*err_msg)
		ops->free((void **)err_msg);
	*err_msg = ops->strdup(sn_strbuf_failed(&sb) ?
				       "supernode: out of memory" :
				       sn_strbuf_str(&sb));
	sn_strbuf_free(&sb);
}

enum sn_submit_refusal sn_submit_check(bool het_job,
				       const struct sn_config *cfg,
				       const struct sn_error *cfg_err,
				       bool segments, char **err_msg,
				       const struct sn_submit_ops *ops)
{
	struct sn_strbuf sb = { 0 };

	if (het_job) {
		sn_submit_err_set(
			err_msg,
			"--supernode cannot be used in a heterogeneous job: Slurm would apply it to every component; submit the supernode part as a job of its own",
			ops);
		return SN_SUBMIT_REFUSED_LAYOUT;
	}
	if (!cfg) {
		sn_strbuf_appendf(
			&sb,
			"--supernode cannot be used now: the site config does not load (%s); tell your admin",
			cfg_err->msg);
		sn_submit_err_set(err_msg,
				  sn_strbuf_failed(&sb) ? "out of memory" :
							  sn_strbuf_str(&sb),
				  ops);
		sn_strbuf_free(&sb);
		return SN_SUBMIT_REFUSED_FEATURE;
	}
	if (cfg->method == SN_PLACE_BLOCK && !segments) {
		sn_submit_err_set(
			err_msg,
			"placement.method 'block' needs Slurm 24.05 or later (topology/block with --segment); this plugin was built for an older Slurm",
			ops);
		return SN_SUBMIT_REFUSED_FEATURE;
	}
	return SN_SUBMIT_OK;
}

static bool str_differs(const char *now, const char *asked)
{
	return asked && strcmp(now ? now : "", asked);
}

static bool num_differs(uint32_t now, uint32_t asked, uint32_t unset)
{
	return asked != unset && asked != now;
}

enum sn_reshape sn_submit_reshape(const struct sn_job_shape *job,
				  const struct sn_job_shape *update)
{
	if (num_differs(job->min_nodes, update->min_nodes, SN_UNSET32) ||
	    num_differs(job->max_nodes, update->max_nodes, SN_UNSET32))
		return SN_RESHAPE_NODES;
	if (str_differs(job->features, update->features))
		return SN_RESHAPE_FEATURES;
	if (str_differs(job->req_nodes, update->req_nodes))
		return SN_RESHAPE_NODELIST;
	if (num_differs(job->shared, update->shared, SN_UNSET16))
		return SN_RESHAPE_SHARED;
	/* 0 and NO_VAL16 both mean "not given" (pre-26.11 clients send 0). */
	if (update->segment_size &&
	    num_differs(job->segment_size, update->segment_size, SN_UNSET16))
		return SN_RESHAPE_SEGMENT;
	if (num_differs(job->req_switch, update->req_switch, SN_UNSET32))
		return SN_RESHAPE_SWITCHES;
	return SN_RESHAPE_NONE;
}

const char *sn_submit_reshape_field(enum sn_reshape r)
{
	static const char *const names[] = {
		[SN_RESHAPE_NONE] = "nothing",
		[SN_RESHAPE_NODES] = "NumNodes",
		[SN_RESHAPE_FEATURES] = "Features",
		[SN_RESHAPE_NODELIST] = "ReqNodeList",
		[SN_RESHAPE_SHARED] = "OverSubscribe",
		[SN_RESHAPE_SEGMENT] = "Segment",
		[SN_RESHAPE_SWITCHES] = "Switches",
	};

	if ((unsigned)r >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[r];
}

void sn_submit_reshape_refuse(enum sn_reshape r, const char *supernodes,
			      char **err_msg, const struct sn_submit_ops *ops)
{
	struct sn_strbuf sb = { 0 };

	sn_strbuf_appendf(
		&sb,
		"%s cannot change on a --supernode=%.16s job: it was placed as whole, exclusive supernodes; cancel it and submit it again with the new request",
		sn_submit_reshape_field(r), supernodes ? supernodes : "?");
	sn_submit_err_set(err_msg,
			  sn_strbuf_failed(&sb) ? "out of memory" :
						  sn_strbuf_str(&sb),
			  ops);
	sn_strbuf_free(&sb);
}

void sn_submit_forced_refuse(const char *partition, uint16_t max_share,
			     char **err_msg, const struct sn_submit_ops *ops)
{
	struct sn_strbuf sb = { 0 };

	sn_strbuf_appendf(
		&sb,
		"--supernode cannot run in partition %.64s: it has OverSubscribe=FORCE:%u, so Slurm would share its nodes with other jobs whatever the job asks for; submit to a partition with OverSubscribe=NO or EXCLUSIVE",
		partition, (unsigned)(max_share & ~SN_SHARED_FORCE));
	sn_submit_err_set(err_msg,
			  sn_strbuf_failed(&sb) ? "out of memory" :
						  sn_strbuf_str(&sb),
			  ops);
	sn_strbuf_free(&sb);
}
