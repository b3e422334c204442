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
#include <stdint.h>

#include <yaml.h>

#include "sn_error.h"

struct yaml_walk {
	const char *file;		/* for messages */
	yaml_document_t *doc;
	unsigned char *seen;		/* one flag per document node: no aliases */
	struct sn_error *err;
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

/* yaml_walk_fail - set w->err to "FILE:LINE:COL: PATH: message". */
int yaml_walk_fail(struct yaml_walk *w, yaml_node_t *node, const char *path,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * yaml_walk_mapping - check that node is a mapping whose keys are all in
 * rules (terminated by a NULL key), none twice, all required ones present;
 * call each rule's fn with path "PARENT.KEY".  Returns 0 or -1.
 */
int yaml_walk_mapping(struct yaml_walk *w, yaml_node_t *node,
		      const char *path, const struct yaml_key_rule *rules,
		      void *target);

/*
 * yaml_walk_node - resolve an item index, refusing aliases (a node seen
 * twice); path names the key the item is the value of, for the message.
 */
yaml_node_t *yaml_walk_node(struct yaml_walk *w, int index, const char *path);

/* yaml_walk_string - a non-empty plain scalar; *out points into the doc. */
int yaml_walk_string(struct yaml_walk *w, yaml_node_t *node, const char *path,
		     const char **out);

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
