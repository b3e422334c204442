/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_LOG_H
#define SN_LOG_H

#include <syslog.h>

/*
 * Logging for the programs slurmd runs (prolog, epilog): one line to
 * stderr (slurmd's log) and to syslog (LOG_DAEMON), prefixed with the
 * program name given to sn_log_open.
 */
void sn_log_open(const char *prog);

/* sn_log - priority is a syslog level (LOG_ERR, LOG_WARNING, LOG_INFO). */
void sn_log(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
