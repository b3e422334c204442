/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_BOUNDED_H
#define SN_BOUNDED_H

/*
 * Drain or resume a node in a child process with a time limit: the one way
 * the prolog, the epilog and supernodectl health talk to slurmctld.
 *
 * libslurm's slurm_init() exit()s the process when it finds no slurm.conf
 * (after retrying for a minute when $SLURM_CONF names a missing file), and
 * an RPC to a slurmctld that does not answer is retried for MessageTimeout
 * (10 s by default), longer than a prolog may take.  Neither may hang or
 * end the caller, so the child does slurm_init(), reads the node, decides
 * with sn_node_state_decide() and drains or resumes; the caller gets a
 * fixed-size report back through a pipe.
 */
#include <stdbool.h>

#include "drain/sn_drain.h"
#include "util/sn_error.h"

/* sn_drain_bounded() could not ask: $SLURM_CONF names a missing file. */
#define SN_BOUNDED_NO_CONF (-4)

/* What to do with which node. */
struct sn_bounded_req {
	const char *node;   /* Slurm node name */
	const char *tag;    /* drain tag (config drain.tag) */
	const char *reason; /* want_drain: the reason (cleaned again by
				 * sn_node_drain); unused for a resume */
	bool want_drain;    /* true: drain; false: resume if ours */
	bool check_conf;    /* first refuse a $SLURM_CONF that names a
				 * missing file (SN_BOUNDED_NO_CONF), instead
				 * of letting slurm_init() retry to the limit */
	unsigned budget_ms; /* the child is killed after this */
};

/* What happened; a record that crosses the pipe, hence fixed-size. */
struct sn_bounded_report {
	int run; /* 0: the child answered; -1 timed out (killed),
				 * -2 died of a signal, -3 not started,
				 * SN_BOUNDED_NO_CONF, > 0 libslurm exit()ed
				 * the child with this status */
	enum sn_drain_outcome outcome; /* SN_DRAIN_ERROR unless run is 0 */
	unsigned state; /* node_state bits read (0 if not read) */
	char current[SN_REASON_READ_SIZE]; /* its reason as read, "" if none */
	char why[1024]; /* SN_DRAIN_ERROR: what went wrong (an
				 * sn_error message) */
};

/*
 * sn_drain_bounded - in a child limited to req->budget_ms: slurm_init(),
 * sn_node_load(), sn_node_state_decide(), then sn_node_drain() or
 * sn_node_resume() when the decision is to act.  Fills *rep (always);
 * logs nothing.  Returns rep->outcome.
 */
enum sn_drain_outcome sn_drain_bounded(const struct sn_bounded_req *req,
				       struct sn_bounded_report *rep);

#endif
