/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The drain as the prolog and the epilog do it: bounded, and logged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "drain/sn_drain.h"
#include "util/sn_log.h"
#include "checks/sn_runner.h"

struct drain_arg {
	const char *node, *reason, *tag;
};

/*
 * The drain, in a child: slurm_init() fatal()s (exits) without a readable
 * slurm.conf, and an RPC to a slurmctld that does not answer is retried
 * for MessageTimeout (10 s by default), longer than a prolog may take.
 * Writes "OUTCOME MESSAGE".
 */
static int drain_child(void *arg, int fd)
{
	const struct drain_arg *a = arg;
	struct sn_error err = { "" };
	char line[sizeof(err.msg) + 16];
	enum sn_drain_outcome o;
	int n;

	slurm_init(NULL);
	o = sn_node_drain(a->node, a->reason, a->tag, &err);
	n = snprintf(line, sizeof(line), "%d %s", (int)o, err.msg);
	if (n < 0 || write(fd, line, strlen(line)) < 0)
		return 1;
	return 0;
}

enum sn_drain_outcome sn_drain_logged(const char *node, const char *reason,
				      const char *tag,
				      unsigned budget_ms)
{
	char clean[SN_REASON_MAX + 1];
	struct drain_arg a = { node, clean, tag };
	enum sn_drain_outcome o = SN_DRAIN_ERROR;
	const char *why = "";
	char *out = NULL;
	size_t len = 0;
	int rc;

	/*
	 * Log what slurmctld will store (sn_node_drain cleans it again); a
	 * bad tag leaves "" and sn_node_drain says why.
	 */
	sn_reason_clean(clean, sizeof(clean), tag, reason);
	reason = clean;
	rc = sn_run_in_child(drain_child, &a, budget_ms, 2048, &out, &len);
	if (rc == 0 && out && out[0] >= '0' && out[0] <= '9' && out[1] == ' ') {
		o = (enum sn_drain_outcome)(out[0] - '0');
		why = out + 2;
	}
	switch (o) {
	case SN_DRAIN_DONE:
		sn_log(LOG_ERR, "drained %s: %s", node, reason);
		break;
	case SN_DRAIN_OURS_ALREADY:
		sn_log(LOG_ERR, "%s already drained by us; now: %s", node, reason);
		break;
	case SN_DRAIN_FOREIGN:
		sn_log(LOG_ERR, "%s is drained or down by someone else: left as it is; would drain: %s",
		       node, reason);
		break;
	default:
		if (rc == -1)
			sn_log(LOG_ERR, "could not drain %s (libslurm or slurmctld did not answer within %u ms): %s",
			       node, budget_ms, reason);
		else if (rc == -2 || rc == -3)
			sn_log(LOG_ERR, "could not drain %s (the drain process %s): %s",
			       node, rc == -2 ? "died" : "did not start", reason);
		else if (rc != 0)
			sn_log(LOG_ERR, "could not drain %s (libslurm exited %d, see its message above): %s",
			       node, rc, reason);
		else
			sn_log(LOG_ERR, "could not drain %s (%s): %s", node, why,
			       reason);
		break;
	}
	free(out);
	return o;
}

