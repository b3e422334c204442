/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_DRAIN_CAP_H
#define SN_DRAIN_CAP_H

/*
 * The cap on drains that a tool decides in bulk (supernode-bench --drain):
 * before it drains more, the nodes of each supernode and of the whole
 * config already drained with our tag (by anyone of ours: prolog, epilog,
 * health, bench) are counted, so repeated runs do not compound.  All in
 * integers: a fraction is parts per thousand (supernode-bench's
 * sb_parse_permille) (0.58 is 580, and 580 x 50 /
 * 1000 is 29 exactly, where 0.58 * 50 is 28.999999999999996 in doubles).
 *
 * The rule, also for small supernodes and runs: of n nodes at most
 * max(1, floor(permille x n / 1000)) may be drained by us at once.  One is
 * always allowed, so a supernode of 2 or 3 nodes can still lose its one
 * bad node; a second waits until a person has looked at the first.
 */
#include <stddef.h>
#include <stdint.h>

#include "config/sn_config.h"
#include "util/sn_error.h"

/* Nodes drained by us, per supernode and in the whole config. */
struct sn_drain_tally {
	uint32_t *supernode; /* n_supernodes entries (malloc()ed) */
	size_t n_supernodes;
	uint32_t cluster; /* every node of the config */
};

enum sn_drain_cap_verdict {
	SN_CAP_OK = 0,	  /* may drain: the tally now counts it */
	SN_CAP_SUPERNODE, /* its supernode is at its cap */
	SN_CAP_CLUSTER,	  /* the config's nodes are at their cap */
};

/*
 * sn_permille_parse - a fraction 0 < F < 1 written as a decimal ("0.25",
 * ".5", "0.333": at most three decimals) into parts per thousand (1-999),
 * without floating point.  Returns 0, or -1 for anything else.
 */
int sn_permille_parse(const char *s, unsigned *permille);

/* sn_drain_cap_of - max(1, floor(permille x n / 1000)) for n > 0; 0 for 0. */
uint32_t sn_drain_cap_of(unsigned permille, uint32_t n);

/*
 * sn_drain_cap_admit - may one more node of supernode s (an index into
 * cfg->supernodes, or SIZE_MAX for a node in no supernode: the cluster cap
 * only) be drained by us, given tally?  SN_CAP_OK counts it in tally.
 */
enum sn_drain_cap_verdict sn_drain_cap_admit(const struct sn_config *cfg,
					     unsigned permille,
					     struct sn_drain_tally *tally,
					     size_t s);

/* sn_drain_cap_release - undo an admit whose drain did not happen. */
void sn_drain_cap_release(struct sn_drain_tally *tally, size_t s);

/*
 * sn_drain_tally_count - the pure count: node i of names/states/reasons
 * (n of each, as slurmctld lists them) is ours when DRAIN is set and its
 * reason starts with tag; counted in its supernode when cfg has it and in
 * the cluster when cfg has it.  tally->supernode is allocated here.
 * Returns 0, or -1 (out of memory).
 */
int sn_drain_tally_count(const struct sn_config *cfg, const char *tag,
			 const char *const *names, const unsigned *states,
			 const char *const *reasons, size_t n,
			 struct sn_drain_tally *tally);

/*
 * sn_drain_tally_load - sn_drain_tally_count over slurmctld's node table,
 * read in a child limited to budget_ms (as sn_drain_bounded).  Returns 0,
 * or -1 with err set (then nothing may be drained).
 */
int sn_drain_tally_load(const struct sn_config *cfg, const char *tag,
			unsigned budget_ms, struct sn_drain_tally *tally,
			struct sn_error *err);

/* sn_drain_tally_free - the tally's array. */
void sn_drain_tally_free(struct sn_drain_tally *tally);

#endif
