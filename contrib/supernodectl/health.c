/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl health [--node NAME]: for slurm.conf HealthCheckProgram or
 * cron.  Runs the prolog's checks (the same runner, groups and time limits)
 * on this node, then:
 *   a check drains (CRIT)        -> drain with the prolog's reason
 *   all pass (OK/WARN), node drained with our tag for a prolog check's
 *   code, nothing else holding it -> resume
 *   drained with our tag for an epilog or bench code (EPILOG_*, XIDn,
 *   BENCH_SLOW)                  -> left for a person
 *   (sn_reason_health_resumes)
 *   anything else (admin's drain, DOWN, REBOOT, MAINT, "Not responding",
 *   an UNKNOWN)                  -> left exactly as it is, with a log line
 * (field case 15; the decision itself is sn_node_state_decide in lib/).
 *
 * Talking to slurmctld happens in a child process with a time limit
 * (sn_drain_bounded, lib/drain/bounded.c): libslurm's slurm_init() exit()s
 * the process when it finds no slurm.conf (after retrying for a minute when
 * $SLURM_CONF names a missing file), and an RPC to a dead controller blocks
 * for seconds.  Neither may hang slurmd's health check or change our exit
 * code.
 *
 * Exit codes as supernode-prolog --check: 0 ok, 1 warn, 2 crit, 3 unknown,
 * 4 usage or a config that does not load (then nothing is drained or
 * resumed).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "drain/sn_bounded.h"
#include "drain/sn_drain.h"
#include "checks/sn_report.h"
#include "checks/sn_runner.h"
#include "util/sn_hostlist.h"
#include "util/sn_slurm_env.h"
#include "snctl.h"

enum {
	HEALTH_EXIT_OK = 0,
	HEALTH_EXIT_WARN = 1,
	HEALTH_EXIT_CRIT = 2,
	HEALTH_EXIT_UNKNOWN = 3,
	HEALTH_EXIT_USAGE = 4,
};

#define HEALTH_SLURM_TIMEOUT_MS 30000u /* slurm_init + read + update */

struct health_args {
	struct snctl_global g;
	const char *node;
	char host[SN_HOST_NAME_SIZE];
};

static void health_usage(void)
{
	fprintf(stderr, "usage: %s [--config PATH] health [--node NAME]\n",
		SNCTL_NAME);
}

static int health_args_parse(int argc, char **argv, struct health_args *a)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "node", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'c')
			a->g.config = optarg;
		else if (c == 'n')
			a->node = optarg;
		else
			return -1;
	}
	if (optind < argc) {
		sn_log_stderr("health: unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

/* --node, else $SLURMD_NODENAME, else the short host name. */
static int node_default(struct health_args *a)
{
	a->node =
		snctl_node_default(a->node, a->host, sizeof(a->host), "health");
	return a->node ? 0 : -1;
}

/* Print the results that are not OK (an all-OK run prints none). */
static void results_print(const struct sn_results *r)
{
	struct sn_results bad = { 0 };

	for (size_t i = 0; i < r->count; i++) {
		const struct sn_result *x = &r->items[i];

		if (x->grade != SN_OK)
			sn_results_add(&bad, x->grade, x->check, x->code,
				       x->device, x->expected, "%s", x->found);
	}
	if (bad.count)
		sn_report_table(stdout, &bad);
	sn_results_free(&bad);
}

/* "IDLE+DRAIN", "DOWN+NOT_RESPONDING": enough to say why we keep out. */
static void state_text(unsigned state, char *buf, size_t size)
{
	static const char *const base[] = { "UNKNOWN",	 "DOWN",  "IDLE",
					    "ALLOCATED", "ERROR", "MIXED",
					    "FUTURE" };
	static const struct {
		unsigned bit;
		const char *name;
	} flags[] = {
		{ NODE_STATE_DRAIN, "+DRAIN" },
		{ NODE_STATE_FAIL, "+FAIL" },
		{ NODE_STATE_MAINT, "+MAINT" },
		{ NODE_STATE_REBOOT_REQUESTED, "+REBOOT_REQUESTED" },
		{ NODE_STATE_REBOOT_ISSUED, "+REBOOT_ISSUED" },
		{ NODE_STATE_NO_RESPOND, "+NOT_RESPONDING" },
	};
	unsigned b = state & NODE_STATE_BASE;

	snprintf(buf, size, "%s", b < 7 ? base[b] : "?");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if ((state & flags[i].bit) &&
		    strlen(buf) + strlen(flags[i].name) < size)
			strcat(buf, flags[i].name);
}

/* The line that says what was done (or left alone) and why. */
static void outcome_text(const struct sn_bounded_req *j,
			 const struct sn_bounded_report *rep, char *msg,
			 size_t size)
{
	enum sn_drain_outcome o = rep->outcome;
	unsigned state = rep->state;
	const char *cur = rep->current;
	char st[128];

	state_text(state, st, sizeof(st));

	switch (o) {
	case SN_DRAIN_DONE:
		snprintf(msg, size, "%s: drained: %s", j->node, j->reason);
		break;
	case SN_DRAIN_OURS_ALREADY:
		snprintf(msg, size,
			 "%s: already drained by us (\"%s\"): left as it is",
			 j->node, cur);
		break;
	case SN_DRAIN_FOREIGN:
		snprintf(
			msg, size,
			"%s: %s, reason \"%s\", not ours: left as it is; would drain: %s",
			j->node, st, cur, j->reason);
		break;
	case SN_DRAIN_RACED:
		snprintf(
			msg, size,
			"%s: drained by someone else at the same time, reason \"%s\": their reason kept; would drain: %s",
			j->node, cur, j->reason);
		break;
	case SN_RESUME_DONE:
		snprintf(msg, size, "%s: checks pass: resumed (was \"%s\")",
			 j->node, cur);
		break;
	case SN_RESUME_WAITS:
		snprintf(
			msg, size,
			"%s: checks pass; drained by us, reason \"%s\": not a condition health can check again, left for a person",
			j->node, cur);
		break;
	case SN_RESUME_NOT_OURS:
		if (*cur || (state & NODE_STATE_DRAIN) ||
		    (state & NODE_STATE_BASE) == NODE_STATE_DOWN)
			snprintf(
				msg, size,
				"%s: checks pass; %s, reason \"%s\", not ours: left as it is",
				j->node, st, cur);
		else
			snprintf(msg, size,
				 "%s: checks pass; %s: nothing to do", j->node,
				 st);
		break;
	default:
		snprintf(msg, size, "%s: %s", j->node, rep->why);
		break;
	}
}

static int outcome_priority(int o)
{
	switch (o) {
	case SN_DRAIN_DONE:
	case SN_DRAIN_ERROR:
		return LOG_ERR;
	case SN_DRAIN_FOREIGN:
	case SN_DRAIN_RACED:
	case SN_DRAIN_OURS_ALREADY:
	case SN_RESUME_WAITS:
		return LOG_WARNING;
	case SN_RESUME_DONE:
		return LOG_NOTICE;
	default:
		return LOG_INFO;
	}
}

/* Drain or resume through a bounded child; log what happened. */
static void slurm_act(const struct sn_bounded_req *j)
{
	struct sn_bounded_report rep;
	char msg[2048];

	sn_drain_bounded(j, &rep);
	if (rep.run == SN_BOUNDED_NO_CONF) {
		sn_log(LOG_ERR, "%s: SLURM_CONF=%s does not exist: nothing %s",
		       j->node, getenv("SLURM_CONF"),
		       j->want_drain ? "drained" : "resumed");
	} else if (rep.run == 0) {
		outcome_text(j, &rep, msg, sizeof(msg));
		sn_log(outcome_priority(rep.outcome), "%s", msg);
	} else {
		sn_log(LOG_ERR, "%s: cannot talk to slurmctld (%s): nothing %s",
		       j->node,
		       rep.run == -1 ? "timed out" :
		       rep.run == -2 ? "libslurm crashed" :
				       "libslurm gave up, see above",
		       j->want_drain ? "drained" : "resumed");
	}
}

/* Run the checks and act on them; returns the exit code. */
static int health_run(const struct health_args *a, const struct sn_config *cfg)
{
	struct sn_results res = { 0 };
	char reason[SN_REASON_MAX + 1];
	struct sn_bounded_req job = { .node = a->node,
				      .tag = cfg->drain_tag,
				      .reason = reason,
				      .check_conf = true,
				      .budget_ms = HEALTH_SLURM_TIMEOUT_MS };
	struct sn_check_ctx ctx;
	struct sn_error err;
	enum sn_grade worst;

	if (sn_check_ctx_init(&ctx, cfg, a->node, &err)) {
		sn_log(LOG_ERR, "%s: %s: nothing checked", a->node, err.msg);
		return HEALTH_EXIT_USAGE;
	}
	sn_run_checks(&ctx, sn_check_groups, sn_check_groups_count,
		      cfg->prolog.check_timeout_s * 1000,
		      cfg->prolog.timeout_s * 1000, &res);
	worst = sn_results_worst(&res);
	results_print(&res);
	printf("%s: %s: %zu checks, worst %s\n", SNCTL_NAME, a->node, res.count,
	       sn_grade_name(worst));
	fflush(stdout);
	if (sn_drain_reason(&res, cfg->drain_tag, cfg->prolog.drain_on_unknown,
			    reason, sizeof(reason))) {
		job.want_drain = true;
		slurm_act(&job);
	} else if (worst == SN_OK || worst == SN_WARN) {
		slurm_act(&job);
	} else {
		sn_log(LOG_WARNING,
		       "%s: a check could not tell (%s): node left as it is",
		       a->node, sn_grade_name(worst));
	}
	sn_results_free(&res);
	return sn_grade_exit(worst);
}

int snctl_health(const struct snctl_global *g, int argc, char **argv)
{
	struct health_args a = { .g = *g };
	struct sn_config *cfg = NULL;
	int rc;

	if (health_args_parse(argc, argv, &a) || node_default(&a)) {
		health_usage();
		return HEALTH_EXIT_USAGE;
	}
	if (snctl_config_load(&a.g, &cfg)) {
		sn_log(LOG_ERR,
		       "%s: config not loaded: nothing checked, drained or resumed",
		       a.node);
		return HEALTH_EXIT_USAGE;
	}
	if (!sn_config_find_node(cfg, a.node)) {
		printf("%s: %s is in no supernode of %s: nothing to do\n",
		       SNCTL_NAME, a.node, cfg->path);
		rc = HEALTH_EXIT_OK;
		goto out;
	}
	rc = health_run(&a, cfg);
out:
	sn_config_free(cfg);
	return rc;
}
