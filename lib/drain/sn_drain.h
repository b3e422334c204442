/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_DRAIN_H
#define SN_DRAIN_H

/*
 * Draining and resuming nodes, tagged: a reason we write starts with the
 * config's drain.tag ("supernode:"), and we only ever resume a node whose
 * reason starts with it.  A node drained, downed, failed, in maintenance or
 * rebooting by anybody else is left exactly as it is (field case 15).
 * Talks to slurmctld through libslurm (slurm_load_node_single,
 * slurm_update_node); needs root or SlurmUser.
 */
#include <stddef.h>

#include "checks/sn_check.h"
#include "util/sn_error.h"

/*
 * The longest reason we write, in bytes without the NUL.  slurmctld keeps
 * any length (xstrdup), but slurmdbd stores it in the event table's
 * "reason" column, a TINYTEXT of 255 bytes (Slurm 22.05,
 * accounting_storage_mysql.c); ours stays one short line well inside it.
 */
#define SN_REASON_MAX 200
/* A composer's scratch line: one byte more than a reason, so a cut shows. */
#define SN_REASON_LINE_SIZE (SN_REASON_MAX + 2)
/*
 * A node's current reason as read from slurmctld, bytes with the NUL (a
 * longer one, set by someone else, is cut: we only compare its tag).
 */
#define SN_REASON_READ_SIZE 1024
/* Ends the kept part of a reason that had to be cut. */
#define SN_REASON_CUT "..."

enum sn_drain_outcome {
	SN_DRAIN_DONE = 0,     /* we drained it now */
	SN_DRAIN_OURS_ALREADY, /* already drained with our tag: reason kept */
	SN_DRAIN_FOREIGN,   /* drained/down/maint by someone else: untouched */
	SN_RESUME_DONE,	    /* we resumed it */
	SN_RESUME_NOT_OURS, /* not drained by us (or not drained): untouched */
	SN_DRAIN_ERROR,	    /* the RPC failed; err says why */
	SN_DRAIN_RACED,	    /* someone else drained it while we did: their
			     * reason kept, ours not written */
	SN_RESUME_WAITS,    /* drained by us for a reason health cannot
			     * re-check (epilog, bench): waits for a person */
};

/*
 * Every reason we write, as slurmctld stores it (sn_reason_clean):
 *  - it starts with the drain tag, then one space (or is the tag alone);
 *  - '"' becomes '\'', every control character (0x00-0x1f, 0x7f: newline,
 *    tab, escape, ...) a space, every byte above 0x7e a '?' (one byte
 *    each: the length is the byte count, and no UTF-8 sequence is cut);
 *  - at most SN_REASON_MAX bytes (and size - 1): a longer one is cut and
 *    ends with SN_REASON_CUT (before " (+N more)" when there is one).
 * The tag is never cut: a buffer too small for "TAG " + SN_REASON_CUT gets
 * "" and -1.
 */

/*
 * sn_drain_reason - "TAG CODE DEVICE FOUND expected EXPECTED" for the first
 * result that drains (CRIT, or UNKNOWN when drain_unknown), plus
 * " (+N more)" when there are others, as sn_reason_compose() writes it.
 * Returns the number of draining results (0: no drain, buf empty).
 */
size_t sn_drain_reason(const struct sn_results *r, const char *tag,
		       int drain_unknown, char *buf, size_t size);

/*
 * sn_reason_compose - the reason from its first fault and the number of
 * faults n: first (which may start with "TAG "; any length) cleaned and
 * cut to fit, then " (+N-1 more)" when n > 1.  Shared by the prolog's,
 * supernodectl health's and the epilog's reasons.  Returns 0, or -1 when
 * tag is NULL or "" or size cannot hold it (buf is then "").
 */
int sn_reason_compose(char *buf, size_t size, const char *tag,
		      const char *first, size_t n);

/*
 * sn_reason_clean - text (any length; "TAG ..." or not) as a reason of
 * ours.  Idempotent: a clean reason comes back unchanged.  Returns 0, or
 * -1 as sn_reason_compose().
 */
int sn_reason_clean(char *buf, size_t size, const char *tag, const char *text);

/*
 * sn_reason_is_ours - true if a node reason is ours: it starts with tag
 * followed by a space (or ends there), as every reason we write does.
 */
int sn_reason_is_ours(const char *reason, const char *tag);

/*
 * sn_reason_code - the code of a reason of ours ("TAG CODE ..." -> CODE)
 * into buf (size bytes, cut to fit).  Returns 0, or -1 (buf "") when the
 * reason is not ours or has no code.
 */
int sn_reason_code(const char *reason, const char *tag, char *buf, size_t size);

/*
 * sn_reason_health_resumes - true if supernodectl health may resume a node
 * drained with reason: it is ours and its code is one of the prolog's
 * checks (ACCEL_, GPU_, IB_, ... : the conditions health runs again).
 * The epilog's (EPILOG_*, XIDn, SXIDn), the bench's (BENCH_*) and any other
 * code wait for a person (contrib/supernodectl/README.md, "Who resumes").
 */
int sn_reason_health_resumes(const char *reason, const char *tag);

/*
 * sn_drain_after_mark - the decision after our first write (DRAIN without
 * a reason, which never replaces one) and a fresh read of the node's
 * reason, @before being the reason read while the node was not drained:
 * "" or unchanged since @before -> SN_DRAIN_DONE (write ours now: a reason
 * left over from an earlier drain, which Slurm 24.11 keeps after a resume,
 * is no one's decision); ours -> SN_DRAIN_OURS_ALREADY (another program of
 * ours drained it meanwhile); anything else -> SN_DRAIN_RACED (someone
 * drained it between our read and our write: their reason stays).
 */
enum sn_drain_outcome sn_drain_after_mark(const char *before,
					  const char *reason, const char *tag);

/*
 * sn_node_load - read node's Slurm state bits and reason (into reason,
 * size bytes; "" when none) from slurmctld.  Returns 0, or -1 with err set.
 */
int sn_node_load(const char *node, unsigned *state, char *reason, size_t size,
		 struct sn_error *err);

/*
 * sn_node_drain - drain node with reason unless someone else's state must be
 * kept (see enum).  The reason goes through sn_reason_clean() with tag
 * first, whoever composed it.  Slurm has no compare-and-set and replaces a
 * reason whoever set it, so an admin's drain landing between our read and
 * our write would be lost: we first set DRAIN without a reason (which
 * keeps any), read again, and write our reason only onto an empty one
 * (sn_drain_after_mark), then read once more.  current (size bytes) gets
 * the node's reason as last read ("" if none; theirs for SN_DRAIN_RACED).
 * slurm_init() must have been called.
 */
enum sn_drain_outcome sn_node_drain(const char *node, const char *reason,
				    const char *tag, char *current, size_t size,
				    struct sn_error *err);

/*
 * sn_drain_logged - drain through sn_drain_bounded() (drain/sn_bounded.h:
 * a child limited to budget_ms, which calls slurm_init() itself), with one
 * log line (sn_log) saying what happened; the line shows the reason
 * cleaned, as slurmctld stores it.
 * Returns the outcome (SN_DRAIN_ERROR when it could not tell).
 */
enum sn_drain_outcome sn_drain_logged(const char *node, const char *reason,
				      const char *tag, unsigned budget_ms);

/* sn_drain_outcome_name - "drained", "already drained by us", ... */
const char *sn_drain_outcome_name(enum sn_drain_outcome o);

/*
 * sn_node_resume - resume node only if it is drained with our tag, for a
 * reason sn_reason_health_resumes() accepts, and not DOWN, FAIL, MAINT or
 * rebooting for another reason.
 */
enum sn_drain_outcome sn_node_resume(const char *node, const char *tag,
				     struct sn_error *err);

/*
 * sn_node_state_decide - the pure decision behind the two calls above, for
 * a node in Slurm state (node_state bits) with reason (may be NULL).
 * want_drain: 1 to drain, 0 to resume.  Returns the outcome it would have
 * (SN_DRAIN_DONE / SN_RESUME_DONE meaning "do the update"; SN_RESUME_WAITS
 * for a drain of ours that health may not lift).
 */
enum sn_drain_outcome sn_node_state_decide(unsigned node_state,
					   const char *reason, const char *tag,
					   int want_drain);

#endif
