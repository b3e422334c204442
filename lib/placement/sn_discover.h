/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_DISCOVER_H
#define SN_DISCOVER_H

/*
 * supernodectl discover's decisions (issue 12 item 3): the identities the
 * nodes report (supernode-prolog --identity --json, one line each) grouped
 * into supernodes, named, and printed as the supernodes: section of
 * supernode.yaml and the topology/block lines.  A node without a hardware
 * identity is listed with its reason, never guessed into a group.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config/sn_config.h"

#define SN_DISCOVER_MAX_NODES 65536 /* answers kept per run */
#define SN_DISCOVER_LINE_MAX 4096   /* one --identity --json line, bytes */

/* One node's answer. */
struct sn_discover_node {
	char *node;	/* owned */
	char *identity; /* owned; NULL when the node cannot be placed */
	char *why;	/* owned; why it cannot be placed, else NULL */
};

/* One supernode found: nodes that report one identity. */
struct sn_discover_group {
	char *name;	      /* owned */
	const char *identity; /* borrowed from a node */
	char *nodes;	      /* owned: the hostlist expression */
	size_t size;
};

/* struct sn_discover - a run; zero it before use, sn_discover_free after. */
struct sn_discover {
	struct sn_discover_node *nodes;
	size_t n_nodes, cap;
	struct sn_discover_group *groups;
	size_t n_groups;
};

/*
 * sn_discover_add_line - one line of supernode-prolog --identity --json.
 * A node already answered is kept once (the first answer).  Returns 0, or
 * -1 with err set for a line that is not such an object (too long, not
 * JSON, no "node" string, a node name other than 1-255 of [A-Za-z0-9._-],
 * an identity sn_config_identity_valid refuses) or past
 * SN_DISCOVER_MAX_NODES.
 */
int sn_discover_add_line(struct sn_discover *d, const char *line,
			 struct sn_error *err);

/* What sn_discover_add_output took from a step's output. */
struct sn_discover_output {
	size_t taken;	/* answer lines taken (a repeat counts too) */
	size_t refused; /* lines starting with '{' refused */
	bool cut;	/* the last line had no '\n': cut short, dropped */
	struct sn_error first; /* the first refusal's reason */
};

/*
 * sn_discover_add_output - what a step printed, whole or cut short (a step
 * that timed out or failed keeps every answer it gave).  len bytes of text
 * (need not be NUL-terminated): each complete line ('\n'-ended) that
 * starts with '{' goes to sn_discover_add_line; other lines (srun's own
 * messages) are skipped; a line longer than SN_DISCOVER_LINE_MAX or
 * holding a NUL byte is refused; a last line without its '\n' was cut
 * short and is dropped.  Counts in *o.
 */
void sn_discover_add_output(struct sn_discover *d, const char *text, size_t len,
			    struct sn_discover_output *o);

/*
 * sn_discover_name_ok - a node name as discover takes it: 1-255 of
 * [A-Za-z0-9._-] (no hostlist expression).
 */
bool sn_discover_name_ok(const char *node);

/*
 * sn_discover_add_missing - a node that gave no answer, with why ("not
 * idle", "no answer"); ignored when the node answered.  Returns 0 or -1
 * (not a node name, out of memory, too many nodes).
 */
int sn_discover_add_missing(struct sn_discover *d, const char *node,
			    const char *why, struct sn_error *err);

/*
 * sn_discover_group - group the nodes by identity, each group a hostlist
 * (Slurm's), ordered by its first node, and named: the configured
 * supernode that records this identity, else the configured supernode
 * holding all its nodes (when not already taken), else snNN (the lowest
 * free number).  cfg may be NULL.  Returns 0, or -1 with err set.
 */
int sn_discover_group(struct sn_discover *d, const struct sn_config *cfg,
		      struct sn_error *err);

/* sn_discover_unplaced - how many nodes have no identity. */
size_t sn_discover_unplaced(const struct sn_discover *d);

/*
 * sn_discover_print - the supernodes: section (name, nodes, identity), the
 * topology.conf block lines (BlockName=..., BlockSizes=) as comments, a
 * note when the groups differ in size (supernode.yaml needs them equal),
 * and every node that could not be placed with its reason.
 */
void sn_discover_print(FILE *f, const struct sn_discover *d);

/* sn_discover_free - release everything; leaves d zeroed. */
void sn_discover_free(struct sn_discover *d);

#endif
