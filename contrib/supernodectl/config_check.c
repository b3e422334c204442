/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl config check: supernode.yaml against the RUNNING cluster.
 *
 *   every node of the config is a Slurm node;
 *   method feature: each node carries its supernode's name as a feature,
 *     no node carries the names of two supernodes, and no node outside the
 *     config carries one (Slurm would place supernode jobs there);
 *   method switch: each supernode is exactly the node set of one leaf
 *     switch, and all those leaf switches share a parent switch when jobs
 *     may ask for more than one supernode;
 *   method block: nodes only (topology/block is Slurm >= 23.11; untested).
 *
 * One line per mismatch on stdout, naming node or supernode, expected and
 * found; then a summary.  Exit 0 all match, 1 a mismatch or Slurm could
 * not be asked (the reason on stderr), 2 usage.
 *
 * libslurm runs in a child with a time limit, as in health.c: slurm_init()
 * exit()s when it finds no slurm.conf, and an RPC to a dead controller
 * blocks.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "util/sn_hostlist.h"
#include "checks/sn_runner.h"
#include "snctl_config.h"

#define CHECK_TIMEOUT_MS 30000u
#define CHECK_MAX_OUTPUT (4u << 20)
#define CHILD_MISMATCH 10	/* not 1: libslurm's fatal() exits 1 */
#define CHILD_NO_SLURM 11

/* What the child reports through: the fd and a running count. */
struct report {
	int fd;
	size_t mismatches;
};

static void mismatch(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void mismatch(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdprintf(r->fd, fmt, ap);
	va_end(ap);
	dprintf(r->fd, "\n");
	r->mismatches++;
}

static int node_cmp(const void *a, const void *b)
{
	return strcmp((*(node_info_t *const *)a)->name,
		      (*(node_info_t *const *)b)->name);
}

/* Slurm's nodes sorted by name, for bsearch. */
static node_info_t **nodes_index(node_info_msg_t *msg, size_t *n)
{
	node_info_t **idx = calloc(msg->record_count + 1, sizeof(*idx));

	*n = 0;
	if (!idx)
		return NULL;
	for (uint32_t i = 0; i < msg->record_count; i++)
		if (msg->node_array[i].name)
			idx[(*n)++] = &msg->node_array[i];
	qsort(idx, *n, sizeof(*idx), node_cmp);
	return idx;
}

static node_info_t *node_find(node_info_t **idx, size_t n, const char *name)
{
	node_info_t key = { .name = (char *)name }, *k = &key, **hit;

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
static size_t features_scan(const char *features, char **sn_sorted,
			    size_t n_sn, const char *want, bool *has_want,
			    char *names, size_t size)
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

/* Every config node exists; with want_features, the feature rules too. */
static void nodes_check(const struct sn_config *cfg, node_info_msg_t *msg,
			bool want_features, struct report *r)
{
	char **sn_sorted = calloc(cfg->n_supernodes, sizeof(char *));
	size_t n_idx = 0;
	node_info_t **idx = nodes_index(msg, &n_idx);
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
		node_info_t *s = node_find(idx, n_idx, c->name);
		size_t k;

		if (!s) {
			mismatch(r, "%s: not a Slurm node (expected: a node of supernode %s)",
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
			mismatch(r, "%s: feature: expected only supernode %s, found supernode features %s",
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
			mismatch(r, "%s: feature: expected no supernode feature (in no supernode of the config), found %s",
				 idx[i]->name, names);
	}
out:
	free(sn_sorted);
	free(idx);
}

/* ---- switches -------------------------------------------------------- */

/* Index of switch name in topo, or -1. */
static int switch_find(const topo_info_response_msg_t *t, const char *name)
{
	for (uint32_t i = 0; i < t->record_count; i++)
		if (t->topo_array[i].name && !strcmp(t->topo_array[i].name, name))
			return (int)i;
	return -1;
}

/* parent[i]: the switch listing switch i under Switches=, or -1. */
static void parents_fill(const topo_info_response_msg_t *t, int *parent)
{
	for (uint32_t i = 0; i < t->record_count; i++)
		parent[i] = -1;
	for (uint32_t i = 0; i < t->record_count; i++) {
		struct sn_names kids;

		if (!t->topo_array[i].switches || !*t->topo_array[i].switches ||
		    sn_hostlist_expand(t->topo_array[i].switches,
				       SN_HOSTLIST_MAX, &kids, NULL))
			continue;
		for (size_t k = 0; k < kids.count; k++) {
			int j = switch_find(t, kids.names[k]);

			if (j >= 0)
				parent[j] = (int)i;
		}
		sn_names_free(&kids);
	}
}

static int root_of(const int *parent, uint32_t n, int i)
{
	for (uint32_t hops = 0; parent[i] >= 0 && hops < n; hops++)
		i = parent[i];
	return i;
}

/*
 * leaf[k]: the leaf switch (level 0) holding config node k (cfg->nodes
 * order), or -1; count[i]: nodes of leaf switch i.
 */
static void leaves_fill(const struct sn_config *cfg,
			const topo_info_response_msg_t *t, int *leaf,
			size_t *count)
{
	for (size_t k = 0; k < cfg->n_nodes; k++)
		leaf[k] = -1;
	for (uint32_t i = 0; i < t->record_count; i++) {
		const topo_info_t *s = &t->topo_array[i];
		struct sn_names hosts;

		count[i] = 0;
		if (s->level != 0 || !s->nodes || !*s->nodes ||
		    sn_hostlist_expand(s->nodes, SN_HOSTLIST_MAX, &hosts, NULL))
			continue;
		count[i] = hosts.count;
		for (size_t h = 0; h < hosts.count; h++) {
			const struct sn_node *n = sn_config_find_node(cfg,
							hosts.names[h]);

			if (n)
				leaf[n - cfg->nodes] = (int)i;
		}
		sn_names_free(&hosts);
	}
}

/* One supernode against the leaf switches; returns its leaf or -1. */
static int supernode_switch_check(const struct sn_config *cfg, size_t sn,
				  const topo_info_response_msg_t *t,
				  const int *leaf, const size_t *count,
				  struct report *r)
{
	const struct sn_supernode *s = &cfg->supernodes[sn];
	int first = -1;

	for (size_t m = 0; m < s->size; m++) {
		const struct sn_node *n = sn_config_find_node(cfg,
							      s->members[m]);
		int l = leaf[n - cfg->nodes];

		if (l < 0) {
			mismatch(r, "%s: switch: node %s is under no leaf switch (expected: one leaf switch with Nodes=%s)",
				 s->name, n->name, s->nodes);
			return -1;
		}
		if (first < 0) {
			first = l;
		} else if (l != first) {
			mismatch(r, "%s: switch: expected all of %s under one leaf switch, found %s under %s and %s under %s",
				 s->name, s->nodes, s->members[0],
				 t->topo_array[first].name, n->name,
				 t->topo_array[l].name);
			return -1;
		}
	}
	if (count[first] != s->size) {
		mismatch(r, "%s: switch: expected leaf switch %s to hold exactly %s (%zu node%s), found Nodes=%s (%zu node%s)",
			 s->name, t->topo_array[first].name, s->nodes, s->size,
			 s->size == 1 ? "" : "s", t->topo_array[first].nodes,
			 count[first], count[first] == 1 ? "" : "s");
		return -1;
	}
	return first;
}

/* Jobs of N > 1 supernodes need the leaf switches under one root. */
static void roots_check(const struct sn_config *cfg,
			const topo_info_response_msg_t *t, const int *sn_leaf,
			struct report *r)
{
	int *parent = calloc(t->record_count, sizeof(*parent));
	int root0 = -1;
	size_t first = 0;

	if (!parent)
		return;
	parents_fill(t, parent);
	for (size_t i = 0; i < cfg->n_supernodes; i++) {
		int root;

		if (sn_leaf[i] < 0)
			continue;
		root = root_of(parent, t->record_count, sn_leaf[i]);
		if (root0 < 0) {
			root0 = root;
			first = i;
		} else if (root != root0) {
			mismatch(r, "%s: switch: expected a common parent switch with %s (jobs may ask for %u supernodes), found top switches %s and %s",
				 cfg->supernodes[i].name,
				 cfg->supernodes[first].name,
				 sn_config_effective_max(cfg),
				 t->topo_array[root0].name,
				 t->topo_array[root].name);
		}
	}
	free(parent);
}

static void switches_check(const struct sn_config *cfg,
			   const topo_info_response_msg_t *t, struct report *r)
{
	int *leaf = calloc(cfg->n_nodes + 1, sizeof(*leaf));
	int *sn_leaf = calloc(cfg->n_supernodes + 1, sizeof(*sn_leaf));
	size_t *count = calloc(t->record_count + 1, sizeof(*count));

	if (!leaf || !sn_leaf || !count) {
		mismatch(r, "out of memory");
		goto out;
	}
	leaves_fill(cfg, t, leaf, count);
	for (size_t i = 0; i < cfg->n_supernodes; i++)
		sn_leaf[i] = supernode_switch_check(cfg, i, t, leaf, count, r);
	if (sn_config_effective_max(cfg) > 1)
		roots_check(cfg, t, sn_leaf, r);
out:
	free(leaf);
	free(sn_leaf);
	free(count);
}

/* ---- the child ------------------------------------------------------- */

static int topology_check(const struct sn_config *cfg, struct report *r)
{
	topo_info_response_msg_t *topo = NULL;

	if (slurm_load_topo(&topo)) {
		dprintf(r->fd, "cannot load the switch topology from slurmctld: %s\n",
			slurm_strerror(errno));
		return -1;
	}
	if (!topo || !topo->record_count)
		mismatch(r, "switch: expected one leaf switch per supernode (TopologyPlugin=topology/tree and topology.conf), found no switches");
	else
		switches_check(cfg, topo, r);
	slurm_free_topo_info_msg(topo);
	return 0;
}

static int check_child(void *arg, int fd)
{
	const struct sn_config *cfg = arg;
	struct report r = { .fd = fd };
	node_info_msg_t *nodes = NULL;
	int rc = 0;

	slurm_init(NULL);
	if (slurm_load_node(0, &nodes, SHOW_ALL)) {
		dprintf(fd, "cannot load the nodes from slurmctld: %s\n",
			slurm_strerror(errno));
		slurm_fini();
		return CHILD_NO_SLURM;
	}
	nodes_check(cfg, nodes, cfg->method == SN_PLACE_FEATURE, &r);
	slurm_free_node_info_msg(nodes);
	if (cfg->method == SN_PLACE_SWITCH && topology_check(cfg, &r))
		rc = CHILD_NO_SLURM;
	slurm_fini();
	if (rc)
		return rc;
	return r.mismatches ? CHILD_MISMATCH : 0;
}

static size_t lines_count(const char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

static int check_run(const struct sn_config *cfg)
{
	const char *conf = getenv("SLURM_CONF");
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int rc;

	if (conf && *conf && stat(conf, &st)) {
		snctl_err("config check: SLURM_CONF=%s does not exist", conf);
		return SNCTL_EXIT_NOTFOUND;
	}
	rc = sn_run_in_child(check_child, (void *)cfg, CHECK_TIMEOUT_MS,
			     CHECK_MAX_OUTPUT, &buf, &len);
	if (rc == 0 || rc == CHILD_MISMATCH) {
		fwrite(buf, 1, len, stdout);
		printf("config check: %s: %zu nodes in %zu supernodes, method %s: %s",
		       cfg->path, cfg->n_nodes, cfg->n_supernodes,
		       sn_placement_method_name(cfg->method),
		       rc ? "" : "matches the running cluster\n");
		if (rc)
			printf("%zu mismatch%s\n", lines_count(buf, len),
			       lines_count(buf, len) == 1 ? "" : "es");
	} else {
		snctl_err("config check: cannot ask slurmctld (%s)%s%.*s",
			  rc == -1 ? "timed out" : rc == -2 ? "libslurm crashed" :
			  rc == -3 ? "no child" : "libslurm gave up",
			  len ? ": " : "", (int)len - (len && buf[len - 1] == '\n'),
			  buf ? buf : "");
	}
	free(buf);
	return rc == 0 ? SNCTL_EXIT_OK : SNCTL_EXIT_NOTFOUND;
}

int snctl_config_check(const struct snctl_global *g0, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct snctl_global g = *g0;
	struct sn_config *cfg = NULL;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'c')
			return SNCTL_EXIT_USAGE;
		g.config = optarg;
	}
	if (optind < argc) {
		snctl_err("config check: unexpected argument '%s'", argv[optind]);
		return SNCTL_EXIT_USAGE;
	}
	if (snctl_config_load(&g, &cfg))
		return SNCTL_EXIT_NOTFOUND;
	rc = check_run(cfg);
	sn_config_free(cfg);
	return rc;
}
