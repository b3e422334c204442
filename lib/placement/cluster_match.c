/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The config against the running cluster, on plain arrays
 * (sn_cluster_match.h); supernodectl config check reads Slurm into them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement/sn_cluster_match.h"
#include "util/sn_hostlist.h"
#include "util/sn_strbuf.h"

static void mismatch(struct sn_mismatches *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One line, built whole, to the caller's sink. */
static void mismatch(struct sn_mismatches *r, const char *fmt, ...)
{
	struct sn_strbuf line = SN_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sn_strbuf_vappendf(&line, fmt, ap);
	va_end(ap);
	r->add(r->arg, sn_strbuf_failed(&line) ? "out of memory" :
						 sn_strbuf_str(&line));
	sn_strbuf_free(&line);
	r->count++;
}

static int node_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct sn_cluster_node *const *)a)->name,
		      (*(const struct sn_cluster_node *const *)b)->name);
}

/* The cluster's nodes sorted by name, for bsearch. */
static const struct sn_cluster_node **
nodes_index(const struct sn_cluster_node *nodes, size_t count, size_t *n)
{
	const struct sn_cluster_node **idx = calloc(count + 1, sizeof(*idx));

	*n = 0;
	if (!idx)
		return NULL;
	for (size_t i = 0; i < count; i++)
		if (nodes[i].name)
			idx[(*n)++] = &nodes[i];
	qsort(idx, *n, sizeof(*idx), node_cmp);
	return idx;
}

static const struct sn_cluster_node *
node_find(const struct sn_cluster_node **idx, size_t n, const char *name)
{
	struct sn_cluster_node key = { .name = name };
	const struct sn_cluster_node *k = &key, **hit;

	hit = bsearch(&k, idx, n, sizeof(*idx), node_cmp);
	return hit ? *hit : NULL;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Walk one node's feature list: is want among them, and which supernode
 * names does it carry (into names, comma-separated)?  Returns how many.
 */
static size_t features_scan(const char *features, char **sn_sorted, size_t n_sn,
			    const char *want, bool *has_want, char *names,
			    size_t size)
{
	char *copy = strdup(features ? features : ""), *save = NULL, *tok;
	size_t count = 0, used = 0;

	*has_want = false;
	names[0] = '\0';
	if (!copy)
		return 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (want && !strcmp(tok, want))
			*has_want = true;
		if (!bsearch(&tok, sn_sorted, n_sn, sizeof(char *), name_cmp))
			continue;
		count++;
		if (used < size)
			used += (size_t)snprintf(names + used, size - used,
						 "%s%s", used ? "," : "", tok);
	}
	free(copy);
	return count;
}

size_t sn_cluster_match_nodes(const struct sn_config *cfg,
			      const struct sn_cluster_node *nodes, size_t n,
			      bool want_features, struct sn_mismatches *r)
{
	char **sn_sorted = calloc(cfg->n_supernodes, sizeof(char *));
	size_t n_idx = 0;
	const struct sn_cluster_node **idx = nodes_index(nodes, n, &n_idx);
	char names[512];
	bool has;

	if (!sn_sorted || !idx) {
		mismatch(r, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < cfg->n_supernodes; i++)
		sn_sorted[i] = cfg->supernodes[i].name;
	qsort(sn_sorted, cfg->n_supernodes, sizeof(char *), name_cmp);
	for (size_t i = 0; i < cfg->n_nodes; i++) {
		const struct sn_node *c = &cfg->nodes[i];
		const char *want = cfg->supernodes[c->supernode].name;
		const struct sn_cluster_node *s =
			node_find(idx, n_idx, c->name);
		size_t k;

		if (!s) {
			mismatch(
				r,
				"%s: not a Slurm node (expected: a node of supernode %s)",
				c->name, want);
			continue;
		}
		if (!want_features)
			continue;
		k = features_scan(s->features, sn_sorted, cfg->n_supernodes,
				  want, &has, names, sizeof(names));
		if (!has)
			mismatch(r, "%s: feature: expected %s, found '%s'",
				 c->name, want, s->features ? s->features : "");
		else if (k > 1)
			mismatch(
				r,
				"%s: feature: expected only supernode %s, found supernode features %s",
				c->name, want, names);
	}
	if (!want_features)
		goto out;
	for (size_t i = 0; i < n_idx; i++) {
		if (sn_config_find_node(cfg, idx[i]->name))
			continue;
		if (features_scan(idx[i]->features, sn_sorted,
				  cfg->n_supernodes, NULL, &has, names,
				  sizeof(names)))
			mismatch(
				r,
				"%s: feature: expected no supernode feature (in no supernode of the config), found %s",
				idx[i]->name, names);
	}
out:
	free(sn_sorted);
	free(idx);
	return r->count;
}

/* ---- switches -------------------------------------------------------- */

/* Index of switch name in topo, or -1. */
static int switch_find(const struct sn_cluster_switch *t, size_t n_sw,
		       const char *name)
{
	for (size_t i = 0; i < n_sw; i++)
		if (t[i].name && !strcmp(t[i].name, name))
			return (int)i;
	return -1;
}

/* parent[i]: the switch listing switch i under Switches=, or -1. */
static void parents_fill(const struct sn_cluster_switch *t, size_t n_sw,
			 int *parent)
{
	for (size_t i = 0; i < n_sw; i++)
		parent[i] = -1;
	for (size_t i = 0; i < n_sw; i++) {
		struct sn_names kids;

		if (!t[i].switches || !*t[i].switches ||
		    sn_hostlist_expand(t[i].switches, SN_HOSTLIST_MAX, &kids,
				       NULL))
			continue;
		for (size_t k = 0; k < kids.count; k++) {
			int j = switch_find(t, n_sw, kids.names[k]);

			if (j >= 0)
				parent[j] = (int)i;
		}
		sn_names_free(&kids);
	}
}

static int root_of(const int *parent, size_t n, int i)
{
	for (size_t hops = 0; parent[i] >= 0 && hops < n; hops++)
		i = parent[i];
	return i;
}

/*
 * leaf[k]: the leaf switch (level 0) holding config node k (cfg->nodes
 * order), or -1; count[i]: nodes of leaf switch i.
 */
static void leaves_fill(const struct sn_config *cfg,
			const struct sn_cluster_switch *t, size_t n_sw,
			int *leaf, size_t *count)
{
	for (size_t k = 0; k < cfg->n_nodes; k++)
		leaf[k] = -1;
	for (size_t i = 0; i < n_sw; i++) {
		const struct sn_cluster_switch *s = &t[i];
		struct sn_names hosts;

		count[i] = 0;
		if (s->level != 0 || !s->nodes || !*s->nodes ||
		    sn_hostlist_expand(s->nodes, SN_HOSTLIST_MAX, &hosts, NULL))
			continue;
		count[i] = hosts.count;
		for (size_t h = 0; h < hosts.count; h++) {
			const struct sn_node *n =
				sn_config_find_node(cfg, hosts.names[h]);

			if (n)
				leaf[n - cfg->nodes] = (int)i;
		}
		sn_names_free(&hosts);
	}
}

/* One supernode against the leaf switches; returns its leaf or -1. */
static int supernode_switch_check(const struct sn_config *cfg, size_t sn,
				  const struct sn_cluster_switch *t,
				  const int *leaf, const size_t *count,
				  struct sn_mismatches *r)
{
	const struct sn_supernode *s = &cfg->supernodes[sn];
	int first = -1;

	for (size_t m = 0; m < s->size; m++) {
		const struct sn_node *n =
			sn_config_find_node(cfg, s->members[m]);
		int l = leaf[n - cfg->nodes];

		if (l < 0) {
			mismatch(
				r,
				"%s: switch: node %s is under no leaf switch (expected: one leaf switch with Nodes=%s)",
				s->name, n->name, s->nodes);
			return -1;
		}
		if (first < 0) {
			first = l;
		} else if (l != first) {
			mismatch(
				r,
				"%s: switch: expected all of %s under one leaf switch, found %s under %s and %s under %s",
				s->name, s->nodes, s->members[0], t[first].name,
				n->name, t[l].name);
			return -1;
		}
	}
	if (count[first] != s->size) {
		mismatch(
			r,
			"%s: switch: expected leaf switch %s to hold exactly %s (%zu node%s), found Nodes=%s (%zu node%s)",
			s->name, t[first].name, s->nodes, s->size,
			s->size == 1 ? "" : "s", t[first].nodes, count[first],
			count[first] == 1 ? "" : "s");
		return -1;
	}
	return first;
}

/* Jobs of N > 1 supernodes need the leaf switches under one root. */
static void roots_check(const struct sn_config *cfg,
			const struct sn_cluster_switch *t, size_t n_sw,
			const int *sn_leaf, struct sn_mismatches *r)
{
	int *parent = calloc(n_sw, sizeof(*parent));
	int root0 = -1;
	size_t first = 0;

	if (!parent)
		return;
	parents_fill(t, n_sw, parent);
	for (size_t i = 0; i < cfg->n_supernodes; i++) {
		int root;

		if (sn_leaf[i] < 0)
			continue;
		root = root_of(parent, n_sw, sn_leaf[i]);
		if (root0 < 0) {
			root0 = root;
			first = i;
		} else if (root != root0) {
			mismatch(
				r,
				"%s: switch: expected a common parent switch with %s (jobs may ask for %u supernodes), found top switches %s and %s",
				cfg->supernodes[i].name,
				cfg->supernodes[first].name,
				sn_config_effective_max(cfg), t[root0].name,
				t[root].name);
		}
	}
	free(parent);
}

static void switches_check(const struct sn_config *cfg,
			   const struct sn_cluster_switch *t, size_t n_sw,
			   struct sn_mismatches *r)
{
	int *leaf = calloc(cfg->n_nodes + 1, sizeof(*leaf));
	int *sn_leaf = calloc(cfg->n_supernodes + 1, sizeof(*sn_leaf));
	size_t *count = calloc(n_sw + 1, sizeof(*count));

	if (!leaf || !sn_leaf || !count) {
		mismatch(r, "out of memory");
		goto out;
	}
	leaves_fill(cfg, t, n_sw, leaf, count);
	for (size_t i = 0; i < cfg->n_supernodes; i++)
		sn_leaf[i] = supernode_switch_check(cfg, i, t, leaf, count, r);
	if (sn_config_effective_max(cfg) > 1)
		roots_check(cfg, t, n_sw, sn_leaf, r);
out:
	free(leaf);
	free(sn_leaf);
	free(count);
}

size_t sn_cluster_match_switches(const struct sn_config *cfg,
				 const struct sn_cluster_switch *sw, size_t n,
				 struct sn_mismatches *out)
{
	if (!n)
		mismatch(
			out,
			"switch: expected one leaf switch per supernode (TopologyPlugin=topology/tree and topology.conf), found no switches");
	else
		switches_check(cfg, sw, n, out);
	return out->count;
}

/* One "Key=value" word of a switch line into sw; other keys are ignored. */
static void switch_word(char *word, struct sn_cluster_switch *sw)
{
	char *v = strchr(word, '=');
	unsigned long level;
	char *end;

	if (!v)
		return;
	*v++ = '\0';
	if (!strcmp(word, "SwitchName")) {
		sw->name = v;
	} else if (!strcmp(word, "Level")) {
		errno = 0;
		level = strtoul(v, &end, 10);
		if (!errno && end != v && !*end && level <= UINT16_MAX)
			sw->level = (uint16_t)level;
	} else if (!strcmp(word, "Nodes")) {
		sw->nodes = v;
	} else if (!strcmp(word, "Switches")) {
		sw->switches = v;
	}
}

size_t sn_cluster_switches_parse(char *text, struct sn_cluster_switch *sw,
				 size_t max)
{
	char *line, *word, *lsave, *wsave;
	size_t n = 0;

	for (line = strtok_r(text, "\n", &lsave); line && n < max;
	     line = strtok_r(NULL, "\n", &lsave)) {
		if (strncmp(line, "SwitchName=", strlen("SwitchName=")))
			continue;
		sw[n] = (struct sn_cluster_switch){ .level = 0 };
		for (word = strtok_r(line, " \t", &wsave); word;
		     word = strtok_r(NULL, " \t", &wsave))
			switch_word(word, &sw[n]);
		if (sw[n].name && *sw[n].name)
			n++;
	}
	return n;
}
