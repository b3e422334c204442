/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LD_PRELOAD shim for test_epilog_timeout.sh: fsync() first sleeps
 * $SN_TEST_SLOW_FSYNC_S seconds, so a real supernode-epilog overruns its
 * epilog.timeout while it writes the record.  Test-only; never installed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

int fsync(int fd)
{
	static int (*real)(int);
	const char *s = getenv("SN_TEST_SLOW_FSYNC_S");
	struct timespec t = { .tv_sec = s ? atoi(s) : 0 };

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	if (t.tv_sec > 0)
		nanosleep(&t, NULL);
	return real ? real(fd) : 0;
}
