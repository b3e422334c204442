/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "sn_number.h"
#include "yaml_walk.h"

int yaml_walk_fail(struct yaml_walk *w, yaml_node_t *node, const char *path,
		   const char *fmt, ...)
{
	char detail[768];
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
	yaml_node_t *node = yaml_document_get_node(w->doc, index);
	long slot = index - 1;

	if (!node)
		return NULL;
	if (w->seen[slot]) {
		/* libyaml keeps no mark for the alias: name where it points. */
		yaml_walk_fail(w, node, path,
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
		       node->type == YAML_MAPPING_NODE ? "a mapping" :
		       node->type == YAML_SCALAR_NODE ? "empty" : "nothing";
	n = node->data.scalar.length < 40 ? node->data.scalar.length : 40;
	buf[0] = '\'';
	for (i = 0; i < n && i + 3 < size; i++) {
		unsigned char c = node->data.scalar.value[i];

		buf[i + 1] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	buf[i + 1] = '\'';
	buf[i + 2] = '\0';
	if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE &&
	    i + 12 < size)
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

int yaml_walk_mapping(struct yaml_walk *w, yaml_node_t *node,
		      const char *path, const struct yaml_key_rule *rules,
		      void *target)
{
	char allowed[256], sub[256];
	size_t nrules = 0, i;
	unsigned char found[32] = { 0 };
	yaml_node_pair_t *pair;

	while (rules[nrules].key)
		nrules++;
	if (node->type != YAML_MAPPING_NODE)
		return yaml_walk_fail(w, node, path, "expected a mapping, found %s",
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
			return yaml_walk_fail(w, k, path, "a key must be a scalar");
		key = (const char *)k->data.scalar.value;
		rule = rule_find(rules, key);
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "",
			 key);
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
			return yaml_walk_fail(w, node, sub, "required key missing");
		}
	}
	return 0;
}

int yaml_walk_string(struct yaml_walk *w, yaml_node_t *node, const char *path,
		     const char **out)
{
	if (node->type != YAML_SCALAR_NODE || !node->data.scalar.length)
		return yaml_walk_fail(w, node, path, "expected a string, found %s",
				      node_type_name(node));
	if (strlen((const char *)node->data.scalar.value) !=
	    node->data.scalar.length)
		return yaml_walk_fail(w, node, path, "string holds a NUL byte");
	*out = (const char *)node->data.scalar.value;
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
		return yaml_walk_fail(w, node, path,
				      "expected a whole number from %llu to %llu, found %s%.40s%s",
				      min, max,
				      node->type == YAML_SCALAR_NODE ? "'" : "",
				      node->type == YAML_SCALAR_NODE ?
				      (const char *)node->data.scalar.value :
				      node_type_name(node),
				      node->type == YAML_SCALAR_NODE ? "'" : "");
	if (v < 0 || (unsigned long long)v < min ||
	    (unsigned long long)v > max)
		return yaml_walk_fail(w, node, path,
				      "%lld is out of range (allowed: %llu to %llu)",
				      v, min, max);
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
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    !*s || strspn(s, "0123456789.") != strlen(s) ||
	    (v = strtod(s, &end), !end || *end) || !isfinite(v))
		return yaml_walk_fail(w, node, path,
				      "expected a number from %g to %g, found %s",
				      min, max, node_found(node, found, sizeof(found)));
	if (v < min || v > max)
		return yaml_walk_fail(w, node, path,
				      "%g is out of range (allowed: %g to %g)",
				      v, min, max);
	*out = v;
	return 0;
}
