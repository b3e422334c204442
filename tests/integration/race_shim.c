/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LD_PRELOAD shim for test_drain.sh (issue 17 item 8): the admin's drain
 * lands between our read of a node and our write.  Before the Nth call
 * (SN_TEST_RACE_AT, 1-based, per process) of slurm_update_node() it runs
 *   scontrol update nodename=$SN_TEST_RACE_NODE state=drain
 *            reason=$SN_TEST_RACE_REASON
 * to its end, then makes the real call.  Test-only; never installed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void admin_drains(void)
{
	const char *node = getenv("SN_TEST_RACE_NODE");
	const char *why = getenv("SN_TEST_RACE_REASON");
	char n[256], r[512];
	pid_t pid;
	int st;

	if (!node || !why)
		return;
	snprintf(n, sizeof(n), "nodename=%s", node);
	snprintf(r, sizeof(r), "reason=%s", why);
	pid = fork();
	if (pid == 0) {
		/* scontrol calls slurm_update_node too: not through us. */
		unsetenv("LD_PRELOAD");
		unsetenv("SN_TEST_RACE_AT");
		execlp("scontrol", "scontrol", "update", n, "state=drain", r,
		       (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
}

int slurm_update_node(void *msg)
{
	static int (*real)(void *);
	static int calls;
	const char *at = getenv("SN_TEST_RACE_AT");

	if (!real)
		real = (int (*)(void *))dlsym(RTLD_NEXT, "slurm_update_node");
	if (at && ++calls == atoi(at))
		admin_drains();
	return real ? real(msg) : -1;
}
