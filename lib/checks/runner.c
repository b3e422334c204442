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

#define SN_REAP_GRACE_MS 20

int64_t sn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One running child. */
struct child {
	pid_t pid;
	int fd; /* read end; -1 once EOF */
	char *buf;
	size_t len, max;
	int64_t deadline;
	uint32_t limit_ms; /* its time limit, for the timeout message */
	int timed_out;
	int status;	 /* waitpid status, valid if reaped */
	int start_errno; /* why it could not be started */
	int reaped;
};

static int child_start(struct child *c, int (*fn)(void *, int), void *arg,
		       int64_t start, uint32_t limit_ms, size_t max)
{
	int fds[2];

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->pid = -1;
	c->deadline = start + limit_ms;
	c->limit_ms = limit_ms;
	c->max = max;
	if (pipe2(fds, O_CLOEXEC)) {
		c->start_errno = errno;
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		c->start_errno = errno;
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (c->pid == 0) {
		int rc;

		close(fds[0]);
		/* Our own process group: a kill takes any grandchildren too. */
		setpgid(0, 0);
		signal(SIGPIPE, SIG_IGN);
		rc = fn(arg, fds[1]);
		_exit(rc & 0xff);
	}
	setpgid(c->pid, c->pid);
	close(fds[1]);
	c->fd = fds[0];
	fcntl(c->fd, F_SETFL, O_NONBLOCK);
	return 0;
}

static void child_read(struct child *c)
{
	char chunk[16384];

	for (;;) {
		ssize_t n = read(c->fd, chunk, sizeof(chunk));

		if (n > 0) {
			size_t take = (size_t)n;

			if (c->len + take > c->max)
				take = c->max - c->len;
			if (take) {
				char *nb = realloc(c->buf, c->len + take + 1);

				if (!nb)
					take = 0;
				else
					c->buf = nb;
			}
			if (take) {
				memcpy(c->buf + c->len, chunk, take);
				c->len += take;
				c->buf[c->len] = '\0';
			}
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		close(c->fd); /* EOF or error */
		c->fd = -1;
		return;
	}
}

static void child_kill(struct child *c)
{
	if (c->pid > 0 && !c->reaped) {
		kill(-c->pid, SIGKILL);
		kill(c->pid, SIGKILL);
	}
	c->timed_out = 1;
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
}

static void child_reap(struct child *c)
{
	if (c->pid > 0 && !c->reaped &&
	    waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->reaped = 1;
}

/* Wait on all children until each hit EOF or its deadline. */
static void children_wait(struct child *cs, unsigned n)
{
	struct pollfd pfd[64];

	for (;;) {
		int64_t now = sn_now_ms(), next = -1;
		unsigned k = 0, map[64];

		for (unsigned i = 0; i < n && k < 64; i++) {
			if (cs[i].fd < 0)
				continue;
			if (now >= cs[i].deadline) {
				child_kill(&cs[i]);
				continue;
			}
			if (next < 0 || cs[i].deadline < next)
				next = cs[i].deadline;
			pfd[k].fd = cs[i].fd;
			pfd[k].events = POLLIN;
			map[k++] = i;
		}
		if (!k)
			break;
		if (poll(pfd, k, (int)(next - now)) < 0 && errno != EINTR)
			break;
		for (unsigned j = 0; j < k; j++)
			if (pfd[j].revents)
				child_read(&cs[map[j]]);
	}
	/* Reap with a short grace; a child in D state is left behind. */
	for (int64_t end = sn_now_ms() + SN_REAP_GRACE_MS;;) {
		int pending = 0;

		for (unsigned i = 0; i < n; i++) {
			child_reap(&cs[i]);
			pending |= cs[i].pid > 0 && !cs[i].reaped;
		}
		if (!pending || sn_now_ms() >= end)
			break;
		usleep(1000);
	}
}

static int child_status(const struct child *c)
{
	if (c->pid < 0)
		return -3;
	if (c->timed_out)
		return -1;
	if (!c->reaped)
		return -2;
	if (WIFSIGNALED(c->status))
		return -2;
	return WEXITSTATUS(c->status);
}

/*
 * A caller that ignores SIGCHLD (SIG_IGN is inherited across exec) or set
 * SA_NOCLDWAIT makes the kernel reap our children itself: waitpid() then
 * fails with ECHILD and every child would look killed.  Take the default
 * action while children run; the caller restores *old.  A handler the
 * caller installed is left alone.
 */
static void chld_default(struct sigaction *old)
{
	struct sigaction dfl;

	memset(old, 0, sizeof(*old));
	old->sa_handler = SIG_DFL;
	if (sigaction(SIGCHLD, NULL, old) ||
	    (old->sa_handler != SIG_IGN && !(old->sa_flags & SA_NOCLDWAIT)))
		return;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGCHLD, &dfl, NULL);
}

int sn_run_in_child(int (*fn)(void *arg, int fd), void *arg,
		    uint32_t timeout_ms, size_t max_bytes, char **buf,
		    size_t *len)
{
	struct sigaction old;
	struct child c;
	int rc;

	*buf = NULL;
	*len = 0;
	fflush(NULL); /* a child that exit()s must not repeat buffered output */
	chld_default(&old);
	if (child_start(&c, fn, arg, sn_now_ms(), timeout_ms, max_bytes)) {
		sigaction(SIGCHLD, &old, NULL);
		return -3;
	}
	children_wait(&c, 1);
	sigaction(SIGCHLD, &old, NULL);
	rc = child_status(&c);
	*buf = c.buf;
	*len = c.len;
	return rc;
}

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

static void group_collect(const struct sn_check_group *g, const struct child *c,
			  struct sn_results *out)
{
	int st = child_status(c);
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
	struct child cs[16];
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
	chld_default(&old);
	for (unsigned i = 0; i < ngroups; i++) {
		args[i].ctx = ctx;
		args[i].group = &groups[i];
		args[i].deadline = start + limit;
		if (child_start(&cs[i], group_child, &args[i], start, limit,
				SN_RESULTS_MAX * sizeof(struct sn_result)) == 0)
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
	children_wait(cs, ngroups);
	sigaction(SIGCHLD, &old, NULL);
	for (unsigned i = 0; i < ngroups; i++) {
		group_collect(&groups[i], &cs[i], out);
		free(cs[i].buf);
	}
	return 0;
}
