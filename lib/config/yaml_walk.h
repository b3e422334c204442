/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_YAML_WALK_H
#define SN_YAML_WALK_H

/*
 * A strict schema walker over a libyaml document: each mapping is checked
 * against a table of allowed keys (unknown, duplicate and missing keys are
 * errors), every error names file, line, column and the key path.  Used by
 * config.c; later config sections add their own key tables.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "config/sn_config_deprecated.h"
#include "util/sn_error.h"

/*
 * Bounds of yaml_walk_load().  Nothing in the config schema nests deeper
 * than 5 (root, section, list, entry, value), and its largest document is
 * 100,000 supernodes x 5 nodes (entry, 2 keys, 2 values) plus a few
 * thousand for the other sections (config.c checks this at build time).
 */
#define YAML_WALK_MAX_DEPTH 32 /* collections, block or flow; root = 1 */
#define YAML_WALK_MAX_NODES (1u << 19) /* scalars, lists and mappings */

/*
 * yaml_walk_load - parse buf (len bytes) into *doc, a single document built
 * from libyaml's events as they arrive, so the bounds stop libyaml itself
 * before it goes deep (its scanner costs O(flow depth) per token and a
 * file of brackets would take time quadratic in its size).  Refused with
 * "FILE:LINE:COL: PATH: ..." at the event that breaks them: a collection
 * nested deeper than YAML_WALK_MAX_DEPTH, more than YAML_WALK_MAX_NODES
 * nodes, an alias ("*a"; anchors are ignored), a second document ("---").
 * libyaml's own errors become "FILE:LINE:COL: YAML syntax: ...".
 * An empty stream gives a document with no nodes.
 * Returns 0 (caller releases *doc with yaml_document_delete), or -1 with
 * err set and nothing to release.
 */
int yaml_walk_load(const char *file, const char *buf, size_t len,
		   yaml_document_t *doc, struct sn_error *err);

struct yaml_walk {
	const char *file; /* for messages */
	yaml_document_t *doc;
	unsigned char *seen; /* one flag per document node: no aliases */
	struct sn_error *err;
	/* deprecated forms met so far (sn_config_deprecated.h), owned */
	struct sn_config_dep_use *uses;
	size_t n_uses;
};

struct yaml_key_rule;
typedef int (*yaml_key_fn)(struct yaml_walk *w, yaml_node_t *value,
			   const char *path, void *target);

/* One allowed key of a mapping and the function that reads its value. */
struct yaml_key_rule {
	const char *key;
	yaml_key_fn fn;
	bool required;
};

/*
 * yaml_walk_get - node index of doc (1-based), or NULL when out of range:
 * libyaml's yaml_document_get_node() without calling libyaml, so a
 * document built in memory (config_snapshot.c) is walked without loading it.
 */
static inline yaml_node_t *yaml_walk_get(yaml_document_t *doc, int index)
{
	if (index > 0 && index <= doc->nodes.top - doc->nodes.start)
		return doc->nodes.start + index - 1;
	return NULL;
}

/* yaml_walk_fail - set w->err to "FILE:LINE:COL: PATH: message". */
int yaml_walk_fail(struct yaml_walk *w, yaml_node_t *node, const char *path,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * yaml_walk_deprecated - record one use of row at node: the warning
 * "FILE:LINE:COL: PATH: deprecated (changed in SINCE): MESSAGE" and the
 * edit of bytes [start, end) into text (copied; NULL: comment the entry
 * out).  Returns 0, or -1 through yaml_walk_fail() when out of memory.
 */
int yaml_walk_deprecated(struct yaml_walk *w, const struct sn_deprecated *row,
			 yaml_node_t *node, const char *path, size_t start,
			 size_t end, const char *text, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

/*
 * yaml_walk_end - the byte offset just past node's text: a flow collection
 * or a scalar ends at its end mark; a block collection at the end of its
 * last scalar (libyaml's mark for it lies at the next token, after any
 * comment lines between).
 */
size_t yaml_walk_end(struct yaml_walk *w, yaml_node_t *node);

/* yaml_walk_uses_free - release n uses (msg, text and the array). */
void yaml_walk_uses_free(struct sn_config_dep_use *uses, size_t n);

/*
 * yaml_walk_mapping - check that node is a mapping whose keys are all in
 * rules (terminated by a NULL key), none twice, all required ones present;
 * call each rule's fn with path "PARENT.KEY".  A key that the deprecation
 * table renames is read as its new key, with a warning; one it lists as
 * refused is refused naming today's form.  Returns 0 or -1.
 */
int yaml_walk_mapping(struct yaml_walk *w, yaml_node_t *node, const char *path,
		      const struct yaml_key_rule *rules, void *target);

/*
 * yaml_walk_node - resolve an item index, refusing aliases (a node seen
 * twice); path names the key the item is the value of, for the message.
 */
yaml_node_t *yaml_walk_node(struct yaml_walk *w, int index, const char *path);

/*
 * yaml_walk_string - a non-empty scalar of one line: a NUL, newline, tab or
 * other control character is refused (names, hostlists, paths and tags end
 * up in logs, drain reasons and file names).  *out points into the doc.
 */
int yaml_walk_string(struct yaml_walk *w, yaml_node_t *node, const char *path,
		     const char **out);

/*
 * yaml_walk_strdup - yaml_walk_string(), copied: *dst becomes a malloc()ed
 * copy of the value (the old *dst is freed; the caller owns the new one).
 * Returns 0, or -1 through yaml_walk_fail() (not a one-line string, or out
 * of memory; *dst is then unchanged or NULL).
 */
int yaml_walk_strdup(struct yaml_walk *w, yaml_node_t *node, const char *path,
		     char **dst);

/* yaml_walk_uint - a whole number in [min, max]. */
int yaml_walk_uint(struct yaml_walk *w, yaml_node_t *node, const char *path,
		   unsigned long long min, unsigned long long max,
		   unsigned long long *out);

/* yaml_walk_bool - true or false (plain scalars only; no yes/no/on/off). */
int yaml_walk_bool(struct yaml_walk *w, yaml_node_t *node, const char *path,
		   bool *out);

/* yaml_walk_double - a plain decimal number ("400", "2.5") in [min, max]. */
int yaml_walk_double(struct yaml_walk *w, yaml_node_t *node, const char *path,
		     double min, double max, double *out);

#endif
