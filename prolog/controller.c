/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernode-prolog --controller: slurmctld's PrologSlurmctld.
 *
 * slurmctld runs it on the controller, as SlurmUser, once per job before
 * the job starts, with SLURM_JOB_ID, SLURM_JOB_NODELIST (the allocation)
 * and SPANK_SUPERNODE=N for jobs that asked for --supernode.  It verifies
 * that the allocation is exactly N whole supernodes (lib/allocation.c).
 * If it is not, it exits non-zero: Slurm requeues the job (or cancels it
 * when it cannot be requeued) and drains no node.  placement.method: switch
 * needs this check because --switches=N@wait is soft: once the wait
 * expires Slurm places the job on whatever nodes are free.  block needs it
 * as much: the scheduler is not trusted to place whole blocks (re-applying
 * an unchanged node's Topology= silently turns block scheduling off,
 * SchedMD/slurm PR #225; 25.11.2 dropped powered-down nodes from blocks).
 *
 * slurm.conf takes PrologSlurmctld as a path without arguments, so the
 * mode is also chosen by SLURM_SCRIPT_CONTEXT=prolog_slurmctld (slurmctld
 * sets it): PrologSlurmctld=/usr/sbin/supernode-prolog works as is.
 *
 * Bounded: no file but the config; the work is linear in the allocation;
 * Slurm RPCs only on a refusal (the count of placement.max_requeues in the
 * job's AdminComment, in a child limited to SN_CONTROLLER_COUNT_MS).  An alarm ends the process after SN_CONTROLLER_TIMEOUT_S
 * whatever happens (slurmctld would otherwise wait PrologEpilogTimeout).
 *
 * Decisions:
 *  - A job without SPANK_SUPERNODE exits 0 at once, before the config is
 *    read: every job passes through here.
 *  - A config that does not load: exit 0 (the job runs), logged as an
 *    error.  Without the config the method and the supernodes are
 *    unknowable, so nothing can be verified either way; and while the
 *    config is broken the job_submit plugin already refuses every new
 *    --supernode job, so only jobs queued before are concerned.  Requeueing
 *    them would loop (requeue, wait, place, requeue) until an admin fixes
 *    the file, holding resources and the scheduler for nothing, whereas
 *    running them loses at most the placement guarantee for those jobs.
 *    This matches the node prolog, which never acts on a broken config.
 *  - With a config loaded, a --supernode job that cannot be verified (N
 *    unparsable, SLURM_JOB_NODELIST missing or unparsable) does NOT run:
 *    exit non-zero.  Those are not admin errors but a broken job or
 *    environment, and "--supernode=N" promises N whole supernodes or
 *    nothing.  Every method is checked alike (feature placement should
 *    always pass; a failure there means slurm.conf's features disagree
 *    with supernode.yaml: run `supernodectl config check`).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "drain/sn_requeue.h"
#include "placement/sn_allocation.h"
#include "placement/sn_option.h"
#include "util/sn_slurm_env.h"
#include "sn_prolog.h"

#define SN_CONTROLLER_TIMEOUT_S 20
/* The failed start's count and hold, in a child (ms). */
#define SN_CONTROLLER_COUNT_MS 10000
#define SN_XSTR(x) SN_STR(x)
#define SN_STR(x) #x

static void on_alarm(int sig)
{
	static const char msg[] = SN_PROLOG_NAME
		": --controller: over " SN_XSTR(
			SN_CONTROLLER_TIMEOUT_S) "s: stopped, job requeued\n";
	ssize_t n;

	(void)sig;
	n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)n;
	_exit(SN_EXIT_CRIT);
}

bool sn_prolog_controller_context(void)
{
	const char *ctx = getenv("SLURM_SCRIPT_CONTEXT");

	return ctx && !strcmp(ctx, "prolog_slurmctld");
}

bool sn_prolog_controller_wanted(void)
{
	return sn_slurm_env_supernode();
}

/* Log each problem on its own line, then the verdict, and print it. */
static void verdict_log(const char *job, const char *list,
			const struct sn_allocation *a)
{
	for (size_t i = 0; i < a->n_problems; i++)
		sn_log(LOG_ERR, "job %s: %s", job, a->problems[i].text);
	if (a->dropped)
		sn_log(LOG_ERR, "job %s: +%zu more problems", job, a->dropped);
	sn_log(LOG_ERR,
	       "job %s: allocation %.200s is %s: requeued (no node drained)",
	       job, list, a->summary);
	/* stdout ends up in slurmctld's log next to the exit status. */
	printf("job %s: %s\n", job, a->summary);
}

/*
 * Count the refusal against placement.max_requeues (sn_requeue.h) and hold
 * the job at the cap: Slurm requeues a PrologSlurmctld failure without a
 * cap in every release (its MaxBatchRequeue counts launch failures only).
 */
static void start_count(const struct sn_config *cfg, const char *job,
			const char *list, const struct sn_allocation *a)
{
	char last[520];
	struct sn_requeue_req req = { .tag = cfg->drain_tag,
				      .max = cfg->max_requeues,
				      .last = last,
				      .budget_ms = SN_CONTROLLER_COUNT_MS };
	char *end;
	unsigned long id = strtoul(job, &end, 10);

	if (end == job || *end || !id || id > UINT32_MAX)
		return;
	req.job_id = (uint32_t)id;
	snprintf(last, sizeof(last), "allocation %.200s is %.300s", list,
		 a->summary);
	sn_requeue_logged(&req);
}

int sn_prolog_controller(const struct sn_prolog_args *args,
			 const struct sn_config *cfg)
{
	const char *job = getenv(SN_ENV_JOB_ID);
	const char *list = getenv("SLURM_JOB_NODELIST");
	struct sn_allocation a;
	struct sn_error err;
	uint32_t want;
	int rc;

	(void)args;
	signal(SIGALRM, on_alarm);
	alarm(SN_CONTROLLER_TIMEOUT_S);
	if (!job || !*job)
		job = "?";
	/* Any N up to the number of supernodes: max_supernodes may have
	 * been lowered after the job was submitted. */
	if (sn_supernode_count_parse(getenv(SN_ENV_SUPERNODE),
				     (uint32_t)cfg->n_supernodes, &want,
				     &err)) {
		sn_log(LOG_ERR,
		       "job %s: SPANK_SUPERNODE: %s: cannot verify, requeued",
		       job, err.msg);
		return SN_EXIT_CRIT;
	}
	rc = sn_allocation_check(cfg, list, want, &a, &err);
	if (rc < 0) {
		sn_log(LOG_ERR,
		       "job %s: SLURM_JOB_NODELIST: %s: cannot verify, requeued",
		       job, err.msg);
		return SN_EXIT_CRIT;
	}
	if (rc > 0) {
		verdict_log(job, list, &a);
		start_count(cfg, job, list, &a);
		return SN_EXIT_CRIT;
	}
	sn_log(LOG_INFO, "job %s: %s (%s)", job, a.summary, list);
	return SN_EXIT_OK;
}
