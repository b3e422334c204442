/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The check runner.  Every check group runs in a child process: a hung NVML
 * call or a sysfs read that never returns can then be stopped with SIGKILL,
 * which a thread cannot be.  Results travel back over a pipe as an array of
 * struct sn_result (fixed-size records, so a partial write is detectable).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/sn_file.h"
#include "checks/sn_runner.h"
#include "util/sn_child.h"

/* ---- check groups ------------------------------------------------------ */

struct group_arg {
	const struct sn_check_ctx *ctx;
	const struct sn_check_group *group;
	int64_t deadline; /* when the runner kills it (sn_now_ms) */
};

/* In the child: the group sees its own deadline in a copy of the ctx. */
static int group_child(void *arg, int fd)
{
	struct group_arg *ga = arg;
	struct sn_results res = { 0 };
	struct sn_check_ctx *ctx = malloc(sizeof(*ctx));
	int rc;

	if (!ctx)
		return 1;
	*ctx = *ga->ctx;
	ctx->deadline_ms = ga->deadline;
	ga->group->fn(ctx, &res);
	rc = sn_write_all(fd, res.items, res.count * sizeof(*res.items)) ? 1 :
									   0;
	free(ctx);
	return rc;
}

static void group_collect(const struct sn_check_group *g,
			  const struct sn_child *c, struct sn_results *out)
{
	int st = sn_child_status(c);
	size_t n = c->len / sizeof(struct sn_result);
	const struct sn_result *items = (const struct sn_result *)c->buf;
	char found[SN_VALUE_MAX];

	if (st == -1) {
		/* The limit it really had: total_timeout may have cut it. */
		if (c->limit_ms % 1000)
			snprintf(found, sizeof(found), "timeout: %s > %u.%us",
				 g->name, c->limit_ms / 1000,
				 c->limit_ms % 1000 / 100);
		else
			snprintf(found, sizeof(found), "timeout: %s > %us",
				 g->name, c->limit_ms / 1000);
		sn_results_add(out, SN_CRIT, g->name, "CHECK_TIMEOUT", g->name,
			       "finish within its time budget", "%s", found);
		return;
	}
	if (st == -2 && c->reaped && WIFSIGNALED(c->status)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(c->status));

		sn_results_add(out, SN_UNKNOWN, g->name, "CHECK_DIED", g->name,
			       "check completes", "killed by SIG%s",
			       abbrev ? abbrev : "?");
		return;
	}
	if (st != 0 || c->len % sizeof(struct sn_result)) {
		if (st == -2)
			snprintf(found, sizeof(found), "did not exit");
		else if (st == -3)
			snprintf(found, sizeof(found), "not started: %s",
				 strerror(c->start_errno));
		else if (st)
			snprintf(found, sizeof(found), "exit %d", st);
		else
			snprintf(found, sizeof(found),
				 "partial result (%zu bytes)", c->len);
		sn_results_add(out, SN_UNKNOWN, g->name, "CHECK_DIED", g->name,
			       "check completes", "%s", found);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct sn_result r = items[i];

		/* Never trust a record blindly: force NUL termination. */
		r.check[SN_CODE_MAX - 1] = r.code[SN_CODE_MAX - 1] = '\0';
		r.device[SN_DEVICE_MAX - 1] = '\0';
		r.expected[SN_VALUE_MAX - 1] = r.found[SN_VALUE_MAX - 1] = '\0';
		if (r.grade > SN_UNKNOWN)
			r.grade = SN_UNKNOWN;
		sn_results_add(out, r.grade, r.check, r.code, r.device,
			       r.expected, "%s", r.found);
	}
}

int sn_run_checks(const struct sn_check_ctx *ctx,
		  const struct sn_check_group *groups, unsigned ngroups,
		  uint32_t check_timeout_ms, uint32_t total_timeout_ms,
		  struct sn_results *out)
{
	struct sn_child cs[16];
	struct group_arg args[16];
	uint32_t limit = check_timeout_ms < total_timeout_ms ?
				 check_timeout_ms :
				 total_timeout_ms;
	int64_t start = sn_now_ms();
	unsigned started = 0;
	struct sigaction old;
	int start_errno = 0;

	if (ngroups > 16)
		ngroups = 16;
	fflush(NULL); /* children must not repeat buffered output */
	sn_child_sigchld_default(&old);
	for (unsigned i = 0; i < ngroups; i++) {
		args[i].ctx = ctx;
		args[i].group = &groups[i];
		args[i].deadline = start + limit;
		if (sn_child_start(&cs[i], group_child, &args[i], start, limit,
				   SN_RESULTS_MAX * sizeof(struct sn_result)) ==
		    0)
			started++;
		else
			start_errno = cs[i].start_errno;
	}
	if (!started) {
		sigaction(SIGCHLD, &old, NULL);
		sn_results_add(out, SN_UNKNOWN, "runner", "CHECK_RUNNER",
			       "node", "fork a check process", "%s",
			       strerror(start_errno));
		return -1;
	}
	sn_child_wait_all(cs, ngroups);
	sigaction(SIGCHLD, &old, NULL);
	for (unsigned i = 0; i < ngroups; i++) {
		group_collect(&groups[i], &cs[i], out);
		free(cs[i].buf);
	}
	return 0;
}
