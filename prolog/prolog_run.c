/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Prolog= flow.  slurmd runs it as root, without PATH, with the job in
 * its environment (SLURM_JOB_ID, SLURMD_NODENAME, SPANK_SUPERNODE for jobs
 * that asked for --supernode).  Everything is bounded by prolog.timeout,
 * counted from the start of main():
 *
 *   start ........ checks (each group <= check_timeout) ....|.. drain ..|.|
 *                                          deadline - DRAIN_RESERVE     |  deadline
 *                                                   deadline - EXIT_MARGIN
 *
 * The checks end at the latest DRAIN_RESERVE before the deadline, so the
 * drain always has its slice inside prolog.timeout; the drain child is
 * killed EXIT_MARGIN before it, which leaves the time to reap it, log and
 * exit (a sanitized build needs about 100 ms there).  An alarm one second
 * after the deadline is the last resort whatever happens (a hung
 * slurmctld RPC included); the normal flow never reaches it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "env/sn_attempt.h"
#include "records/sn_baseline.h"
#include "env/sn_taskenv_cache.h"
#include "drain/sn_drain.h"
#include "drain/sn_requeue.h"
#include "util/sn_safedir.h"
#include "util/sn_slurm_env.h"
#include "sn_prolog.h"
#include "checks/sn_runner.h"
#include "util/sn_child.h"

/* The drain's slice: a third of prolog.timeout, at most 5 s (ms). */
#define SN_PROLOG_DRAIN_RESERVE_MAX_MS 5000
/* Left at the end for reaping the drain child, logging and exit (ms). */
#define SN_PROLOG_EXIT_MARGIN_MS 300
/* Kept from the drain's slice for counting the failed start (ms). */
#define SN_PROLOG_COUNT_RESERVE_MS 1000

static uint32_t drain_reserve(const struct sn_config *cfg)
{
	uint32_t r = cfg->prolog.timeout_s * 1000 / 3;

	return r < SN_PROLOG_DRAIN_RESERVE_MAX_MS ?
		       r :
		       SN_PROLOG_DRAIN_RESERVE_MAX_MS;
}

static uint32_t budget(int64_t deadline, uint32_t cap_ms, uint32_t reserve_ms)
{
	int64_t left = deadline - sn_now_ms() - reserve_ms;

	if (left < 100)
		left = 100;
	return left < cap_ms ? (uint32_t)left : cap_ms;
}

static void results_log(const struct sn_results *r)
{
	for (size_t i = 0; i < r->count; i++) {
		const struct sn_result *x = &r->items[i];

		if (x->grade == SN_OK)
			continue;
		sn_log(x->grade == SN_CRIT ? LOG_ERR : LOG_WARNING,
		       "%s %s %s %s: found %s, expected %s",
		       sn_grade_name(x->grade), x->check, x->code, x->device,
		       x->found, x->expected);
	}
}

static int node_drain(const char *node, const char *reason, const char *tag,
		      uint32_t budget_ms)
{
	sn_drain_logged(node, reason, tag, budget_ms);
	/* stdout ends up in slurmd's log next to "prolog failed". */
	printf("%s\n", reason);
	return SN_EXIT_CRIT;
}

/*
 * Count this failed start against placement.max_requeues (sn_requeue.h)
 * and, at the cap, hold the job before the exit makes Slurm requeue it:
 * 22.05 with nohold_on_prolog_fail has no cap of its own.
 */
static void start_count(const struct sn_config *cfg, uint32_t job_id,
			const char *node, const char *reason,
			uint32_t budget_ms)
{
	char last[SN_REASON_MAX + 130];
	struct sn_requeue_req req = { .job_id = job_id,
				      .tag = cfg->drain_tag,
				      .max = cfg->max_requeues,
				      .last = last,
				      .budget_ms = budget_ms };

	snprintf(last, sizeof(last), "%s: %s", node, reason);
	sn_requeue_logged(&req);
}

/* state_dir/prolog.lock, through the trusted folders (sn_safedir.h). */
static int lock_take(const struct sn_check_ctx *ctx, uint32_t wait_ms,
		     struct sn_error *err)
{
	int fd = sn_safedir_open(ctx->state_dir, 0700, true, err), lock;

	if (fd < 0)
		return -1;
	lock = sn_safedir_lock(fd, ctx->state_dir, "prolog.lock", wait_ms, err);
	close(fd);
	return lock;
}

/* The last resort (see alarm() below): say why, in slurmd's log. */
static void on_alarm(int sig)
{
	static const char msg[] = SN_PROLOG_NAME
		": prolog.timeout exceeded: stopped\n";
	ssize_t n;

	(void)sig;
	n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)n;
	_exit(SN_EXIT_CRIT);
}

/*
 * The job's task environment cache (sn_taskenv_cache.h): its ports and
 * socket interface, so that its steps need not gather them.  Only for
 * --supernode jobs (their steps read it); about 0.1 ms; no topology: no
 * check here loaded it in this process, and loading it would cost every
 * job tens of ms that the steps needing it pay once (and write back).
 */
static void cache_save(const struct sn_prolog_args *args,
		       const struct sn_config *cfg,
		       const struct sn_check_ctx *ctx, uint32_t job_id)
{
	struct sn_taskenv_cache_key key = { .job_id = job_id };
	struct sn_error err;

	snprintf(key.node, sizeof(key.node), "%s", args->node);
	key.config_stamp = sn_taskenv_cache_stamp(args->config);
	key.boot_stamp = sn_taskenv_boot_stamp();
	if (sn_taskenv_cache_save(cfg, ctx->sysfs, ctx->state_dir, &key, &err))
		sn_log(LOG_WARNING,
		       "job %u: no node cache for the steps (they gather): %s",
		       job_id, err.msg);
}

/*
 * The job's restart count for its steps' SUPERNODE_ATTEMPT (sn_attempt.h);
 * without one from Slurm, a stale file of a reused job id goes.
 */
static void attempt_save(const struct sn_check_ctx *ctx,
			 const struct sn_slurm_job *job)
{
	struct sn_error err;
	int rc;

	if (job->has_restart_count)
		rc = sn_attempt_save(ctx->state_dir, job->id,
				     job->restart_count, &err);
	else
		rc = sn_attempt_remove(ctx->state_dir, job->id, &err);
	if (rc)
		sn_log(LOG_WARNING,
		       "job %u: its steps get no " SN_ATTEMPT_VAR ": %s",
		       job->id, err.msg);
}

int sn_prolog_run(const struct sn_prolog_args *args, struct sn_config *cfg)
{
	int64_t deadline =
		args->start_ms + (int64_t)cfg->prolog.timeout_s * 1000;
	uint32_t check_ms = cfg->prolog.check_timeout_s * 1000;
	struct sn_results res = { 0 };
	char reason[SN_REASON_MAX + 1];
	struct sn_check_ctx ctx;
	struct sn_error err;
	struct sn_slurm_job job;
	uint32_t job_id;
	int lock, rc = SN_EXIT_OK;

	if (sn_slurm_env_job(&job)) {
		sn_log(LOG_ERR,
		       "SLURM_JOB_ID missing or invalid: not run by slurmd? (use --check by hand)");
		return SN_EXIT_USAGE;
	}
	job_id = job.id;
	if (!job.supernode && !cfg->prolog.all_jobs)
		return SN_EXIT_OK;
	if (!args->node || !*args->node) {
		sn_log(LOG_ERR,
		       "job %u: SLURMD_NODENAME is not set: nothing checked",
		       job_id);
		return SN_EXIT_OK;
	}
	if (!sn_config_find_node(cfg, args->node)) {
		/* prolog.all_jobs: a node outside every supernode has no manifest. */
		return SN_EXIT_OK;
	}
	if (sn_check_ctx_init(&ctx, cfg, args->node, &err)) {
		sn_log(LOG_ERR, "job %u: %s: nothing checked", job_id, err.msg);
		return SN_EXIT_OK;
	}
	signal(SIGALRM, on_alarm);
	alarm(cfg->prolog.timeout_s + 1);
	/* Prologs of jobs starting together take turns (bounded wait). */
	lock = lock_take(&ctx, budget(deadline, 5000, check_ms), &err);
	if (lock < 0)
		sn_log(LOG_WARNING,
		       "job %u: prolog lock not taken, checking anyway: %s",
		       job_id, err.msg);
	/* The checks leave the drain its slice of prolog.timeout (above). */
	sn_run_checks(&ctx, sn_check_groups, sn_check_groups_count,
		      budget(deadline, check_ms, drain_reserve(cfg)),
		      budget(deadline, UINT32_MAX, drain_reserve(cfg)), &res);
	results_log(&res);
	if (sn_drain_reason(&res, cfg->drain_tag, cfg->prolog.drain_on_unknown,
			    reason, sizeof(reason))) {
		/* for the epilog's record of this attempt (sn_attempt.h) */
		attempt_save(&ctx, &job);
		if (sn_attempt_failed_save(ctx.state_dir, job_id, reason, &err))
			sn_log(LOG_WARNING, "job %u: %s", job_id, err.msg);
		rc = node_drain(args->node, reason, cfg->drain_tag,
				budget(deadline, UINT32_MAX,
				       SN_PROLOG_EXIT_MARGIN_MS +
					       SN_PROLOG_COUNT_RESERVE_MS));
		start_count(cfg, job_id, args->node, reason,
			    budget(deadline, UINT32_MAX,
				   SN_PROLOG_EXIT_MARGIN_MS));
		goto out;
	}
	attempt_save(&ctx, &job);
	if (sn_baseline_save(&ctx, job_id, budget(deadline, check_ms, 500),
			     &err))
		sn_log(LOG_WARNING, "job %u: no baseline for the epilog: %s",
		       job_id, err.msg);
	if (job.supernode)
		cache_save(args, cfg, &ctx, job_id);
out:
	if (lock >= 0)
		close(lock);
	sn_results_free(&res);
	return rc;
}
