/* SPDX-License-Identifier: GPL-2.0-or-later */
/* supernodectl discover: group identities into supernodes (sn_discover.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util/sn_hostlist.h"
#include "placement/sn_discover.h"

static struct sn_discover_node *find_node(struct sn_discover *d,
					  const char *node)
{
	for (size_t i = 0; i < d->n_nodes; i++)
		if (!strcmp(d->nodes[i].node, node))
			return &d->nodes[i];
	return NULL;
}

/* Append a node (strings copied); 1 if it was there already. */
static int add_node(struct sn_discover *d, const char *node,
		    const char *identity, const char *why, struct sn_error *err)
{
	struct sn_discover_node *n;

	if (find_node(d, node))
		return 1;
	if (d->n_nodes >= SN_DISCOVER_MAX_NODES) {
		sn_error_set(err, "more than %d nodes", SN_DISCOVER_MAX_NODES);
		return -1;
	}
	if (d->n_nodes == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		void *p = realloc(d->nodes, cap * sizeof(*d->nodes));

		if (!p)
			goto fail;
		d->nodes = p;
		d->cap = cap;
	}
	n = &d->nodes[d->n_nodes];
	memset(n, 0, sizeof(*n));
	n->node = strdup(node);
	n->identity = identity ? strdup(identity) : NULL;
	n->why = why ? strdup(why) : NULL;
	d->n_nodes++;
	if (!n->node || (identity && !n->identity) || (why && !n->why))
		goto fail;
	return 0;
fail:
	sn_error_set(err, "out of memory");
	return -1;
}

bool sn_discover_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n < SN_HOST_NAME_SIZE &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789._-") == n;
}

static const char *get_string(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Why a node with this answer cannot be placed. */
static void unplaced_why(json_object *o, char *buf, size_t size)
{
	const char *kind = get_string(o, "kind");
	const char *why = get_string(o, "why");

	snprintf(buf, size, "%s: %s", kind ? kind : "?",
		 why ? why : "no identity");
}

int sn_discover_add_line(struct sn_discover *d, const char *line,
			 struct sn_error *err)
{
	const char *node, *identity;
	json_object *o = NULL;
	char why[512];
	int rc = -1;

	if (strlen(line) > SN_DISCOVER_LINE_MAX) {
		sn_error_set(err, "line longer than %d bytes",
			     SN_DISCOVER_LINE_MAX);
		return -1;
	}
	o = json_tokener_parse(line);
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !(node = get_string(o, "node")) || !*node) {
		sn_error_set(err, "not an --identity --json line: %.80s", line);
		goto out;
	}
	if (!sn_discover_name_ok(node)) {
		sn_error_set(err, "'%.80s' is not a node name", node);
		goto out;
	}
	identity = get_string(o, "identity");
	if (identity && !sn_config_identity_valid(identity)) {
		sn_error_set(err, "%s: '%.80s' is not an identity", node,
			     identity);
		goto out;
	}
	unplaced_why(o, why, sizeof(why));
	rc = add_node(d, node, identity, identity ? NULL : why, err) < 0 ? -1 :
									   0;
out:
	json_object_put(o);
	return rc;
}

/* One line of a step's output (n bytes, not NUL-terminated) into d. */
static int output_take(struct sn_discover *d, const char *s, size_t n,
		       struct sn_error *err)
{
	char *line;
	int rc;

	if (n > SN_DISCOVER_LINE_MAX) {
		sn_error_set(err, "line longer than %d bytes",
			     SN_DISCOVER_LINE_MAX);
		return -1;
	}
	if (memchr(s, '\0', n)) {
		sn_error_set(err, "line holds a NUL byte: %.80s", s);
		return -1;
	}
	if (!(line = strndup(s, n))) {
		sn_error_set(err, "out of memory");
		return -1;
	}
	rc = sn_discover_add_line(d, line, err);
	free(line);
	return rc;
}

static void output_line(struct sn_discover *d, const char *s, size_t n,
			struct sn_discover_output *o)
{
	struct sn_error err;

	if (!n || s[0] != '{')
		return;
	if (!output_take(d, s, n, &err))
		o->taken++;
	else if (!o->refused++)
		o->first = err;
}

void sn_discover_add_output(struct sn_discover *d, const char *text, size_t len,
			    struct sn_discover_output *o)
{
	const char *s = text, *end = text + len, *nl;

	memset(o, 0, sizeof(*o));
	while (s < end && (nl = memchr(s, '\n', (size_t)(end - s)))) {
		output_line(d, s, (size_t)(nl - s), o);
		s = nl + 1;
	}
	o->cut = s < end;
}

int sn_discover_add_missing(struct sn_discover *d, const char *node,
			    const char *why, struct sn_error *err)
{
	if (!sn_discover_name_ok(node)) {
		sn_error_set(err, "'%.80s' is not a node name", node);
		return -1;
	}
	return add_node(d, node, NULL, why, err) < 0 ? -1 : 0;
}

static int by_identity_then_node(const void *a, const void *b)
{
	const struct sn_discover_node *x = a, *y = b;
	int c;

	if (!x->identity || !y->identity)
		c = !x->identity - !y->identity;
	else
		c = strcmp(x->identity, y->identity);
	return c ? c : strcmp(x->node, y->node);
}

static int by_nodes(const void *a, const void *b)
{
	const struct sn_discover_group *x = a, *y = b;

	return strcmp(x->nodes, y->nodes);
}

/* One group over nodes[first, first + n): its hostlist. */
static int make_group(struct sn_discover *d, size_t first, size_t n,
		      struct sn_error *err)
{
	struct sn_discover_group *g = &d->groups[d->n_groups];
	char **names = calloc(n, sizeof(*names));

	if (!names) {
		sn_error_set(err, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = d->nodes[first + i].node;
	g->identity = d->nodes[first].identity;
	g->size = n;
	g->nodes = sn_hostlist_compress(names, n, err);
	free(names);
	if (!g->nodes)
		return -1;
	d->n_groups++;
	return 0;
}

static bool name_taken(const struct sn_discover *d, const char *name)
{
	for (size_t i = 0; i < d->n_groups; i++)
		if (d->groups[i].name && !strcmp(d->groups[i].name, name))
			return true;
	return false;
}

/* The configured supernode that records identity, or holds all of g. */
static const char *configured_name(const struct sn_discover *d,
				   const struct sn_discover_group *g,
				   const struct sn_config *cfg)
{
	const struct sn_node *first = NULL, *n;

	for (size_t i = 0; cfg && i < cfg->n_supernodes; i++)
		if (cfg->supernodes[i].identity &&
		    !strcmp(cfg->supernodes[i].identity, g->identity))
			return cfg->supernodes[i].name;
	for (size_t i = 0; cfg && i < d->n_nodes; i++) {
		if (!d->nodes[i].identity ||
		    strcmp(d->nodes[i].identity, g->identity))
			continue;
		n = sn_config_find_node(cfg, d->nodes[i].node);
		if (!n || (first && n->supernode != first->supernode))
			return NULL;
		first = n;
	}
	return first && !cfg->supernodes[first->supernode].identity ?
		       cfg->supernodes[first->supernode].name :
		       NULL;
}

static bool configured_name_used(const struct sn_config *cfg, const char *name)
{
	for (size_t i = 0; cfg && i < cfg->n_supernodes; i++)
		if (!strcmp(cfg->supernodes[i].name, name))
			return true;
	return false;
}

/* Configured names first, then snNN for the rest. */
static int name_groups(struct sn_discover *d, const struct sn_config *cfg,
		       struct sn_error *err)
{
	char name[32];
	unsigned next = 1;

	for (size_t i = 0; i < d->n_groups; i++) {
		const char *c = configured_name(d, &d->groups[i], cfg);

		if (c && !name_taken(d, c) && !(d->groups[i].name = strdup(c)))
			goto fail;
	}
	for (size_t i = 0; i < d->n_groups; i++) {
		if (d->groups[i].name)
			continue;
		do
			snprintf(name, sizeof(name), "sn%02u", next++);
		while (name_taken(d, name) || configured_name_used(cfg, name));
		if (!(d->groups[i].name = strdup(name)))
			goto fail;
	}
	return 0;
fail:
	sn_error_set(err, "out of memory");
	return -1;
}

int sn_discover_group(struct sn_discover *d, const struct sn_config *cfg,
		      struct sn_error *err)
{
	size_t i = 0, j;

	if (!d->n_nodes)
		return 0;
	qsort(d->nodes, d->n_nodes, sizeof(*d->nodes), by_identity_then_node);
	d->groups = calloc(d->n_nodes, sizeof(*d->groups));
	if (!d->groups) {
		sn_error_set(err, "out of memory");
		return -1;
	}
	while (i < d->n_nodes && d->nodes[i].identity) {
		for (j = i + 1;
		     j < d->n_nodes && d->nodes[j].identity &&
		     !strcmp(d->nodes[j].identity, d->nodes[i].identity);
		     j++)
			;
		if (make_group(d, i, j - i, err))
			return -1;
		i = j;
	}
	qsort(d->groups, d->n_groups, sizeof(*d->groups), by_nodes);
	return name_groups(d, cfg, err);
}

size_t sn_discover_unplaced(const struct sn_discover *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->n_nodes; i++)
		n += !d->nodes[i].identity;
	return n;
}

static void print_blocks(FILE *f, const struct sn_discover *d)
{
	size_t size = d->n_groups ? d->groups[0].size : 0;
	bool equal = true;

	fprintf(f, "# topology.conf (TopologyPlugin=topology/block):\n");
	for (size_t i = 0; i < d->n_groups; i++) {
		fprintf(f, "#   BlockName=%s Nodes=%s\n", d->groups[i].name,
			d->groups[i].nodes);
		equal = equal && d->groups[i].size == size;
	}
	if (d->n_groups && equal)
		fprintf(f, "#   BlockSizes=%zu\n", size);
	if (!equal) {
		fprintf(f,
			"# note: the supernodes differ in size (supernode.yaml needs them equal):");
		for (size_t i = 0; i < d->n_groups; i++)
			fprintf(f, " %s %zu", d->groups[i].name,
				d->groups[i].size);
		fprintf(f, "\n");
	}
}

void sn_discover_print(FILE *f, const struct sn_discover *d)
{
	size_t unplaced = sn_discover_unplaced(d);

	fprintf(f,
		"# supernodectl discover: %zu nodes, %zu placed in %zu supernodes, %zu not placed\n",
		d->n_nodes, d->n_nodes - unplaced, d->n_groups, unplaced);
	if (d->n_groups)
		fprintf(f, "supernodes:\n");
	for (size_t i = 0; i < d->n_groups; i++)
		fprintf(f,
			"  - name: %s\n    nodes: \"%s\"\n    identity: %s\n",
			d->groups[i].name, d->groups[i].nodes,
			d->groups[i].identity);
	print_blocks(f, d);
	if (unplaced)
		fprintf(f, "# not placed (never guessed):\n");
	for (size_t i = 0; i < d->n_nodes; i++)
		if (!d->nodes[i].identity)
			fprintf(f, "#   %s: %s\n", d->nodes[i].node,
				d->nodes[i].why ? d->nodes[i].why : "?");
}

void sn_discover_free(struct sn_discover *d)
{
	for (size_t i = 0; i < d->n_nodes; i++) {
		free(d->nodes[i].node);
		free(d->nodes[i].identity);
		free(d->nodes[i].why);
	}
	for (size_t i = 0; i < d->n_groups; i++) {
		free(d->groups[i].name);
		free(d->groups[i].nodes);
	}
	free(d->nodes);
	free(d->groups);
	memset(d, 0, sizeof(*d));
}
