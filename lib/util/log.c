/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>

#include "util/sn_log.h"
#include "util/sn_strbuf.h"

static const char *sn_log_prog = "supernode";

void sn_log_open(const char *prog)
{
	sn_log_prog = prog;
	openlog(prog, LOG_PID, LOG_DAEMON);
}

/* The line to stderr and, when priority >= 0, to syslog. */
__attribute__((format(printf, 2, 0))) static void
emit(int priority, const char *fmt, va_list ap)
{
	struct sn_strbuf sb = SN_STRBUF_INIT;
	const char *line = "(out of memory: a log line is lost)";

	if (!sn_strbuf_vappendf(&sb, fmt, ap))
		line = sn_strbuf_str(&sb);
	fprintf(stderr, "%s: %s\n", sn_log_prog, line);
	if (priority >= 0)
		syslog(LOG_DAEMON | priority, "%s", line);
	sn_strbuf_free(&sb);
}

void sn_log(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(priority, fmt, ap);
	va_end(ap);
}

void sn_log_stderr(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(-1, fmt, ap);
	va_end(ap);
}
