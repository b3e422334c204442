/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The job's config (sn_config_snapshot.h): the parsed document of
 * supernode.yaml cut to the job's supernodes, written flat by the job's
 * first step on a node and read back into a document by its later steps.
 *
 * The flat form, in host byte order (the file never leaves the node): the
 * header below, then each document node in preorder (the root first, a
 * node's children after it), as struct flat_node followed by its scalar's
 * bytes or its children's indexes (uint32_t; two per mapping pair).  A
 * reader needs nothing else to check it is a tree: every index but the
 * root's appears exactly once, always after its parent's.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/config_sections.h"
#include "config/sn_config_snapshot.h"
#include "config/yaml_walk.h"
#include "util/sn_file.h"
#include "util/sn_hostlist.h"
#include "util/sn_number.h"
#include "util/sn_safedir.h"
#include "util/sn_strbuf.h"

struct flat_head {
	char magic[8];	  /* SN_CONFIG_SNAPSHOT_MAGIC */
	uint32_t version; /* SN_CONFIG_SNAPSHOT_VERSION */
	uint32_t n_nodes; /* document nodes that follow */
	uint32_t job_id;
	uint32_t n_supernodes; /* kept: for messages and checks */
	uint64_t config_stamp;
	int64_t written; /* time(NULL) */
	char node[SN_HOST_NAME_SIZE];
};

struct flat_node {
	uint8_t type;  /* yaml_node_type_t */
	uint8_t style; /* the scalar's, sequence's or mapping's style */
	uint16_t pad;
	uint32_t count; /* scalar bytes, sequence items or mapping pairs */
	uint64_t start[3], end[3]; /* marks: index, line, column */
};

uint64_t sn_config_stamp(const char *path)
{
	uint64_t h = SN_FNV64_BASIS, v[7];
	struct stat st;

	if (!path || stat(path, &st))
		return 0;
	v[0] = (uint64_t)st.st_dev;
	v[1] = (uint64_t)st.st_ino;
	v[2] = (uint64_t)st.st_size;
	v[3] = (uint64_t)st.st_mtim.tv_sec;
	v[4] = (uint64_t)st.st_mtim.tv_nsec;
	v[5] = (uint64_t)st.st_ctim.tv_sec;
	v[6] = (uint64_t)st.st_ctim.tv_nsec;
	h = sn_fnv64(h, v, sizeof(v));
	return h ? h : 1;
}

static int file_name(uint32_t job_id, const char *node, char *buf, size_t size,
		     struct sn_error *err)
{
	int n;

	if (!job_id || !node || !*node || strchr(node, '/')) {
		sn_error_set(err, "no job config name for job %u, node '%s'",
			     job_id, node ? node : "");
		return -1;
	}
	n = snprintf(buf, size, "%u.%s", job_id, node);
	if (n < 0 || (size_t)n >= size) {
		sn_error_set(err, "node name too long: %s", node);
		return -1;
	}
	return 0;
}

/* STATE_DIR/jobconfig through the trusted walk; -1 with errno, err set. */
static int snap_dir(const char *state_dir, bool create, char *shown,
		    size_t size, struct sn_error *err)
{
	int top, fd;

	snprintf(shown, size, "%s/%s", state_dir, SN_CONFIG_SNAPSHOT_DIR);
	top = sn_safedir_open(state_dir, 0700, create, err);
	if (top < 0)
		return -1;
	fd = sn_safedir_sub(top, state_dir, SN_CONFIG_SNAPSHOT_DIR, 0700,
			    create, err);
	close(top);
	return fd;
}

/* ---- writing ----------------------------------------------------------- */

/* What the writer keeps: the supernodes list's node and which items. */
struct cut {
	yaml_document_t *doc;
	int list;		   /* the supernodes: sequence's index */
	const unsigned char *keep; /* per item of it */
	uint32_t *order;	   /* kept node indexes, preorder */
	uint32_t *new_id;	   /* per old index: 1-based, 0 = dropped */
	uint32_t n;
};

static void cut_walk(struct cut *c, int id)
{
	yaml_node_t *node = yaml_walk_get(c->doc, id);

	if (!node || c->new_id[id - 1])
		return;
	c->order[c->n++] = (uint32_t)id;
	c->new_id[id - 1] = c->n;
	if (node->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it = node->data.sequence.items.start;

		for (size_t i = 0; it < node->data.sequence.items.top;
		     it++, i++)
			if (id != c->list || c->keep[i])
				cut_walk(c, *it);
	} else if (node->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; p++) {
			cut_walk(c, p->key);
			cut_walk(c, p->value);
		}
	}
}

static void marks_put(struct flat_node *f, const yaml_node_t *node)
{
	f->start[0] = node->start_mark.index;
	f->start[1] = node->start_mark.line;
	f->start[2] = node->start_mark.column;
	f->end[0] = node->end_mark.index;
	f->end[1] = node->end_mark.line;
	f->end[2] = node->end_mark.column;
}

static void id_put(struct sn_strbuf *sb, const struct cut *c, int id)
{
	uint32_t v = c->new_id[id - 1];

	sn_strbuf_appendn(sb, (const char *)&v, sizeof(v));
}

/* One node, flat; the strbuf's sticky error says when it failed. */
static void node_put(struct sn_strbuf *sb, const struct cut *c, int id)
{
	yaml_node_t *node = yaml_walk_get(c->doc, id);
	struct flat_node f = { .type = (uint8_t)node->type };
	size_t i = 0;

	marks_put(&f, node);
	if (node->type == YAML_SCALAR_NODE) {
		f.style = (uint8_t)node->data.scalar.style;
		f.count = (uint32_t)node->data.scalar.length;
		sn_strbuf_appendn(sb, (const char *)&f, sizeof(f));
		sn_strbuf_appendn(sb, (const char *)node->data.scalar.value,
				  node->data.scalar.length);
	} else if (node->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it;

		f.style = (uint8_t)node->data.sequence.style;
		for (it = node->data.sequence.items.start;
		     it < node->data.sequence.items.top; it++, i++)
			f.count += id != c->list || c->keep[i];
		sn_strbuf_appendn(sb, (const char *)&f, sizeof(f));
		for (i = 0, it = node->data.sequence.items.start;
		     it < node->data.sequence.items.top; it++, i++)
			if (id != c->list || c->keep[i])
				id_put(sb, c, *it);
	} else {
		f.style = (uint8_t)node->data.mapping.style;
		f.count = (uint32_t)(node->data.mapping.pairs.top -
				     node->data.mapping.pairs.start);
		sn_strbuf_appendn(sb, (const char *)&f, sizeof(f));
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; p++) {
			id_put(sb, c, p->key);
			id_put(sb, c, p->value);
		}
	}
}

/* The value of key in mapping node, or NULL. */
static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map,
			    const char *key, int *id)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_walk_get(doc, p->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    !strcmp((const char *)k->data.scalar.value, key)) {
			if (id)
				*id = p->value;
			return yaml_walk_get(doc, p->value);
		}
	}
	return NULL;
}

/*
 * The supernodes: list of doc, checked against cfg: the same names in
 * the same order.  Its index, or 0 when the file is no longer cfg's.
 */
static int list_find(yaml_document_t *doc, const struct sn_config *cfg)
{
	int id = 0;
	yaml_node_t *list =
		map_get(doc, yaml_walk_get(doc, 1), "supernodes", &id);
	yaml_node_item_t *it;
	size_t i = 0;

	if (!list || list->type != YAML_SEQUENCE_NODE ||
	    (size_t)(list->data.sequence.items.top -
		     list->data.sequence.items.start) != cfg->n_supernodes)
		return 0;
	for (it = list->data.sequence.items.start;
	     it < list->data.sequence.items.top; it++, i++) {
		yaml_node_t *name =
			map_get(doc, yaml_walk_get(doc, *it), "name", NULL);

		if (!name || name->type != YAML_SCALAR_NODE ||
		    strcmp((const char *)name->data.scalar.value,
			   cfg->supernodes[i].name))
			return 0;
	}
	return id;
}

/*
 * The supernodes of the job's nodes, and those sharing an identity with
 * one of them, flagged in keep (cfg->n_supernodes entries).  Returns how
 * many, or -1 with err set (an unreadable nodelist).
 */
static long keep_mark(const struct sn_config *cfg, const char *job_nodelist,
		      unsigned char *keep, struct sn_error *err)
{
	struct sn_names names;
	long kept = 0;

	if (sn_hostlist_expand(job_nodelist, SN_HOSTLIST_MAX, &names, err))
		return -1;
	for (size_t i = 0; i < names.count; i++) {
		const struct sn_node *n =
			sn_config_find_node(cfg, names.names[i]);

		if (n && !keep[n->supernode]) {
			keep[n->supernode] = 1;
			kept++;
		}
	}
	sn_names_free(&names);
	for (size_t i = 0; i < cfg->n_supernodes; i++) {
		const char *id = cfg->supernodes[i].identity;

		if (keep[i] != 1 || !id)
			continue;
		for (size_t k = 0; k < cfg->n_supernodes; k++)
			if (!keep[k] && cfg->supernodes[k].identity &&
			    !strcmp(cfg->supernodes[k].identity, id)) {
				keep[k] = 2; /* a sibling: not walked again */
				kept++;
			}
	}
	return kept;
}

/* The flat document of doc cut by c, after hd; -1 with err set. */
static int flatten(struct cut *c, struct flat_head *hd, struct sn_strbuf *sb,
		   struct sn_error *err)
{
	size_t n = (size_t)(c->doc->nodes.top - c->doc->nodes.start);

	c->order = calloc(n ? n : 1, sizeof(*c->order));
	c->new_id = calloc(n ? n : 1, sizeof(*c->new_id));
	if (!c->order || !c->new_id) {
		sn_error_set(err, "out of memory");
		return -1;
	}
	cut_walk(c, 1);
	hd->n_nodes = c->n;
	sn_strbuf_init(sb, SN_CONFIG_SNAPSHOT_MAX_BYTES);
	sn_strbuf_appendn(sb, (const char *)hd, sizeof(*hd));
	for (uint32_t i = 0; i < c->n; i++)
		node_put(sb, c, (int)c->order[i]);
	if (sn_strbuf_failed(sb)) {
		sn_error_set(err, "the job's config is over %u bytes",
			     SN_CONFIG_SNAPSHOT_MAX_BYTES);
		return -1;
	}
	return 0;
}

static struct sn_config *flat_load(const char *file, const char *path,
				   const char *buf, size_t len,
				   const struct flat_head *want,
				   struct sn_error *err);

/* The flat form gives every job node of cfg the same supernode. */
static int flat_verify(const struct sn_config *cfg, const char *job_nodelist,
		       const char *buf, size_t len, const struct flat_head *hd,
		       struct sn_error *err)
{
	struct sn_config *small =
		flat_load(cfg->path, cfg->path, buf, len, hd, err);
	struct sn_names names;
	int rc = 0;

	if (!small)
		return -1;
	if (sn_hostlist_expand(job_nodelist, SN_HOSTLIST_MAX, &names, err)) {
		sn_config_free(small);
		return -1;
	}
	for (size_t i = 0; i < names.count && !rc; i++) {
		const struct sn_node *a =
			sn_config_find_node(cfg, names.names[i]);
		const struct sn_node *b =
			sn_config_find_node(small, names.names[i]);

		if (!a != !b ||
		    (a && (a->rank != b->rank ||
			   strcmp(cfg->supernodes[a->supernode].name,
				  small->supernodes[b->supernode].name)))) {
			sn_error_set(
				err,
				"the cut config places %s elsewhere: not written",
				names.names[i]);
			rc = -1;
		}
	}
	sn_names_free(&names);
	sn_config_free(small);
	return rc;
}

/* The file's document, if it is still cfg's; -1 with err set. */
static int doc_reload(const struct sn_config *cfg, uint64_t stamp,
		      yaml_document_t *doc, struct sn_error *err)
{
	size_t len = 0;
	char *buf = sn_file_load(cfg->path, SN_CONFIG_MAX_BYTES, &len, err);
	int rc;

	if (!buf)
		return -1;
	if (sn_config_stamp(cfg->path) != stamp) {
		sn_error_set(err, "%s changed since it was loaded", cfg->path);
		free(buf);
		return -1;
	}
	rc = yaml_walk_load(cfg->path, buf, len, doc, err);
	free(buf);
	return rc;
}

int sn_config_snapshot_save(const struct sn_config *cfg, const char *state_dir,
			    const char *job_nodelist,
			    const struct sn_config_snapshot_key *key,
			    struct sn_error *err)
{
	struct flat_head hd = { .version = SN_CONFIG_SNAPSHOT_VERSION };
	char name[NAME_MAX + 1], dir[PATH_MAX];
	unsigned char *keep = calloc(cfg->n_supernodes + 1, 1);
	struct sn_strbuf sb = { 0 };
	struct cut c = { 0 };
	yaml_document_t doc;
	int fd, rc = -1;
	long kept;

	if (!keep) {
		sn_error_set(err, "out of memory");
		return -1;
	}
	if (file_name(key->job_id, key->node, name, sizeof(name), err) ||
	    (kept = keep_mark(cfg, job_nodelist, keep, err)) < 0)
		goto out_keep;
	if (!kept) {
		rc = 1;
		goto out_keep;
	}
	if (doc_reload(cfg, key->config_stamp, &doc, err))
		goto out_keep;
	c.doc = &doc;
	c.keep = keep;
	if (!(c.list = list_find(&doc, cfg))) {
		sn_error_set(
			err,
			"%s: its supernodes: list is not the one loaded (the file changed since?)",
			cfg->path);
		goto out;
	}
	memcpy(hd.magic, SN_CONFIG_SNAPSHOT_MAGIC, sizeof(hd.magic));
	hd.job_id = key->job_id;
	hd.n_supernodes = (uint32_t)kept;
	hd.config_stamp = key->config_stamp;
	hd.written = (int64_t)time(NULL);
	snprintf(hd.node, sizeof(hd.node), "%s", key->node);
	if (flatten(&c, &hd, &sb, err) ||
	    flat_verify(cfg, job_nodelist, sb.buf, sb.len, &hd, err))
		goto out;
	fd = snap_dir(state_dir, true, dir, sizeof(dir), err);
	if (fd < 0)
		goto out;
	rc = sn_safedir_write(fd, dir, name, sb.buf, sb.len, 0600, err);
	close(fd);
out:
	yaml_document_delete(&doc);
	sn_strbuf_free(&sb);
	free(c.order);
	free(c.new_id);
out_keep:
	free(keep);
	return rc;
}

/* ---- reading ----------------------------------------------------------- */

/* Release a document flat_doc() built (no libyaml: it was never its). */
static void doc_free(yaml_document_t *doc)
{
	for (yaml_node_t *n = doc->nodes.start; n && n < doc->nodes.top; n++) {
		if (n->type == YAML_SCALAR_NODE)
			free(n->data.scalar.value);
		else if (n->type == YAML_SEQUENCE_NODE)
			free(n->data.sequence.items.start);
		else if (n->type == YAML_MAPPING_NODE)
			free(n->data.mapping.pairs.start);
	}
	free(doc->nodes.start);
	memset(doc, 0, sizeof(*doc));
}

/* A cursor over the flat bytes: take() fails once past the end. */
struct cursor {
	const char *p;
	size_t left;
};

static const void *take(struct cursor *cur, size_t n)
{
	const char *at = cur->p;

	if (n > cur->left)
		return NULL;
	cur->p += n;
	cur->left -= n;
	return at;
}

/*
 * Child index v of node id: a later node, never named before, its depth
 * one more than id's and within the walker's bound.  -1 when not.
 */
static int child_take(struct cursor *cur, uint32_t id, uint32_t n_nodes,
		      unsigned char *depth, int *out)
{
	uint32_t v;
	const void *at = take(cur, sizeof(v));

	if (!at)
		return -1;
	memcpy(&v, at, sizeof(v));
	if (v <= id || v > n_nodes || depth[v - 1] ||
	    depth[id - 1] >= YAML_WALK_MAX_DEPTH)
		return -1;
	depth[v - 1] = (unsigned char)(depth[id - 1] + 1);
	*out = (int)v;
	return 0;
}

static void marks_get(yaml_node_t *node, const struct flat_node *f)
{
	node->start_mark.index = (size_t)f->start[0];
	node->start_mark.line = (size_t)f->start[1];
	node->start_mark.column = (size_t)f->start[2];
	node->end_mark.index = (size_t)f->end[0];
	node->end_mark.line = (size_t)f->end[1];
	node->end_mark.column = (size_t)f->end[2];
}

/* Node id (1-based) from cur into doc; -1 when the bytes do not hold it. */
static int node_get(struct cursor *cur, yaml_document_t *doc, uint32_t id,
		    uint32_t n_nodes, unsigned char *depth)
{
	yaml_node_t *node = &doc->nodes.start[id - 1];
	const void *at = take(cur, sizeof(struct flat_node));
	struct flat_node f;
	const char *bytes;

	if (!at || !depth[id - 1])
		return -1; /* past the end, or no parent named it */
	memcpy(&f, at, sizeof(f));
	marks_get(node, &f);
	node->type = (yaml_node_type_t)f.type;
	switch (f.type) {
	case YAML_SCALAR_NODE:
		if (!(bytes = take(cur, f.count)) ||
		    !(node->data.scalar.value = malloc((size_t)f.count + 1)))
			return -1;
		memcpy(node->data.scalar.value, bytes, f.count);
		node->data.scalar.value[f.count] = '\0';
		node->data.scalar.length = f.count;
		node->data.scalar.style = (yaml_scalar_style_t)f.style;
		return 0;
	case YAML_SEQUENCE_NODE:
		if (f.count > cur->left / sizeof(uint32_t) ||
		    !(node->data.sequence.items.start =
			      calloc((size_t)f.count + 1, sizeof(int))))
			return -1;
		node->data.sequence.items.top =
			node->data.sequence.items.start + f.count;
		node->data.sequence.items.end = node->data.sequence.items.top;
		node->data.sequence.style = (yaml_sequence_style_t)f.style;
		for (uint32_t i = 0; i < f.count; i++)
			if (child_take(cur, id, n_nodes, depth,
				       &node->data.sequence.items.start[i]))
				return -1;
		return 0;
	case YAML_MAPPING_NODE:
		if (f.count > cur->left / (2 * sizeof(uint32_t)) ||
		    !(node->data.mapping.pairs.start = calloc(
			      (size_t)f.count + 1, sizeof(yaml_node_pair_t))))
			return -1;
		node->data.mapping.pairs.top =
			node->data.mapping.pairs.start + f.count;
		node->data.mapping.pairs.end = node->data.mapping.pairs.top;
		node->data.mapping.style = (yaml_mapping_style_t)f.style;
		for (uint32_t i = 0; i < f.count; i++) {
			yaml_node_pair_t *p =
				&node->data.mapping.pairs.start[i];

			if (child_take(cur, id, n_nodes, depth, &p->key) ||
			    child_take(cur, id, n_nodes, depth, &p->value))
				return -1;
		}
		return 0;
	default:
		node->type = YAML_NO_NODE;
		return -1;
	}
}

/* The document of the flat bytes after the header; -1 when malformed. */
static int flat_doc(const char *buf, size_t len, uint32_t n_nodes,
		    yaml_document_t *doc)
{
	struct cursor cur = { buf, len };
	unsigned char *depth = calloc(n_nodes, 1);
	int rc = -1;

	memset(doc, 0, sizeof(*doc));
	if (!depth ||
	    !(doc->nodes.start = calloc(n_nodes, sizeof(yaml_node_t))))
		goto out;
	doc->nodes.top = doc->nodes.end = doc->nodes.start + n_nodes;
	depth[0] = 1; /* the root */
	for (uint32_t id = 1; id <= n_nodes; id++)
		if (node_get(&cur, doc, id, n_nodes, depth))
			goto out;
	rc = cur.left ? -1 : 0; /* nothing may trail */
out:
	free(depth);
	if (rc)
		doc_free(doc);
	return rc;
}

/* The header against want: job, node and config stamp. */
static int head_want(const struct flat_head *h, const struct flat_head *want,
		     const char *file, struct sn_error *err)
{
	if (h->job_id != want->job_id)
		sn_error_set(err, "written for job %u, not %u: %s", h->job_id,
			     want->job_id, file);
	else if (!memchr(h->node, '\0', sizeof(h->node)) ||
		 strcmp(h->node, want->node))
		sn_error_set(err, "written for another node than %s: %s",
			     want->node, file);
	else if (h->config_stamp != want->config_stamp)
		sn_error_set(
			err,
			"written under another config file (changed since): %s",
			file);
	else
		return 0;
	return -1;
}

/* The header of len bytes: this build's format, against want if given. */
static int head_check(const struct flat_head *h, size_t len,
		      const struct flat_head *want, const char *file,
		      struct sn_error *err)
{
	if (memcmp(h->magic, SN_CONFIG_SNAPSHOT_MAGIC, sizeof(h->magic))) {
		sn_error_set(err, "not a job config: %s", file);
		return -1;
	}
	if (h->version != SN_CONFIG_SNAPSHOT_VERSION) {
		sn_error_set(err, "format version %u, this build reads %u: %s",
			     h->version, SN_CONFIG_SNAPSHOT_VERSION, file);
		return -1;
	}
	if (want && head_want(h, want, file, err))
		return -1;
	if (!h->n_nodes || h->n_nodes > YAML_WALK_MAX_NODES ||
	    h->n_nodes > (len - sizeof(*h)) / sizeof(struct flat_node)) {
		sn_error_set(err, "%u document nodes, out of bounds: %s",
			     h->n_nodes, file);
		return -1;
	}
	return 0;
}

/*
 * The config of the flat bytes in buf (len, header included), whose
 * header must match want; file names the bytes in messages, path is the
 * config's (the document's lines and columns are its).
 */
static struct sn_config *flat_load(const char *file, const char *path,
				   const char *buf, size_t len,
				   const struct flat_head *want,
				   struct sn_error *err)
{
	struct flat_head h;
	yaml_document_t doc;
	struct sn_config *cfg;

	if (len < sizeof(h)) {
		sn_error_set(err, "%zu bytes, shorter than its header: %s", len,
			     file);
		errno = EINVAL;
		return NULL;
	}
	memcpy(&h, buf, sizeof(h));
	if (head_check(&h, len, want, file, err)) {
		errno = EINVAL;
		return NULL;
	}
	if (flat_doc(buf + sizeof(h), len - sizeof(h), h.n_nodes, &doc)) {
		sn_error_set(err, "a count or node index out of bounds: %s",
			     file);
		errno = EINVAL;
		return NULL;
	}
	cfg = sn_config_from_doc(path, &doc, err);
	doc_free(&doc);
	if (cfg && cfg->n_supernodes != h.n_supernodes) {
		sn_error_set(err, "%zu supernodes, its header says %u: %s",
			     cfg->n_supernodes, h.n_supernodes, file);
		sn_config_free(cfg);
		cfg = NULL;
	}
	if (!cfg)
		errno = EINVAL;
	return cfg;
}

struct sn_config *sn_config_snapshot_parse(
	const char *buf, size_t len, const char *config_path, const char *file,
	const struct sn_config_snapshot_key *key, struct sn_error *err)
{
	struct flat_head want = { 0 };

	if (key) {
		want.job_id = key->job_id;
		want.config_stamp = key->config_stamp;
		if (snprintf(want.node, sizeof(want.node), "%s",
			     key->node ? key->node : "") >=
		    (int)sizeof(want.node)) {
			sn_error_set(err, "node name too long: %.64s",
				     key->node);
			return NULL;
		}
	}
	return flat_load(file, config_path, buf, len, key ? &want : NULL, err);
}

struct sn_config *
sn_config_snapshot_load(const char *state_dir, const char *config_path,
			const struct sn_config_snapshot_key *key,
			struct sn_error *err)
{
	char name[NAME_MAX + 1], dir[PATH_MAX], shown[PATH_MAX + NAME_MAX + 2];
	struct sn_config *cfg = NULL;
	size_t len = 0;
	char *buf;
	int fd, e;

	if (file_name(key->job_id, key->node, name, sizeof(name), err)) {
		errno = EINVAL;
		return NULL;
	}
	if ((fd = snap_dir(state_dir, false, dir, sizeof(dir), err)) < 0)
		return NULL;
	buf = sn_safedir_load(fd, dir, name, SN_CONFIG_SNAPSHOT_MAX_BYTES, &len,
			      err);
	e = errno;
	close(fd);
	if (!buf) {
		errno = e;
		return NULL;
	}
	snprintf(shown, sizeof(shown), "%s/%s", dir, name);
	cfg = sn_config_snapshot_parse(buf, len, config_path, shown, key, err);
	e = errno;
	free(buf);
	errno = e;
	return cfg;
}

int sn_config_snapshot_remove(const char *state_dir, uint32_t job_id,
			      const char *node, struct sn_error *err)
{
	char name[NAME_MAX + 1], dir[PATH_MAX];
	const char *prefixes[] = { name, NULL };
	int fd, rc;

	if (file_name(job_id, node, name, sizeof(name), err))
		return -1;
	fd = snap_dir(state_dir, false, dir, sizeof(dir), err);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	rc = sn_safedir_remove(fd, dir, name, err);
	sn_safedir_sweep(fd, prefixes);
	close(fd);
	return rc;
}
