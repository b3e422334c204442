/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_ALLOCATION_H
#define SN_ALLOCATION_H

#include <stddef.h>
#include <stdint.h>

#include "config/sn_config.h"
#include "util/sn_error.h"

/* At most this many problems are kept (and named); the rest are counted. */
#define SN_ALLOC_MAX_PROBLEMS 16
/* Missing nodes named per partial supernode before "+K more". */
#define SN_ALLOC_MISSING_NAMED 4

/* What is wrong with one part of an allocation. */
enum sn_alloc_problem_kind {
	SN_ALLOC_PARTIAL, /* a supernode only partly allocated */
	SN_ALLOC_FOREIGN, /* a node that is in no supernode */
	SN_ALLOC_TWICE,	  /* a node listed more than once */
	SN_ALLOC_COUNT,	  /* whole supernodes, but not N of them */
};

/* One problem: its kind and a line naming supernode or node. */
struct sn_alloc_problem {
	enum sn_alloc_problem_kind kind;
	char text[256];
};

/*
 * struct sn_allocation - the verdict on one allocation.  Fixed size; no
 * release needed.
 */
struct sn_allocation {
	uint32_t want;	/* N asked for */
	size_t hosts;	/* nodes in the allocation */
	size_t touched; /* distinct supernodes it touches */
	size_t whole;	/* ... of which complete */
	size_t partial; /* ... of which incomplete */
	size_t foreign; /* nodes in no supernode */
	size_t twice;	/* nodes listed again */
	struct sn_alloc_problem problems[SN_ALLOC_MAX_PROBLEMS];
	size_t n_problems;  /* kept in problems[] */
	size_t dropped;	    /* problems beyond SN_ALLOC_MAX_PROBLEMS */
	char summary[1024]; /* one line: the verdict, for logs */
};

/*
 * sn_allocation_check - is the allocation nodelist exactly want whole
 * supernodes of cfg?  That is: every node is in some supernode, no node is
 * listed twice, every supernode it touches is complete, and it touches
 * want of them.  The order of the list does not matter.
 *
 * @cfg:      the loaded config.
 * @nodelist: a Slurm hostlist (SLURM_JOB_NODELIST), expanded with Slurm's
 *            parser.
 * @want:     N, at least 1.
 * @out:      filled in every case but -1: counts, problems in the order
 *            found (partial supernodes in config order), and summary
 *            ("exactly 2 whole supernodes: sn01,sn03" or "not 2 whole
 *            supernodes: sn02 partial ...").
 *
 * Pure: no I/O.  Returns 0 if exact, 1 if not (out->problems say why), -1
 * with err set if nodelist is empty or unparsable or want is 0.
 */
int sn_allocation_check(const struct sn_config *cfg, const char *nodelist,
			uint32_t want, struct sn_allocation *out,
			struct sn_error *err);

#endif
