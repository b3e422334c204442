/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a vendor backend calls (see sn_vendor_lib.h): the text setter, the
 * symbol lookup and the per-call watchdog.  Apart from vendor_lib.c so
 * that the backends, which vendor_lib.c's table names, do not call back
 * into it (tests/layout/check_calls: no call cycle).
 *
 * The watchdog lives in the reading child only (sn_vcall_arm): SIGALRM
 * set by setitimer() for the call being made; its handler writes what was
 * read so far, with hung_call named, down the pipe (write() is
 * async-signal-safe) and _exit()s.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "inventory/sn_vendor_lib.h"
#include "util/sn_child.h"

void sn_vendor_set(char *field, size_t size, const char *fmt, ...)
{
	struct sn_error whole;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(whole.msg, sizeof(whole.msg), fmt, ap);
	va_end(ap);
	sn_error_cut(field, size, whole.msg);
}

int sn_vendor_sym(void *dl, const char *name, void *fn, bool required,
		  struct sn_vendor_node *out)
{
	void *p = dlsym(dl, name);

	memcpy(fn, &p, sizeof(p));
	if (p || !required)
		return 0;
	/* the phrase first, the path last: a long path is cut, not it */
	SN_VSET(out->error, "no symbol %s: library too old or not %s: %s", name,
		sn_vendor_of(out->vendor)->library, out->library);
	return -1;
}

/* ---- the watchdog ------------------------------------------------------- */

static struct {
	struct sn_vendor_node *node; /* being filled; NULL = no child */
	int fd;
	int64_t deadline; /* the child's: calls are cut before it */
	char call[SN_VENDOR_TEXT];
	uint32_t limit;
} wd = { .fd = -1 };

static void wd_fire(int sig)
{
	const char *p;
	size_t left;

	(void)sig;
	memcpy(wd.node->hung_call, wd.call, sizeof(wd.call));
	wd.node->hung_ms = wd.limit;
	p = (const char *)wd.node;
	left = sizeof(*wd.node);
	while (left) {
		ssize_t n = write(wd.fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		p += n;
		left -= (size_t)n;
	}
	_exit(0);
}

void sn_vcall_begin(uint32_t limit_ms, const char *fmt, ...)
{
	struct itimerval it = { 0 };
	int64_t left;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(wd.call, sizeof(wd.call), fmt, ap);
	va_end(ap);
	if (!wd.node)
		return;
	left = wd.deadline - sn_now_ms();
	if (!limit_ms)
		limit_ms = SN_VENDOR_CALL_MS;
	if (left < (int64_t)limit_ms)
		limit_ms = left > 1 ? (uint32_t)left : 1;
	wd.limit = limit_ms;
	it.it_value.tv_sec = limit_ms / 1000;
	it.it_value.tv_usec = (limit_ms % 1000) * 1000;
	setitimer(ITIMER_REAL, &it, NULL);
}

void sn_vcall_end(void)
{
	struct itimerval it = { 0 };

	if (wd.node)
		setitimer(ITIMER_REAL, &it, NULL);
}

void sn_vcall_arm(struct sn_vendor_node *node, int fd, int64_t deadline_ms)
{
	struct sigaction sa = { 0 };

	wd.node = node;
	wd.fd = fd;
	wd.deadline = deadline_ms;
	sa.sa_handler = wd_fire;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
}
