/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_DISCOVER_PLAN_H
#define SN_DISCOVER_PLAN_H

/*
 * supernodectl discover's plan (issue 12 item 3): which nodes to ask, and
 * in which partition each one's step runs, from sinfo's node lines
 * (sinfo -h -N -a -o "%N %P %a %T": one line per node and partition).  A
 * node is asked when it is idle and in a partition that is up: the
 * default partition (sinfo marks it with '*') when the node is in it,
 * else the first such partition listed for it.  A step without -p runs
 * in the default partition only, so a node outside it would make the
 * whole step fail: discover runs one step per partition.  Every other
 * node goes to the run as not placed, with the reason.
 */
#include <stdbool.h>
#include <stddef.h>

#include "placement/sn_discover.h"

#define SN_DISCOVER_PART_MAX 255 /* bytes of a partition name */

/* One node of sinfo's lines. */
struct sn_discover_target {
	char *node;	 /* owned */
	char *state;	 /* owned: sinfo's %T, from the node's first line */
	char *part;	 /* owned: where its step runs; NULL: none up yet */
	bool in_default; /* part is the default partition */
	char *not_up;	 /* owned: "P (STATE)" of the first partition not
			    up, for the reason; NULL when none */
};

/* struct sn_discover_plan - zero it before use, sn_discover_plan_free after. */
struct sn_discover_plan {
	struct sn_discover_target *t;
	size_t n, cap;
	char **parts; /* owned, after finish: the partitions to run in */
	size_t n_parts;
};

/*
 * sn_discover_plan_line - one "NODE PARTITION[*] AVAIL STATE" line.  A
 * node listed again (another partition) keeps its first state; its
 * partition is taken when the node has none up yet, or when this one is
 * the default.  Returns 0, or -1 with err set: not four fields, a node
 * name sn_discover_add_missing would refuse, a partition name longer than
 * SN_DISCOVER_PART_MAX, more than SN_DISCOVER_MAX_NODES nodes, out of
 * memory.
 */
int sn_discover_plan_line(struct sn_discover_plan *p, const char *line,
			  struct sn_error *err);

/*
 * sn_discover_plan_completing - before finish, the nodes still ending a
 * job (sinfo's state "completing": a job's epilog runs, as after the
 * steps of a discover just before): a Slurm hostlist expression (caller
 * frees), their number in *n.  discover waits for them, bounded, before
 * it asks (they would be "not idle (completing)").  NULL with *n 0 and
 * err set when there is none, or NULL with err set on error.
 */
char *sn_discover_plan_completing(const struct sn_discover_plan *p, size_t *n,
				  struct sn_error *err);

/*
 * sn_discover_plan_finish - every node that is not idle ("not idle
 * (STATE): not asked") or in no partition that is up ("idle, in no
 * partition that is up (P (down)): not asked") goes to d as not placed
 * and leaves the plan; p->parts lists the partitions of the rest, in the
 * order of their first node.  Returns 0, or -1 with err set.
 */
int sn_discover_plan_finish(struct sn_discover_plan *p, struct sn_discover *d,
			    struct sn_error *err);

/*
 * sn_discover_plan_nodes - after finish, the nodes whose step runs in
 * part: a Slurm hostlist expression (sn_hostlist_compress; caller frees),
 * their number in *n.  NULL with err set when there is none or on error.
 */
char *sn_discover_plan_nodes(const struct sn_discover_plan *p, const char *part,
			     size_t *n, struct sn_error *err);

/* sn_discover_plan_free - release everything; leaves p zeroed. */
void sn_discover_plan_free(struct sn_discover_plan *p);

#endif
