/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Children with time limits (sn_child.h): a hung library call or a read
 * that never returns is stopped with SIGKILL, which a thread cannot be;
 * what the child writes to its pipe comes back, bounded.  Used by the
 * check runner, the bounded drain, the baseline, the task environment and
 * the programs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/sn_child.h"
#include "util/sn_file.h"

#define SN_REAP_GRACE_MS 20
#define SN_DEFER_MAX 4

/*
 * What a child writes after fn's output: the parent then knows it finished
 * and its status without waiting for its exit, and whether cleanup it
 * deferred (sn_child_defer) still runs.  Marked by a magic no output of
 * ours ends with by chance.
 */
struct trailer {
	char magic[8]; /* "SNCHILD" */
	int32_t rc;    /* fn's return */
	int32_t deferred;
};

static const char trailer_magic[8] = "SNCHILD";

/* In a child: the cleanup it deferred until after its output is sent. */
static struct {
	int in_child;
	unsigned n;
	void (*fn[SN_DEFER_MAX])(void *);
	void *arg[SN_DEFER_MAX];
} defer;

int sn_child_defer(void (*fn)(void *), void *arg)
{
	if (!defer.in_child || defer.n >= SN_DEFER_MAX)
		return -1;
	defer.fn[defer.n] = fn;
	defer.arg[defer.n++] = arg;
	return 0;
}

/*
 * The child's end: fn's output sent, the trailer, then deferred cleanup.
 * The trailer goes through tfd, the child's own copy of the pipe: fn may
 * have closed the fd it was given (fdopen + fclose, as --learn does), and
 * that number may since be another file's.  fd is closed only while it
 * still is the pipe (pipe_ino), so that the parent sees EOF before the
 * deferred cleanup runs.
 */
static void child_finish(int fd, int tfd, ino_t pipe_ino, int rc)
{
	struct trailer t = { .rc = rc, .deferred = defer.n > 0 };
	struct stat st;

	if (!fstat(fd, &st) && st.st_ino == pipe_ino && S_ISFIFO(st.st_mode))
		close(fd);
	memcpy(t.magic, trailer_magic, sizeof(t.magic));
	if (tfd >= 0) {
		(void)sn_write_all(tfd, &t, sizeof(t)); /* none: parent reaps */
		close(tfd);
	}
	while (defer.n--)
		defer.fn[defer.n](defer.arg[defer.n]);
	_exit(rc & 0xff);
}

int64_t sn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sn_child_start(struct sn_child *c, int (*fn)(void *, int), void *arg,
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
		struct stat st;
		int rc, tfd;

		close(fds[0]);
		/* Our own process group: a kill takes any grandchildren too. */
		setpgid(0, 0);
		signal(SIGPIPE, SIG_IGN);
		defer.in_child = 1;
		defer.n = 0;
		tfd = fcntl(fds[1], F_DUPFD_CLOEXEC, 0);
		if (fstat(fds[1], &st))
			st.st_ino = 0;
		rc = fn(arg, fds[1]);
		child_finish(fds[1], tfd, st.st_ino, rc);
	}
	setpgid(c->pid, c->pid);
	close(fds[1]);
	c->fd = fds[0];
	fcntl(c->fd, F_SETFL, O_NONBLOCK);
	return 0;
}

/* At EOF: the trailer off the output (c->done), the output cut at max. */
static void trailer_take(struct sn_child *c)
{
	struct trailer t;

	if (c->len >= sizeof(t) &&
	    !memcmp(c->buf + c->len - sizeof(t), trailer_magic,
		    sizeof(trailer_magic))) {
		memcpy(&t, c->buf + c->len - sizeof(t), sizeof(t));
		c->len -= sizeof(t);
		c->done = 1;
		c->done_rc = t.rc & 0xff;
		c->deferred = t.deferred != 0;
	}
	if (c->len > c->max)
		c->len = c->max;
	if (c->buf && !c->len) { /* no output: no buffer, as before */
		free(c->buf);
		c->buf = NULL;
	} else if (c->buf) {
		c->buf[c->len] = '\0';
	}
}

static void child_read(struct sn_child *c)
{
	char chunk[16384];

	for (;;) {
		ssize_t n = read(c->fd, chunk, sizeof(chunk));

		if (n > 0) {
			size_t take = (size_t)n;

			/* room for the trailer beyond max (trailer_take) */
			if (c->len + take > c->max + sizeof(struct trailer))
				take = c->max + sizeof(struct trailer) - c->len;
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
		trailer_take(c);
		return;
	}
}

static void child_kill(struct sn_child *c)
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

static void child_reap(struct sn_child *c)
{
	if (c->pid > 0 && !c->reaped &&
	    waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->reaped = 1;
}

/* Wait on all children until each hit EOF or its deadline. */
void sn_child_wait_all(struct sn_child *cs, unsigned n)
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
	/*
	 * Reap with a short grace; a child in D state is left behind, and so
	 * is one that said it finished and still runs its deferred cleanup
	 * (its status came with its output).  The first pauses are short: a
	 * child that sent EOF is exiting already.
	 */
	for (int64_t end = sn_now_ms() + SN_REAP_GRACE_MS, us = 20;;) {
		int pending = 0;

		for (unsigned i = 0; i < n; i++) {
			child_reap(&cs[i]);
			pending |= cs[i].pid > 0 && !cs[i].reaped &&
				   !(cs[i].done && cs[i].deferred);
		}
		if (!pending || sn_now_ms() >= end)
			break;
		usleep((useconds_t)us);
		us = us < 1000 ? us * 2 : 1000;
	}
}

int sn_child_status(const struct sn_child *c)
{
	if (c->pid < 0)
		return -3;
	if (c->timed_out)
		return -1;
	if (!c->reaped)
		return c->done ? c->done_rc : -2;
	/* a signal in deferred cleanup does not undo a finished output */
	if (WIFSIGNALED(c->status))
		return c->done ? c->done_rc : -2;
	return WEXITSTATUS(c->status);
}

/*
 * A caller that ignores SIGCHLD (SIG_IGN is inherited across exec) or set
 * SA_NOCLDWAIT makes the kernel reap our children itself: waitpid() then
 * fails with ECHILD and every child would look killed.  Take the default
 * action while children run; the caller restores *old.  A handler the
 * caller installed is left alone.
 */
void sn_child_sigchld_default(struct sigaction *old)
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
	struct sn_child c;
	int rc;

	*buf = NULL;
	*len = 0;
	fflush(NULL); /* a child that exit()s must not repeat buffered output */
	sn_child_sigchld_default(&old);
	if (sn_child_start(&c, fn, arg, sn_now_ms(), timeout_ms, max_bytes)) {
		sigaction(SIGCHLD, &old, NULL);
		return -3;
	}
	sn_child_wait_all(&c, 1);
	sigaction(SIGCHLD, &old, NULL);
	rc = sn_child_status(&c);
	*buf = c.buf;
	*len = c.len;
	return rc;
}
