/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drain or resume in a bounded child (sn_drain_bounded), and the drain as
 * the prolog and the epilog log it (sn_drain_logged).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "util/sn_child.h"
#include "drain/sn_bounded.h"
#include "drain/sn_drain.h"
#include "util/sn_log.h"

/* The child: read the node, decide with lib's rule, act; report through fd. */
static int bounded_child(void *arg, int fd)
{
	const struct sn_bounded_req *req = arg;
	struct sn_bounded_report rep = { .outcome = SN_DRAIN_ERROR };
	struct sn_error err = { "" };
	enum sn_drain_outcome o;
	ssize_t n;

	slurm_init(NULL);
	if (sn_node_load(req->node, &rep.state, rep.current,
			 sizeof(rep.current), &err)) {
		o = SN_DRAIN_ERROR;
		goto out;
	}
	o = sn_node_state_decide(rep.state, rep.current, req->tag,
				 req->want_drain);
	if (o == SN_DRAIN_DONE)
		o = sn_node_drain(req->node, req->reason, req->tag, rep.current,
				  sizeof(rep.current), &err);
	else if (o == SN_RESUME_DONE)
		o = sn_node_resume(req->node, req->tag, &err);
out:
	rep.outcome = o;
	snprintf(rep.why, sizeof(rep.why), "%s", err.msg);
	n = write(fd, &rep, sizeof(rep));
	slurm_fini();
	return n == (ssize_t)sizeof(rep) ? 0 : 1;
}

/* libslurm retries a missing $SLURM_CONF for a minute, then exits. */
static int slurm_conf_missing(void)
{
	const char *conf = getenv("SLURM_CONF");
	struct stat st;

	return conf && *conf && stat(conf, &st) != 0;
}

enum sn_drain_outcome sn_drain_bounded(const struct sn_bounded_req *req,
				       struct sn_bounded_report *rep)
{
	char *out = NULL;
	size_t len = 0;

	memset(rep, 0, sizeof(*rep));
	rep->outcome = SN_DRAIN_ERROR;
	if (req->check_conf && slurm_conf_missing()) {
		rep->run = SN_BOUNDED_NO_CONF;
		return rep->outcome;
	}
	rep->run = sn_run_in_child(bounded_child, (void *)req, req->budget_ms,
				   sizeof(*rep), &out, &len);
	if (rep->run == 0 && len == sizeof(*rep)) {
		memcpy(rep, out, sizeof(*rep));
		rep->current[sizeof(rep->current) - 1] = '\0';
		rep->why[sizeof(rep->why) - 1] = '\0';
		rep->run = 0;
	} else if (rep->run == 0) {
		rep->run = 1; /* answered, but not whole: as a failed write */
	}
	free(out);
	return rep->outcome;
}

enum sn_drain_outcome sn_drain_logged(const char *node, const char *reason,
				      const char *tag, unsigned budget_ms)
{
	char clean[SN_REASON_MAX + 1];
	struct sn_bounded_req req = { .node = node,
				      .tag = tag,
				      .reason = clean,
				      .want_drain = true,
				      .budget_ms = budget_ms };
	struct sn_bounded_report rep;
	enum sn_drain_outcome o;
	int rc;

	/*
	 * Log what slurmctld will store (sn_node_drain cleans it again); a
	 * bad tag leaves "" and sn_node_drain says why.
	 */
	sn_reason_clean(clean, sizeof(clean), tag, reason);
	reason = clean;
	o = sn_drain_bounded(&req, &rep);
	rc = rep.run;
	switch (o) {
	case SN_DRAIN_DONE:
		sn_log(LOG_ERR, "drained %s: %s", node, reason);
		break;
	case SN_DRAIN_OURS_ALREADY:
		sn_log(LOG_ERR, "%s already drained by us; now: %s", node,
		       reason);
		break;
	case SN_DRAIN_FOREIGN:
		sn_log(LOG_ERR,
		       "%s is drained or down by someone else: left as it is; would drain: %s",
		       node, reason);
		break;
	case SN_DRAIN_RACED:
		sn_log(LOG_ERR,
		       "%s was drained by someone else at the same time (\"%s\"): their reason kept, ours not written; would drain: %s",
		       node, rep.current, reason);
		break;
	default:
		if (rc == -1)
			sn_log(LOG_ERR,
			       "could not drain %s (libslurm or slurmctld did not answer within %u ms): %s",
			       node, budget_ms, reason);
		else if (rc == -2 || rc == -3)
			sn_log(LOG_ERR,
			       "could not drain %s (the drain process %s): %s",
			       node, rc == -2 ? "died" : "did not start",
			       reason);
		else if (rc != 0)
			sn_log(LOG_ERR,
			       "could not drain %s (libslurm exited %d, see its message above): %s",
			       node, rc, reason);
		else
			sn_log(LOG_ERR, "could not drain %s (%s): %s", node,
			       rep.why, reason);
		break;
	}
	return o;
}
