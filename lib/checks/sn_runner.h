/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_RUNNER_H
#define SN_RUNNER_H

#include <stdint.h>

#include "checks/sn_check_groups.h"

/* One check group: a name for messages ("accelerators") and its function. */
struct sn_check_group {
	const char *name;
	sn_check_fn fn;
};

/* The groups the prolog runs, in report order (groups.c). */
extern const struct sn_check_group sn_check_groups[];
extern const unsigned sn_check_groups_count;

/*
 * sn_run_checks - run each group in its own child process, all at once, each
 * with check_timeout_ms and all within total_timeout_ms, and collect their
 * results (in group order) into out.  Each group's function gets a copy
 * of ctx whose deadline_ms is the moment it will be killed, so a group that
 * waits (a fabric still registering) can stop in time.
 *
 * A group that overruns is killed (SIGKILL) and reported as CRIT
 * CHECK_TIMEOUT naming it ("timeout: accelerators > 10s"); a group that dies
 * is UNKNOWN CHECK_DIED.  A child stuck in the kernel (D state) is not
 * waited for: the call returns by the deadline plus a few milliseconds
 * whatever the children do.  Returns 0, or -1 if no child could be started
 * (then out holds an UNKNOWN CHECK_RUNNER result).
 */
int sn_run_checks(const struct sn_check_ctx *ctx,
		  const struct sn_check_group *groups, unsigned ngroups,
		  uint32_t check_timeout_ms, uint32_t total_timeout_ms,
		  struct sn_results *out);

#endif
