/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernode-epilog - slurmd's Epilog=.  From the prolog's baseline it
 * records what happened on this node during the job: counter deltas of
 * every fabric port and accelerator, the Xid events logged since the job
 * started, a verdict per threshold; it writes record_dir/<jobid>/<node>.json
 * atomically, updates the Prometheus textfile, and drains the node (tagged
 * reason) when a verdict is CRIT.
 *
 *   supernode-epilog [--config PATH] [--node NAME]
 *
 * It always exits 0: a non-zero Epilog makes Slurm drain the node with
 * "Epilog error", and our own precise reason must be the one that stays.
 * Everything is bounded by epilog.timeout (snapshot in a child, an alarm one
 * second after the budget).  The alarm ends the epilog with exit 0 and one
 * line on stderr (on_alarm): killed by SIGALRM, it would make Slurm drain
 * the node with "Epilog error".
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <slurm/slurm.h>

#include "config/sn_config_snapshot.h"
#include "env/sn_attempt.h"
#include "records/sn_baseline.h"
#include "env/sn_taskenv_cache.h"
#include "drain/sn_drain.h"
#include "util/sn_file.h"
#include "util/sn_log.h"
#include "util/sn_number.h"
#include "util/sn_slurm_env.h"
#include "records/sn_promfile.h"
#include "records/sn_record.h"
#include "records/sn_store.h"
#include "util/sn_child.h"

#define SN_EPILOG_NAME "supernode-epilog"

struct epilog_job {
	uint32_t id;
	const char *node;
	const char *user;
	const char *nodes; /* SLURM_JOB_NODELIST (23.02+) or SLURM_NODELIST */
	bool supernode;	   /* SPANK_SUPERNODE set: a --supernode job */
	bool has_restart_count;
	uint32_t restart_count; /* SLURM_JOB_RESTART_COUNT */
	bool has_exit;
	int exit_code, signal; /* SLURM_JOB_EXIT_CODE2 "exit:signal" */
	bool has_derived;
	int derived_exit, derived_signal; /* SLURM_JOB_DERIVED_EC (status) */
};

/*
 * The last resort's line, composed before the alarm is armed: a signal
 * handler may only write(2) and _exit(2) (no stdio, malloc or syslog).
 */
static char alarm_line[256];
static size_t alarm_line_len;

static void on_alarm(int sig)
{
	ssize_t n;

	(void)sig;
	n = write(STDERR_FILENO, alarm_line, alarm_line_len);
	(void)n;
	_exit(0); /* never fail the Epilog: see the top */
}

/* Arm the alarm one second after epilog.timeout, with its handler. */
static void alarm_arm(const struct epilog_job *job, unsigned timeout_s)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int n;

	n = snprintf(
		alarm_line, sizeof(alarm_line),
		SN_EPILOG_NAME
		": job %u: epilog.timeout (%u s) overrun: stopped, exit 0 (the node is not drained for it)\n",
		job->id, timeout_s);
	alarm_line_len = n < 0 ? 0 :
			 (size_t)n < sizeof(alarm_line) ?
				 (size_t)n :
				 sizeof(alarm_line) - 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm(timeout_s + 1);
}

/* "exit:signal" (SLURM_JOB_EXIT_CODE2) into *exit and *sig; false if not. */
static bool exit2_parse(const char *ec, int *exit, int *sig)
{
	long long e, s = 0;
	char num[16];
	size_t k;

	if (!ec)
		return false;
	k = strcspn(ec, ":");
	snprintf(num, sizeof(num), "%.*s", (int)k, ec);
	if (!sn_number_parse(num, &e) || e < 0 || e > 255 ||
	    (ec[k] == ':' &&
	     (!sn_number_parse(ec + k + 1, &s) || s < 0 || s > 255)))
		return false;
	*exit = (int)e;
	*sig = (int)s;
	return true;
}

static int job_read(struct epilog_job *job, const char *node_arg)
{
	const char *dec = getenv("SLURM_JOB_DERIVED_EC"); /* wait status */
	struct sn_slurm_job sj;
	long long v;

	if (sn_slurm_env_job(&sj))
		return -1;
	job->id = sj.id;
	job->supernode = sj.supernode;
	job->has_restart_count = sj.has_restart_count;
	job->restart_count = sj.restart_count;
	job->node = node_arg ? node_arg : sj.node;
	job->user = getenv("SLURM_JOB_USER");
	job->nodes = getenv("SLURM_JOB_NODELIST");
	if (!job->nodes || !*job->nodes)
		job->nodes = getenv("SLURM_NODELIST"); /* 22.05 */
	job->has_exit = exit2_parse(getenv("SLURM_JOB_EXIT_CODE2"),
				    &job->exit_code, &job->signal);
	if (dec && sn_number_parse(dec, &v) && v >= 0 && v <= 0xffff) {
		job->has_derived = true;
		job->derived_exit = (int)((v >> 8) & 0xff);
		job->derived_signal = (int)(v & 0x7f);
	}
	return job->node && *job->node ? 0 : -1;
}

/*
 * record_dir/<jobid>/<node>.json, atomically, through trusted folders only
 * (sn_store_write); never drains on failure, writes nothing on refusal.
 */
static int record_write(const struct sn_check_ctx *ctx,
			const struct sn_config *cfg,
			const struct epilog_job *job, uint32_t attempt,
			json_object *record)
{
	char base[PATH_MAX];
	struct sn_error err;

	if (sn_store_dir(cfg->epilog.record_dir, job->node, ctx->host, base,
			 sizeof(base))) {
		sn_log(LOG_ERR, "job %u: epilog.record_dir: path too long",
		       job->id);
		return -1;
	}
	if (sn_store_write(record, base, ctx->state_dir, job->id, attempt,
			   job->node, &err)) {
		sn_log(LOG_ERR,
		       "job %u: record not written (the node is not drained for it): %s",
		       job->id, err.msg);
		return -1;
	}
	return 0;
}

static json_object *end_snapshot(const struct sn_check_ctx *ctx,
				 uint32_t job_id, uint32_t timeout_ms)
{
	struct sn_error err;
	json_object *end = NULL;
	size_t len = 0;
	char *doc = sn_baseline_snapshot(ctx, job_id, timeout_ms, &len, &err);

	if (!doc) {
		sn_log(LOG_WARNING, "job %u: end counters not read: %s", job_id,
		       err.msg);
		return NULL;
	}
	if (sn_baseline_parse(doc, len, 0, &end) != SN_BASELINE_OK) {
		json_object_put(end);
		end = NULL;
	}
	free(doc);
	return end;
}

static void epilog_run(const struct sn_config *cfg,
		       const struct epilog_job *job)
{
	const struct sn_node *sn = sn_config_find_node(cfg, job->node);
	struct sn_record_input in = { 0 };
	json_object *baseline = NULL, *end = NULL, *xids = NULL, *record;
	char path[PATH_MAX], reason[SN_REASON_MAX + 1], prom[PATH_MAX];
	char failed[SN_ATTEMPT_REASON_MAX + 1];
	struct sn_check_ctx ctx;
	struct sn_error err;
	const char *drain;

	if (sn_check_ctx_init(&ctx, cfg, job->node, &err)) {
		sn_log(LOG_ERR, "job %u: %s: nothing recorded", job->id,
		       err.msg);
		return;
	}
	sn_baseline_path(&ctx, job->id, path, sizeof(path));
	in.baseline_status = sn_baseline_read(path, job->id, &baseline, &err);
	if (in.baseline_status == SN_BASELINE_MISSING)
		sn_log(LOG_WARNING,
		       "job %u: baseline missing (%s): deltas unknown, no drain",
		       job->id, path);
	else if (in.baseline_status == SN_BASELINE_NEWER)
		sn_log(LOG_WARNING,
		       "job %u: %s: deltas unknown, UNKNOWN, no drain", job->id,
		       err.msg);
	else if (in.baseline_status != SN_BASELINE_OK)
		sn_log(LOG_WARNING,
		       "job %u: baseline corrupt: deltas unknown, no drain: %s",
		       job->id, err.msg);
	end = end_snapshot(&ctx, job->id, cfg->epilog.timeout_s * 1000 / 2);
	if (in.baseline_status == SN_BASELINE_OK)
		in.xid_rc = sn_record_collect_xids(cfg, ctx.kmsg, baseline, end,
						   &xids, &in.xid_counts);
	in.job_id = job->id;
	/*
	 * The attempt that ran here is the one our prolog saw: when a requeue
	 * ends it, Slurm has already counted the restart, and the epilog's
	 * SLURM_JOB_RESTART_COUNT is the next attempt's (measured on 22.05).
	 */
	in.has_restart_count = job->has_restart_count;
	in.restart_count = job->restart_count;
	if (!sn_attempt_load(ctx.state_dir, job->id, &in.restart_count, &err))
		in.has_restart_count = true;
	in.nodes = job->nodes;
	if (in.baseline_status == SN_BASELINE_MISSING &&
	    !sn_attempt_failed_load(ctx.state_dir, job->id, failed,
				    sizeof(failed)))
		in.prolog_failed = failed;
	in.has_derived = job->has_derived;
	in.derived_exit = job->derived_exit;
	in.derived_signal = job->derived_signal;
	in.signal = job->signal;
	in.user = job->user;
	in.node = job->node;
	in.supernode = sn ? cfg->supernodes[sn->supernode].name : NULL;
	in.has_exit_code = job->has_exit;
	in.exit_code = job->exit_code;
	in.end_time = (int64_t)time(NULL);
	in.baseline = baseline;
	in.end = end;
	in.xid_events = xids;
	record = sn_record_build(cfg, &in);
	if (!record) {
		sn_log(LOG_ERR, "job %u: cannot build the record", job->id);
		goto out;
	}
	drain = json_object_get_string(
		json_object_object_get(record, "drain_reason"));
	if (drain) {
		enum sn_drain_outcome o;

		/* Drain first, then say in the record what really happened. */
		sn_record_drain_reason(record, cfg->drain_tag, reason,
				       sizeof(reason));
		o = sn_drain_logged(job->node, reason, cfg->drain_tag,
				    cfg->epilog.timeout_s * 1000 / 2);
		json_object_object_add(
			record, "drain_outcome",
			json_object_new_string(sn_drain_outcome_name(o)));
	}
	record_write(&ctx, cfg, job,
		     in.has_restart_count ? in.restart_count + 1 : 0, record);
	if (cfg->epilog.textfile_dir &&
	    sn_path_expand(cfg->epilog.textfile_dir, job->node, job->node, prom,
			   sizeof(prom)))
		sn_log(LOG_WARNING,
		       "job %u: Prometheus textfile not updated: epilog.textfile_dir: path too long",
		       job->id);
	else if (cfg->epilog.textfile_dir &&
		 sn_promfile_update(prom, end, record, in.end_time, &err))
		sn_log(LOG_WARNING,
		       "job %u: Prometheus textfile not updated: %s", job->id,
		       err.msg);
	if (sn_attempt_remove(ctx.state_dir, job->id, &err))
		sn_log(LOG_WARNING, "job %u: attempt file not removed: %s",
		       job->id, err.msg);
	/* the baseline has served, and the steps' node cache and config */
	if (sn_baseline_remove(&ctx, job->id, &err))
		sn_log(LOG_WARNING, "job %u: baseline not removed: %s", job->id,
		       err.msg);
	if (sn_taskenv_cache_remove(ctx.state_dir, job->id, job->node, &err))
		sn_log(LOG_WARNING, "job %u: node cache not removed: %s",
		       job->id, err.msg);
	if (sn_config_snapshot_remove(ctx.state_dir, job->id, job->node, &err))
		sn_log(LOG_WARNING, "job %u: the job's config not removed: %s",
		       job->id, err.msg);
	json_object_put(record);
out:
	json_object_put(baseline);
	json_object_put(end);
	json_object_put(xids);
}

/* --help: the options and what the epilog does (supernode-epilog(8)); 0. */
static int usage(void)
{
	printf("usage: supernode-epilog [--config PATH] [--node NAME]\n"
	       "  run as slurmd's Epilog=: record what the job did to this node's\n"
	       "  fabric ports and accelerators (record_dir/<jobid>/<node>.json),\n"
	       "  update the Prometheus textfile, drain the node on a CRIT verdict\n"
	       "  --config    supernode.yaml (default: next to $SLURM_CONF, else /etc/slurm/supernode.yaml)\n"
	       "  --node      Slurm node name (default $SLURMD_NODENAME)\n"
	       "  --help      print this and exit\n"
	       "exit: always 0 (a failed Epilog would make Slurm drain the node\n"
	       "      with \"Epilog error\" instead of our reason)\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "node", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char config_path[PATH_MAX];
	const char *node = NULL;
	struct epilog_job job = { 0 };
	struct sn_config *cfg;
	struct sn_error err;
	int c;

	sn_log_open(SN_EPILOG_NAME);
	sn_config_default_path(config_path, sizeof(config_path));
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'c')
			snprintf(config_path, sizeof(config_path), "%s",
				 optarg);
		else if (c == 'n')
			node = optarg;
		else if (c == 'h')
			return usage();
		else
			return 0; /* never fail the Epilog: see the top */
	}
	if (job_read(&job, node)) {
		sn_log(LOG_ERR,
		       "SLURM_JOB_ID or SLURMD_NODENAME missing: not run by slurmd?");
		return 0;
	}
	cfg = sn_config_load(config_path, &err);
	if (!cfg) {
		sn_log(LOG_ERR,
		       "job %u: config not loaded, nothing recorded or drained: %s",
		       job.id, err.msg);
		return 0;
	}
	sn_config_log_deprecated(cfg); /* old forms: syslog */
	if ((job.supernode || cfg->prolog.all_jobs) &&
	    sn_config_find_node(cfg, job.node)) {
		alarm_arm(&job, cfg->epilog.timeout_s);
		epilog_run(cfg, &job);
	}
	sn_config_free(cfg);
	return 0;
}
