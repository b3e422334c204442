/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_REQUEUE_H
#define SN_REQUEUE_H

/*
 * The cap on failed starts that we cause (placement.max_requeues): our
 * prolog drained one of the job's nodes, or the controller check found no
 * N whole supernodes.  Counted as Slurm counts MaxBatchRequeue: the job is
 * held at its max-th failed start caused by us, so it came back at most
 * max - 1 times; 0 behaves as 1.
 *
 * The count lives in the job's AdminComment (only an admin or SlurmUser
 * may set it; it survives requeues; every Slurm from 22.05 has it), as our
 * segment at its end, after any text an admin put there:
 *
 *   supernode: failed starts 1 of 3 (restart 0); last: sna1: REASON
 *   supernode: held after 3 failed starts, placement.max_requeues 3
 *     (restart 2); last: sna1: REASON
 *
 * (the second on one line).  "restart" is Slurm's restart count of the
 * attempt last counted: the prologs of several nodes of one attempt count
 * it once, and a requeue that is not ours (preemption, scontrol requeue)
 * raises Slurm's count but not ours.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/sn_config.h"

/* placement.max_requeues absent: Slurm's MaxBatchRequeue, else this. */
#define SN_REQUEUE_DEFAULT SN_CONFIG_REQUEUES_SLURM
/* The cap where Slurm has no MaxBatchRequeue (22.05). */
#define SN_REQUEUE_FALLBACK 5
/* Our segment's longest text, bytes without the NUL. */
#define SN_REQUEUE_TEXT_MAX 480

/* Our count as read back from an AdminComment. */
struct sn_requeue_count {
	uint32_t failed;  /* failed starts caused by us so far */
	uint32_t restart; /* Slurm's restart count of the last one */
	bool held;	  /* the segment says we held the job */
};

/* What one more failed start does. */
struct sn_requeue_decision {
	uint32_t failed; /* the count after this start */
	bool counted;	 /* a new attempt: the comment is rewritten */
	bool hold;	 /* at the cap: hold the job */
};

/*
 * sn_requeue_parse - find our segment (it starts with tag, then " failed
 * starts " or " held after ") in comment (NULL: none) and read it into
 * *out.  Returns 1 found, 0 not there (or not ours to read: *out zeroed).
 */
int sn_requeue_parse(const char *comment, const char *tag,
		     struct sn_requeue_count *out);

/*
 * sn_requeue_decide - one more failed start caused by us, in the attempt
 * of Slurm's restart count restart, with the count found (old NULL: none)
 * and the cap max (0 is 1).  An attempt already counted (same restart) is
 * not counted again.
 */
void sn_requeue_decide(const struct sn_requeue_count *old, uint32_t restart,
		       uint32_t max, struct sn_requeue_decision *d);

/*
 * sn_requeue_format - the new AdminComment into buf (size bytes): the
 * text of comment before our segment (an admin's, kept, without trailing
 * blanks), a space, then our segment for d, max, restart and last (what
 * failed: "NODE: REASON", our tag at REASON's start dropped), at most
 * SN_REQUEUE_TEXT_MAX bytes ('"' as '\'', control bytes as spaces; a cut
 * ends with "...").  Returns 0, or -1 when buf is too small.
 */
int sn_requeue_format(char *buf, size_t size, const char *comment,
		      const char *tag, const struct sn_requeue_decision *d,
		      uint32_t max, uint32_t restart, const char *last);

/* sn_requeue_effective - the cap in force: cfg_max, or slurm_max when
 * cfg_max is SN_REQUEUE_DEFAULT (slurm_max 0: Slurm has none, so
 * SN_REQUEUE_FALLBACK); 0 becomes 1. */
uint32_t sn_requeue_effective(uint32_t cfg_max, uint32_t slurm_max);

/* A failed start to count, for sn_requeue_count_bounded. */
struct sn_requeue_req {
	uint32_t job_id;
	const char *tag;    /* drain.tag */
	uint32_t max;	    /* placement.max_requeues (SN_REQUEUE_DEFAULT) */
	const char *last;   /* "NODE: REASON" or the controller's verdict */
	unsigned budget_ms; /* the child is killed after this */
};

/* What happened; crosses a pipe, hence fixed-size. */
struct sn_requeue_report {
	int run; /* as sn_bounded_report.run: 0 the child answered */
	int ok;	 /* 0: counted (and held if hold); -1 see why */
	struct sn_requeue_decision d;
	uint32_t max;	  /* the cap in force */
	uint32_t restart; /* Slurm's restart count of this attempt */
	char text[SN_REQUEUE_TEXT_MAX + 1]; /* our segment as written */
	char why[512];
};

/*
 * sn_requeue_count_bounded - in a child limited to req->budget_ms: read
 * the job (AdminComment, restart count), Slurm's MaxBatchRequeue when the
 * cap is the default, decide, write the AdminComment, and at the cap
 * requeue the job held (slurm_requeue JOB_REQUEUE_HOLD: the Prolog's or
 * PrologSlurmctld's non-zero exit that follows finds it pending).  Needs
 * root or SlurmUser.  Fills *rep; returns rep->ok (-1 also when the child
 * did not answer).
 */
int sn_requeue_count_bounded(const struct sn_requeue_req *req,
			     struct sn_requeue_report *rep);

/* sn_requeue_logged - sn_requeue_count_bounded, and the outcome logged. */
int sn_requeue_logged(const struct sn_requeue_req *req);

#endif
