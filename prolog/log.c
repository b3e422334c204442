/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "sn_prolog.h"

void sn_log(int priority, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", SN_PROLOG_NAME, line);
	syslog(LOG_DAEMON | priority, "%s", line);
}
