/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Prolog= flow.  slurmd runs it as root, without PATH, with the job in
 * its environment (SLURM_JOB_ID, SLURMD_NODENAME, SPANK_SUPERNODE for jobs
 * that asked for --supernode).  Everything is bounded by prolog.timeout:
 * checks and baseline run in children that are killed when they overrun,
 * and an alarm ends the process one second after the budget whatever
 * happens (a hung slurmctld RPC included).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "records/sn_baseline.h"
#include "drain/sn_drain.h"
#include "util/sn_safedir.h"
#include "util/sn_number.h"
#include "sn_prolog.h"
#include "checks/sn_runner.h"

static int job_id_get(uint32_t *out)
{
	const char *s = getenv("SLURM_JOB_ID");
	long long v;

	if (!s || !sn_number_parse(s, &v) || v < 1 || v > 0xfffffff0LL)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static bool job_wants_checks(const struct sn_config *cfg)
{
	const char *s = getenv("SPANK_SUPERNODE");

	return (s && *s) || cfg->prolog.all_jobs;
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

int sn_prolog_run(const struct sn_prolog_args *args, struct sn_config *cfg)
{
	int64_t deadline = sn_now_ms() + (int64_t)cfg->prolog.timeout_s * 1000;
	uint32_t check_ms = cfg->prolog.check_timeout_s * 1000;
	struct sn_results res = { 0 };
	char reason[SN_REASON_MAX + 1];
	struct sn_check_ctx ctx;
	struct sn_error err;
	uint32_t job_id;
	int lock, rc = SN_EXIT_OK;

	if (job_id_get(&job_id)) {
		sn_log(LOG_ERR,
		       "SLURM_JOB_ID missing or invalid: not run by slurmd? (use --check by hand)");
		return SN_EXIT_USAGE;
	}
	if (!job_wants_checks(cfg))
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
	/* Checks may use all of prolog.timeout; the drain has the second after. */
	sn_run_checks(&ctx, sn_check_groups, sn_check_groups_count,
		      budget(deadline, check_ms, 0),
		      budget(deadline, UINT32_MAX, 0), &res);
	results_log(&res);
	if (sn_drain_reason(&res, cfg->drain_tag, cfg->prolog.drain_on_unknown,
			    reason, sizeof(reason))) {
		rc = node_drain(args->node, reason, cfg->drain_tag,
				budget(deadline + 900, UINT32_MAX, 0));
		goto out;
	}
	if (sn_baseline_save(&ctx, job_id, budget(deadline, check_ms, 500),
			     &err))
		sn_log(LOG_WARNING, "job %u: no baseline for the epilog: %s",
		       job_id, err.msg);
out:
	if (lock >= 0)
		close(lock);
	sn_results_free(&res);
	return rc;
}
