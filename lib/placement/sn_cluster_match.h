/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CLUSTER_MATCH_H
#define SN_CLUSTER_MATCH_H

/*
 * The config against the running cluster (supernodectl config check), on
 * plain arrays: the adapter reads Slurm's nodes and topology/tree switches
 * into them; the comparisons are here.
 *
 *   every node of the config is a Slurm node;
 *   method feature: each node carries its supernode's name as a feature,
 *     no node carries the names of two supernodes, and no node outside the
 *     config carries one (Slurm would place supernode jobs there);
 *   method switch: each supernode is exactly the node set of one leaf
 *     switch, and all those leaf switches share a parent switch when jobs
 *     may ask for more than one supernode.
 *
 * Each mismatch is one line naming node or supernode, expected and found.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/sn_config.h"

/* One Slurm node: its name and its features ("a,b"; NULL = none). */
struct sn_cluster_node {
	const char *name;
	const char *features;
};

/* One switch of topology/tree, as scontrol show topology prints it. */
struct sn_cluster_switch {
	const char *name;
	uint16_t level;	      /* 0: a leaf switch */
	const char *nodes;    /* Nodes= hostlist; NULL or "" = none */
	const char *switches; /* Switches= hostlist of children; NULL = none */
};

/* Where mismatches go: add() gets each line (no newline); count counts. */
struct sn_mismatches {
	void (*add)(void *arg, const char *line);
	void *arg;
	size_t count;
};

/*
 * sn_cluster_match_nodes - every config node is one of nodes[0..n); with
 * want_features (method feature) the three feature rules too.  Nodes with
 * a NULL name are skipped.  Appends to out; returns out->count.
 */
size_t sn_cluster_match_nodes(const struct sn_config *cfg,
			      const struct sn_cluster_node *nodes, size_t n,
			      bool want_features, struct sn_mismatches *out);

/*
 * sn_cluster_match_switches - method switch: each supernode is exactly one
 * leaf switch's Nodes=, and with sn_config_effective_max() > 1 their leaf
 * switches share a top switch.  n = 0 is itself a mismatch (no
 * topology/tree).  Appends to out; returns out->count.
 */
size_t sn_cluster_match_switches(const struct sn_config *cfg,
				 const struct sn_cluster_switch *sw, size_t n,
				 struct sn_mismatches *out);

/*
 * sn_cluster_switches_parse - Slurm's text of topology/tree (what
 * scontrol show topology prints: one "SwitchName=S Level=L LinkSpeed=N
 * Nodes=H Switches=H" line per switch) into sw[0..max).  The strings point
 * into text, which is cut up in place (it must outlive sw).  Lines of any
 * other shape (topology/block's BlockName=) are skipped; a bad Level= is
 * taken as 0.  Returns the number of switches; at most max are read.
 */
size_t sn_cluster_switches_parse(char *text, struct sn_cluster_switch *sw,
				 size_t max);

#endif
