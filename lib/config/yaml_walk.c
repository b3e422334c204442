/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "util/sn_number.h"
#include "config/yaml_walk.h"

int yaml_walk_fail(struct yaml_walk *w, yaml_node_t *node, const char *path,
		   const char *fmt, ...)
{
	char detail[SN_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (node)
		sn_error_set(w->err, "%s:%zu:%zu: %s: %s", w->file,
			     node->start_mark.line + 1,
			     node->start_mark.column + 1, path, detail);
	else
		sn_error_set(w->err, "%s: %s: %s", w->file, path, detail);
	return -1;
}

yaml_node_t *yaml_walk_node(struct yaml_walk *w, int index, const char *path)
{
	yaml_node_t *node = yaml_walk_get(w->doc, index);
	long slot = index - 1;

	if (!node)
		return NULL;
	if (w->seen[slot]) {
		/* libyaml keeps no mark for the alias: name where it points. */
		yaml_walk_fail(
			w, node, path,
			"anchors and aliases are not supported (this is an alias of the value at the line and column given)");
		return NULL;
	}
	w->seen[slot] = 1;
	return node;
}

/*
 * What a node is, for "expected X, found Y": a scalar is quoted (at most 40
 * bytes, non-printable bytes as '?'), anything else named by its type.
 * Returns buf or a static string.
 */
static const char *node_found(yaml_node_t *node, char *buf, size_t size)
{
	size_t i, n;

	if (node->type != YAML_SCALAR_NODE || !node->data.scalar.length)
		return node->type == YAML_SEQUENCE_NODE ? "a list" :
		       node->type == YAML_MAPPING_NODE	? "a mapping" :
		       node->type == YAML_SCALAR_NODE	? "empty" :
							  "nothing";
	n = node->data.scalar.length < 40 ? node->data.scalar.length : 40;
	buf[0] = '\'';
	for (i = 0; i < n && i + 3 < size; i++) {
		unsigned char c = node->data.scalar.value[i];

		buf[i + 1] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	buf[i + 1] = '\'';
	buf[i + 2] = '\0';
	if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE && i + 12 < size)
		strcat(buf, " (quoted)");
	return buf;
}

static const char *node_type_name(yaml_node_t *node)
{
	switch (node->type) {
	case YAML_SCALAR_NODE:
		return node->data.scalar.length ? "a scalar" : "empty";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static const struct yaml_key_rule *rule_find(const struct yaml_key_rule *rules,
					     const char *key)
{
	for (; rules->key; rules++)
		if (!strcmp(rules->key, key))
			return rules;
	return NULL;
}

static void rules_list(const struct yaml_key_rule *rules, char *buf,
		       size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; rules->key && used < size; rules++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 used ? ", " : "", rules->key);
}

int yaml_walk_deprecated(struct yaml_walk *w, const struct sn_deprecated *row,
			 yaml_node_t *node, const char *path, size_t start,
			 size_t end, const char *text, const char *fmt, ...)
{
	char detail[SN_ERROR_MAX];
	struct sn_config_dep_use *u;
	struct sn_error msg;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	u = realloc(w->uses, (w->n_uses + 1) * sizeof(*u));
	if (!u)
		return yaml_walk_fail(w, node, path, "out of memory");
	w->uses = u;
	u = &w->uses[w->n_uses];
	memset(u, 0, sizeof(*u));
	u->row = row;
	u->line = (unsigned)node->start_mark.line + 1;
	u->col = (unsigned)node->start_mark.column + 1;
	u->start = start;
	u->end = end;
	if (strcmp(row->since, "field"))
		sn_error_set(&msg,
			     "%s:%u:%u: %s: deprecated (changed in %s): %s",
			     w->file, u->line, u->col, path, row->since,
			     detail);
	else
		sn_error_set(&msg,
			     "%s:%u:%u: %s: deprecated (%s's spelling): %s",
			     w->file, u->line, u->col, path, row->accepted,
			     detail);
	u->msg = strdup(msg.msg);
	if (text)
		u->text = strdup(text);
	if (!u->msg || (text && !u->text)) {
		free(u->msg);
		free(u->text);
		return yaml_walk_fail(w, node, path, "out of memory");
	}
	w->n_uses++;
	return 0;
}

size_t yaml_walk_end(struct yaml_walk *w, yaml_node_t *node)
{
	size_t end = node->start_mark.index;

	if (node->type == YAML_MAPPING_NODE &&
	    node->data.mapping.style == YAML_BLOCK_MAPPING_STYLE) {
		yaml_node_pair_t *p = node->data.mapping.pairs.top;

		if (p > node->data.mapping.pairs.start) {
			yaml_node_t *v = yaml_walk_get(w->doc, p[-1].value);

			if (v)
				end = yaml_walk_end(w, v);
		}
		return end;
	}
	if (node->type == YAML_SEQUENCE_NODE &&
	    node->data.sequence.style == YAML_BLOCK_SEQUENCE_STYLE) {
		yaml_node_item_t *i = node->data.sequence.items.top;

		if (i > node->data.sequence.items.start) {
			yaml_node_t *v = yaml_walk_get(w->doc, i[-1]);

			if (v)
				end = yaml_walk_end(w, v);
		}
		return end;
	}
	return node->end_mark.index;
}

void yaml_walk_uses_free(struct sn_config_dep_use *uses, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(uses[i].msg);
		free(uses[i].text);
	}
	free(uses);
}

/*
 * A key of the deprecation table at path: a rename sets *rule to the new
 * key's rule and warns; a refused one fails naming today's form.  Returns
 * 0 (*rule set or left NULL) or -1.
 */
static int key_renamed(struct yaml_walk *w, yaml_node_t *k, const char *path,
		       const char *sub, const struct yaml_key_rule *rules,
		       const struct yaml_key_rule **rule)
{
	const struct sn_deprecated *d =
		sn_deprecated_rename(path, (const char *)k->data.scalar.value);

	if (!d)
		return 0;
	if (d->kind == SN_DEP_REFUSED)
		return yaml_walk_fail(
			w, k, sub,
			"unknown key: this form was never accepted; write %s",
			d->new_form);
	if (!(*rule = rule_find(rules, d->new_key)))
		return 0;
	return yaml_walk_deprecated(w, d, k, sub, k->start_mark.index,
				    k->end_mark.index, d->new_key,
				    "%s is now %s%s%s; write %s", d->old_key,
				    path, *path ? "." : "", d->new_key,
				    d->new_form);
}

int yaml_walk_mapping(struct yaml_walk *w, yaml_node_t *node, const char *path,
		      const struct yaml_key_rule *rules, void *target)
{
	char allowed[256], sub[256];
	size_t nrules = 0, i;
	unsigned char found[32] = { 0 };
	yaml_node_pair_t *pair;

	while (rules[nrules].key)
		nrules++;
	if (node->type != YAML_MAPPING_NODE)
		return yaml_walk_fail(w, node, path,
				      "expected a mapping, found %s",
				      node_type_name(node));
	for (pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_walk_node(w, pair->key, path);
		yaml_node_t *v;
		const struct yaml_key_rule *rule;
		const char *key;

		if (!k)
			return -1;
		if (k->type != YAML_SCALAR_NODE)
			return yaml_walk_fail(w, k, path,
					      "a key must be a scalar");
		key = (const char *)k->data.scalar.value;
		rule = rule_find(rules, key);
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "",
			 key);
		if (!rule && key_renamed(w, k, path, sub, rules, &rule))
			return -1;
		if (!rule) {
			rules_list(rules, allowed, sizeof(allowed));
			return yaml_walk_fail(w, k, sub,
					      "unknown key (allowed here: %s)",
					      allowed);
		}
		i = (size_t)(rule - rules);
		if (found[i])
			return yaml_walk_fail(w, k, sub, "duplicate key");
		found[i] = 1;
		if (!(v = yaml_walk_node(w, pair->value, sub)))
			return -1;
		if (rule->fn(w, v, sub, target))
			return -1;
	}
	for (i = 0; i < nrules && i < sizeof(found); i++) {
		if (rules[i].required && !found[i]) {
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 *path ? "." : "", rules[i].key);
			return yaml_walk_fail(w, node, sub,
					      "required key missing");
		}
	}
	return 0;
}

/* What a control character is called in a message. */
static const char *control_name(unsigned char c, char *buf, size_t size)
{
	switch (c) {
	case '\0':
		return "a NUL";
	case '\n':
		return "a newline";
	case '\r':
		return "a carriage return";
	case '\t':
		return "a tab";
	default:
		snprintf(buf, size, "a control character (0x%02x)", c);
		return buf;
	}
}

int yaml_walk_string(struct yaml_walk *w, yaml_node_t *node, const char *path,
		     const char **out)
{
	const unsigned char *s = node->data.scalar.value;
	char found[64], name[32];

	if (node->type != YAML_SCALAR_NODE || !node->data.scalar.length)
		return yaml_walk_fail(w, node, path,
				      "expected a string, found %s",
				      node_type_name(node));
	/* Names, hostlists, paths, tags: all one line, all shown in logs. */
	for (size_t i = 0; i < node->data.scalar.length; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			return yaml_walk_fail(
				w, node, path,
				"%s at byte %zu of %s: a config string is one line without control characters",
				control_name(s[i], name, sizeof(name)), i + 1,
				node_found(node, found, sizeof(found)));
	*out = (const char *)s;
	return 0;
}

int yaml_walk_strdup(struct yaml_walk *w, yaml_node_t *node, const char *path,
		     char **dst)
{
	const char *s;

	if (yaml_walk_string(w, node, path, &s))
		return -1;
	free(*dst);
	if (!(*dst = strdup(s)))
		return yaml_walk_fail(w, node, path, "out of memory");
	return 0;
}

int yaml_walk_uint(struct yaml_walk *w, yaml_node_t *node, const char *path,
		   unsigned long long min, unsigned long long max,
		   unsigned long long *out)
{
	long long v;

	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    !sn_number_parse((const char *)node->data.scalar.value, &v))
		return yaml_walk_fail(
			w, node, path,
			"expected a whole number from %llu to %llu, found %s%.40s%s",
			min, max, node->type == YAML_SCALAR_NODE ? "'" : "",
			node->type == YAML_SCALAR_NODE ?
				(const char *)node->data.scalar.value :
				node_type_name(node),
			node->type == YAML_SCALAR_NODE ? "'" : "");
	if (v < 0 || (unsigned long long)v < min || (unsigned long long)v > max)
		return yaml_walk_fail(
			w, node, path,
			"%lld is out of range (allowed: %llu to %llu)", v, min,
			max);
	*out = (unsigned long long)v;
	return 0;
}

int yaml_walk_bool(struct yaml_walk *w, yaml_node_t *node, const char *path,
		   bool *out)
{
	const char *s = (const char *)node->data.scalar.value;

	if (node->type == YAML_SCALAR_NODE &&
	    node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		if (!strcmp(s, "true")) {
			*out = true;
			return 0;
		}
		if (!strcmp(s, "false")) {
			*out = false;
			return 0;
		}
	}
	char found[64];

	return yaml_walk_fail(w, node, path, "expected true or false, found %s",
			      node_found(node, found, sizeof(found)));
}

int yaml_walk_double(struct yaml_walk *w, yaml_node_t *node, const char *path,
		     double min, double max, double *out)
{
	const char *s = (const char *)node->data.scalar.value;
	char *end = NULL, found[64];
	double v;

	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !*s ||
	    strspn(s, "0123456789.") != strlen(s) ||
	    (v = strtod(s, &end), !end || *end) || !isfinite(v))
		return yaml_walk_fail(
			w, node, path,
			"expected a number from %g to %g, found %s", min, max,
			node_found(node, found, sizeof(found)));
	if (v < min || v > max)
		return yaml_walk_fail(w, node, path,
				      "%g is out of range (allowed: %g to %g)",
				      v, min, max);
	*out = v;
	return 0;
}

/* ---- loading: libyaml events -> one bounded document --------------------- */

/* One open collection and the step that leads to it from its parent. */
struct load_level {
	int node;      /* document node id */
	int key;       /* mapping: the key awaiting its value; 0 none */
	size_t items;  /* sequence: items so far */
	char step[72]; /* ".key", "[i]" or "" (root, a key) */
};

struct load {
	const char *file;
	const char *buf;
	size_t len;
	yaml_document_t *doc;
	struct sn_error *err;
	struct load_level stack[YAML_WALK_MAX_DEPTH];
	int depth;
	size_t nodes;
};

/* The step from the innermost open collection to its next child. */
static void load_step(const struct load *ld, char *step, size_t size)
{
	const struct load_level *top;
	yaml_node_t *key;

	step[0] = '\0';
	if (!ld->depth)
		return;
	top = &ld->stack[ld->depth - 1];
	if (yaml_walk_get(ld->doc, top->node)->type == YAML_SEQUENCE_NODE) {
		snprintf(step, size, "[%zu]", top->items);
		return;
	}
	if (!top->key)
		return; /* the child is a key: the mapping's path */
	key = yaml_walk_get(ld->doc, top->key);
	if (key->type == YAML_SCALAR_NODE)
		snprintf(step, size, ".%.64s",
			 (const char *)key->data.scalar.value);
	else
		snprintf(step, size, ".(key)");
}

/* "FILE:LINE:COL: PATH: message", PATH being that of the next child. */
static int load_fail(struct load *ld, yaml_mark_t mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int load_fail(struct load *ld, yaml_mark_t mark, const char *fmt, ...)
{
	char path[512] = "", step[72], detail[256];
	size_t used = 0;
	va_list ap;

	for (int i = 0; i <= ld->depth && used < sizeof(path); i++) {
		const char *s = step;

		if (i < ld->depth)
			s = ld->stack[i].step;
		else
			load_step(ld, step, sizeof(step));
		if (*s == '.' && !used)
			s++;
		used += (size_t)snprintf(path + used, sizeof(path) - used, "%s",
					 s);
	}
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	sn_error_set(ld->err, "%s:%zu:%zu: %s: %s", ld->file, mark.line + 1,
		     mark.column + 1, path[0] ? path : "(document)", detail);
	return -1;
}

/*
 * libyaml's reader (bad UTF-8, control characters) reports a byte offset and
 * leaves problem_mark at 1:1: turn the offset into a line and column.
 */
static int load_syntax(struct load *ld, const yaml_parser_t *parser)
{
	size_t line = parser->problem_mark.line + 1;
	size_t col = parser->problem_mark.column + 1;

	if (parser->error == YAML_READER_ERROR) {
		line = 1;
		col = 1;
		for (size_t i = 0; i < parser->problem_offset && i < ld->len;
		     i++) {
			col = ld->buf[i] == '\n' ? 1 : col + 1;
			line += ld->buf[i] == '\n';
		}
	}
	sn_error_set(ld->err, "%s:%zu:%zu: YAML syntax: %s%s%s", ld->file, line,
		     col, parser->problem ? parser->problem : "error",
		     parser->context ? " " : "",
		     parser->context ? parser->context : "");
	return -1;
}

/* Add node id (just created from ev) to the innermost open collection. */
static int load_attach(struct load *ld, int id, const yaml_event_t *ev)
{
	struct load_level *top;
	int ok;

	ld->doc->nodes.start[id - 1].start_mark = ev->start_mark;
	ld->doc->nodes.start[id - 1].end_mark = ev->end_mark;
	if (!ld->depth)
		return 0; /* the root */
	top = &ld->stack[ld->depth - 1];
	if (yaml_walk_get(ld->doc, top->node)->type == YAML_SEQUENCE_NODE) {
		top->items++;
		ok = yaml_document_append_sequence_item(ld->doc, top->node, id);
	} else if (!top->key) {
		top->key = id;
		return 0;
	} else {
		ok = yaml_document_append_mapping_pair(ld->doc, top->node,
						       top->key, id);
		top->key = 0;
	}
	return ok ? 0 : load_fail(ld, ev->start_mark, "out of memory");
}

/* A scalar, or the start of a sequence or mapping: a new node. */
static int load_node(struct load *ld, const yaml_event_t *ev)
{
	struct load_level *level;
	int id;

	if (++ld->nodes > YAML_WALK_MAX_NODES)
		return load_fail(
			ld, ev->start_mark,
			"more than %u YAML nodes (values, lists, mappings)",
			YAML_WALK_MAX_NODES);
	if (ev->type == YAML_SCALAR_EVENT) {
		id = yaml_document_add_scalar(ld->doc, ev->data.scalar.tag,
					      ev->data.scalar.value,
					      (int)ev->data.scalar.length,
					      ev->data.scalar.style);
		return id ? load_attach(ld, id, ev) :
			    load_fail(ld, ev->start_mark, "out of memory");
	}
	if (ld->depth >= YAML_WALK_MAX_DEPTH)
		return load_fail(ld, ev->start_mark,
				 "nested deeper than %d levels",
				 YAML_WALK_MAX_DEPTH);
	if (ev->type == YAML_SEQUENCE_START_EVENT)
		id = yaml_document_add_sequence(ld->doc,
						ev->data.sequence_start.tag,
						ev->data.sequence_start.style);
	else
		id = yaml_document_add_mapping(ld->doc,
					       ev->data.mapping_start.tag,
					       ev->data.mapping_start.style);
	if (!id)
		return load_fail(ld, ev->start_mark, "out of memory");
	level = &ld->stack[ld->depth];
	load_step(ld, level->step, sizeof(level->step));
	if (load_attach(ld, id, ev))
		return -1;
	level->node = id;
	level->key = 0;
	level->items = 0;
	ld->depth++;
	return 0;
}

/* One event; 1 at the end of the stream, 0 to go on, -1 refused. */
static int load_event(struct load *ld, const yaml_event_t *ev, bool *started)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (*started) {
			sn_error_set(
				ld->err,
				"%s:%zu:%zu: more than one YAML document ('---')",
				ld->file, ev->start_mark.line + 1,
				ev->start_mark.column + 1);
			return -1;
		}
		*started = true;
		return 0;
	case YAML_ALIAS_EVENT:
		return load_fail(
			ld, ev->start_mark,
			"anchors and aliases are not supported (*%.64s)",
			(const char *)ev->data.alias.anchor);
	case YAML_SCALAR_EVENT:
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		return load_node(ld, ev);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		ld->depth--;
		ld->doc->nodes.start[ld->stack[ld->depth].node - 1].end_mark =
			ev->end_mark;
		return 0;
	case YAML_STREAM_END_EVENT:
		return 1;
	default:
		return 0;
	}
}

int yaml_walk_load(const char *file, const char *buf, size_t len,
		   yaml_document_t *doc, struct sn_error *err)
{
	struct load ld = {
		.file = file, .buf = buf, .len = len, .doc = doc, .err = err
	};
	yaml_parser_t parser;
	bool started = false;
	int rc = 0;

	if (!yaml_parser_initialize(&parser)) {
		/* ELIBACC: libyaml is missing (config/yaml_lazy.c). */
		sn_error_set(err, "%s: cannot initialise libyaml: %s", file,
			     strerror(errno));
		return -1;
	}
	if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1)) {
		sn_error_set(err, "%s: out of memory", file);
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!rc) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&parser, &ev)) {
			rc = load_syntax(&ld, &parser);
			break;
		}
		rc = load_event(&ld, &ev, &started);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	if (rc < 0) {
		yaml_document_delete(doc);
		return -1;
	}
	return 0;
}
