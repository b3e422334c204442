/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_LOG_H
#define SN_LOG_H

#include <syslog.h>

/*
 * The one logger of the programs (prolog, epilog, supernodectl): one line
 * to stderr (slurmd's log, or the admin's terminal) prefixed with the
 * program's name, "supernode-prolog: ...", and the same line without the
 * prefix to syslog (LOG_DAEMON).  The line is built whole, of any length,
 * and written with one call, so lines of processes sharing stderr do not
 * interleave.  Before sn_log_open the name is "supernode".
 */

/* sn_log_open - name the program (the string must outlive the logging) and
 * openlog(prog, LOG_PID, LOG_DAEMON). */
void sn_log_open(const char *prog);

/* sn_log - priority is a syslog level (LOG_ERR, LOG_WARNING, LOG_INFO). */
void sn_log(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * sn_log_stderr - the line to stderr only, not to syslog: a command's
 * answer to its user ("supernodectl: no command given").
 */
void sn_log_stderr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
