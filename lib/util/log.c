/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>

#include "util/sn_log.h"

static const char *sn_log_prog = "supernode";

void sn_log_open(const char *prog)
{
	sn_log_prog = prog;
	openlog(prog, LOG_PID, LOG_DAEMON);
}

void sn_log(int priority, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", sn_log_prog, line);
	syslog(LOG_DAEMON | priority, "%s", line);
}
