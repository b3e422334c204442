/* SPDX-License-Identifier: GPL-2.0-or-later */
/* supernode.yaml: the epilog: section (schema in sn_epilog_cfg.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config_sections.h"
#include "config/sn_counters.h"

/*
 * The counters the epilog judges are the rows of config/sn_counters.h with
 * judged set: the one list of threshold names (any other name is refused,
 * since it would never be applied), each with its default per-job limits.
 */
static const struct sn_counter *counter_judged(const char *s)
{
	const struct sn_counter *c = sn_counter_find(s);

	return c && c->judged ? c : NULL;
}

/* "a, b, c": the judged names, in table order, for the message. */
/*
 * The judged counters whose name starts as name does, up to its first '_'
 * and in any case ("symbol_errors": symbol_error; "Link_Downed": link_*).
 * The whole table no longer fits one message (SN_ERROR_MAX): a name with
 * no such neighbour is sent to the README's table.
 */
static void counters_list(char *buf, size_t size, const char *name)
{
	size_t used = 0, stem = strcspn(name, "_");

	buf[0] = '\0';
	for (size_t i = 0; i < sn_counters_count && used < size; i++)
		if (sn_counters[i].judged &&
		    !strncasecmp(sn_counters[i].name, name, stem) &&
		    strchr("_", sn_counters[i].name[stem]))
			used += (size_t)snprintf(buf + used, size - used,
						 "%s%s", used ? ", " : "",
						 sn_counters[i].name);
	if (!used)
		snprintf(buf, size, "the counters of epilog/README.md");
}

#define LIMIT_MAX 1e12 /* the largest rate limit */
/* The largest count: yaml_walk_uint's bound when limits were counts. */
#define COUNT_MAX 4611686018427387904.0 /* 2^62 */

/*
 * "10", "10/job", "10/h", "2.5/TB" into *v and *unit (*bare for a plain
 * number; "/job" is a count per job written out).  Strict: decimal digits
 * with at most one '.', then nothing or a unit.  Returns 0, or -1 when s
 * is not one.
 */
static int limit_parse(const char *s, double *v, enum sn_rate_unit *unit,
		       bool *bare)
{
	const char *p = s;
	char *end = NULL;

	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9';)
			p++;
	if (p == s || !(*s >= '0' && *s <= '9') || p[-1] == '.')
		return -1;
	*v = strtod(s, &end);
	if (end != p || !(*v > 0))
		return -1;
	*bare = !*p;
	*unit = SN_UNIT_COUNT;
	if (!strcmp(p, "/h"))
		*unit = SN_UNIT_PER_HOUR;
	else if (!strcmp(p, "/TB"))
		*unit = SN_UNIT_PER_TB;
	else if (*p && strcmp(p, "/job"))
		return -1;
	if (*v > (*unit == SN_UNIT_COUNT ? COUNT_MAX : LIMIT_MAX))
		return -1;
	return 0;
}

/*
 * A bare number on a counter whose limits are rates: until 9ecc6b1 every
 * limit was a count per job, so it keeps that meaning (unit count) with a
 * warning; migrate writes it as N/job.
 */
static int limit_bare(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      const struct sn_counter *c, const char *s)
{
	char text[64];

	snprintf(text, sizeof(text), "%s/job", s);
	return yaml_walk_deprecated(
		w, sn_deprecated_kind(SN_DEP_BARE_LIMIT), v, path,
		v->start_mark.index, v->end_mark.index, text,
		"a bare number is a count per job, and %s's limits are rates "
		"now; kept as a count per job: write %s to keep it, or a rate "
		"such as %s%s (per %s)",
		c->name, text, s, sn_rate_unit_name(c->unit),
		c->unit == SN_UNIT_PER_TB ? "TB moved" : "hour of the job");
}

/* One of warn/crit: parse; a bare number on a rate counter is deprecated. */
static int limit_value(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       struct sn_threshold *t, double *out, bool *has)
{
	/* an unjudged name is never applied: its unit does not matter */
	const struct sn_counter *c = counter_judged(t->counter);
	enum sn_rate_unit unit;
	const char *s;
	bool bare;

	if (yaml_walk_string(w, v, path, &s))
		return -1;
	if (limit_parse(s, out, &unit, &bare))
		return yaml_walk_fail(
			w, v, path,
			"\"%s\" is not a limit: write N/h (per hour of the job), N/TB (per TB moved) or, for a count per job, N/job (N a number above 0, at most 1e12 for a rate)",
			s);
	if (bare && c && c->unit != SN_UNIT_COUNT &&
	    limit_bare(w, v, path, c, s))
		return -1;
	if ((t->has_warn || t->has_crit) && unit != t->unit)
		return yaml_walk_fail(
			w, v, path,
			"warn and crit of %s must use the same unit (\"%s\" and \"%s\")",
			t->counter, sn_rate_unit_name(t->unit),
			sn_rate_unit_name(unit));
	t->unit = unit;
	*has = true;
	return 0;
}

static int limit_warn(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	struct sn_threshold *t = target;

	return limit_value(w, v, path, t, &t->warn, &t->has_warn);
}

static int limit_crit(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	struct sn_threshold *t = target;

	return limit_value(w, v, path, t, &t->crit, &t->has_crit);
}

static const struct yaml_key_rule limit_rules[] = {
	{ "warn", limit_warn, false },
	{ "crit", limit_crit, false },
	{ NULL, NULL, false },
};

/* A name as the loader took it until b552cb7 (counter_name_ok). */
static bool name_was_accepted(const char *s)
{
	size_t n = strlen(s);

	return n && n < 64 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_") == n;
}

/*
 * A threshold on a name that is no counter the epilog judges: until
 * b552cb7 any such name loaded and was never applied.  It still loads and
 * is still never applied (its limits are checked as before), with a
 * warning; migrate comments the entry out.  Other names are refused.
 */
static int threshold_unjudged(struct yaml_walk *w, yaml_node_t *k,
			      yaml_node_pair_t *pair, const char *sub,
			      const char *name)
{
	struct sn_threshold scratch = { .counter = (char *)name };
	char allowed[1200];
	yaml_node_t *val;

	counters_list(allowed, sizeof(allowed), name);
	if (!name_was_accepted(name))
		return yaml_walk_fail(
			w, k, sub,
			"not a counter the epilog judges (allowed: %s)",
			allowed);
	if (!(val = yaml_walk_node(w, pair->value, sub)) ||
	    yaml_walk_mapping(w, val, sub, limit_rules, &scratch))
		return -1;
	return yaml_walk_deprecated(
		w, sn_deprecated_kind(SN_DEP_UNJUDGED_NAME), k, sub,
		k->start_mark.index, yaml_walk_end(w, val), NULL,
		"%s is no counter the epilog judges: ignored, as it always "
		"was; name one of %s, or remove the entry",
		name, allowed);
}

static int epilog_thresholds(struct yaml_walk *w, yaml_node_t *v,
			     const char *path, void *target)
{
	struct sn_epilog_settings *e = target;
	yaml_node_pair_t *pair;
	size_t n;

	/* "thresholds:" left empty, e.g. once migrate commented out all */
	if (v->type == YAML_SCALAR_NODE && !v->data.scalar.length &&
	    v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return yaml_walk_fail(
			w, v, path,
			"expected a mapping COUNTER: {warn: N/h, crit: N/h}");
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	if (n > SN_EPILOG_MAX_THRESHOLDS)
		return yaml_walk_fail(w, v, path,
				      "%zu counters, more than the limit of %d",
				      n, SN_EPILOG_MAX_THRESHOLDS);
	e->thresholds = calloc(n + sn_counters_count, sizeof(*e->thresholds));
	if (!e->thresholds)
		return yaml_walk_fail(w, v, path, "out of memory");
	for (pair = v->data.mapping.pairs.start;
	     pair < v->data.mapping.pairs.top; pair++) {
		struct sn_threshold *t = &e->thresholds[e->n_thresholds];
		yaml_node_t *k, *val;
		char sub[160];
		const char *name;

		if (!(k = yaml_walk_node(w, pair->key, path)))
			return -1;
		if (yaml_walk_string(w, k, path, &name))
			return -1;
		snprintf(sub, sizeof(sub), "%s.%s", path, name);
		if (!counter_judged(name)) {
			if (threshold_unjudged(w, k, pair, sub, name))
				return -1;
			continue;
		}
		if (sn_threshold_find(e, name))
			return yaml_walk_fail(w, k, sub, "duplicate key");
		if (!(t->counter = strdup(name)))
			return yaml_walk_fail(w, k, sub, "out of memory");
		e->n_thresholds++;
		if (!(val = yaml_walk_node(w, pair->value, sub)) ||
		    yaml_walk_mapping(w, val, sub, limit_rules, t))
			return -1;
		if (!t->has_warn && !t->has_crit)
			return yaml_walk_fail(w, val, sub,
					      "give warn, crit or both");
		if (t->has_warn && t->has_crit && t->warn > t->crit)
			return yaml_walk_fail(
				w, val, sub, "warn %g%s is above crit %g%s",
				t->warn, sn_rate_unit_name(t->unit), t->crit,
				sn_rate_unit_name(t->unit));
	}
	return 0;
}

static int xid_list(struct yaml_walk *w, yaml_node_t *v, const char *path,
		    struct sn_epilog_settings *e, enum sn_xid_action action)
{
	yaml_node_item_t *item;
	char sub[160];
	size_t i = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return yaml_walk_fail(w, v, path,
				      "expected a list of Xid numbers");
	for (item = v->data.sequence.items.start;
	     item < v->data.sequence.items.top; item++, i++) {
		unsigned long long x;
		yaml_node_t *n;

		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (!(n = yaml_walk_node(w, *item, sub)) ||
		    yaml_walk_uint(w, n, sub, 1, 1000, &x))
			return -1;
		for (size_t k = 0; k < e->n_xid; k++)
			if (e->xid[k].xid == x)
				return yaml_walk_fail(
					w, n, sub, "Xid %llu is listed twice",
					x);
		if (e->n_xid >= SN_EPILOG_MAX_XID)
			return yaml_walk_fail(w, n, sub, "too many Xids");
		e->xid[e->n_xid].xid = (unsigned)x;
		e->xid[e->n_xid].action = action;
		e->n_xid++;
	}
	return 0;
}

static int xid_drain(struct yaml_walk *w, yaml_node_t *v, const char *path,
		     void *target)
{
	return xid_list(w, v, path, target, SN_XID_ACTION_DRAIN);
}

static int xid_warn(struct yaml_walk *w, yaml_node_t *v, const char *path,
		    void *target)
{
	return xid_list(w, v, path, target, SN_XID_ACTION_WARN);
}

static int xid_record(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	return xid_list(w, v, path, target, SN_XID_ACTION_RECORD);
}

static const struct yaml_key_rule xid_rules[] = {
	{ "drain", xid_drain, false },
	{ "warn", xid_warn, false },
	{ "record", xid_record, false },
	{ NULL, NULL, false },
};

static int epilog_xid(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	struct sn_epilog_settings *e = target;

	if (!e->xid && !(e->xid = calloc(SN_EPILOG_MAX_XID, sizeof(*e->xid))))
		return yaml_walk_fail(w, v, path, "out of memory");
	return yaml_walk_mapping(w, v, path, xid_rules, e);
}

static int epilog_record_dir(struct yaml_walk *w, yaml_node_t *v,
			     const char *path, void *target)
{
	return sn_config_path(
		w, v, path, &((struct sn_epilog_settings *)target)->record_dir);
}

static int epilog_textfile_dir(struct yaml_walk *w, yaml_node_t *v,
			       const char *path, void *target)
{
	return sn_config_path(
		w, v, path,
		&((struct sn_epilog_settings *)target)->textfile_dir);
}

static int epilog_timeout(struct yaml_walk *w, yaml_node_t *v, const char *path,
			  void *target)
{
	unsigned long long n;

	if (yaml_walk_uint(w, v, path, 1, 3600, &n))
		return -1;
	((struct sn_epilog_settings *)target)->timeout_s = (uint32_t)n;
	return 0;
}

static const struct yaml_key_rule epilog_rules[] = {
	{ "record_dir", epilog_record_dir, false },
	{ "textfile_dir", epilog_textfile_dir, false },
	{ "timeout", epilog_timeout, false },
	{ "thresholds", epilog_thresholds, false },
	{ "xid", epilog_xid, false },
	{ NULL, NULL, false },
};

int sn_config_section_epilog(struct yaml_walk *w, yaml_node_t *v,
			     const char *path, void *target)
{
	struct sn_config *cfg = target;

	return yaml_walk_mapping(w, v, path, epilog_rules, &cfg->epilog);
}

/* Add c's default limits unless the config named c or c has none. */
static int threshold_default(struct sn_epilog_settings *e,
			     const struct sn_counter *c)
{
	struct sn_threshold *t;

	if (!c->judged || sn_threshold_find(e, c->name))
		return 0; /* the config's own limits win */
	if (c->warn < 0 && c->crit < 0)
		return 0; /* no default: judged only if configured */
	t = &e->thresholds[e->n_thresholds];
	if (!(t->counter = strdup(c->name)))
		return -1;
	e->n_thresholds++;
	t->unit = c->unit;
	t->has_warn = c->warn >= 0;
	t->warn = t->has_warn ? c->warn : 0;
	t->has_crit = c->crit >= 0;
	t->crit = t->has_crit ? c->crit : 0;
	return 0;
}

int sn_config_epilog_finish(struct sn_config *cfg, struct sn_error *err)
{
	struct sn_epilog_settings *e = &cfg->epilog;

	if (!e->timeout_s)
		e->timeout_s = 30;
	if (!e->record_dir &&
	    !(e->record_dir = strdup("/var/lib/supernode/records")))
		goto oom;
	if (!e->thresholds && !(e->thresholds = calloc(sn_counters_count,
						       sizeof(*e->thresholds))))
		goto oom;
	for (size_t i = 0; i < sn_counters_count; i++)
		if (threshold_default(e, &sn_counters[i]))
			goto oom;
	return 0;
oom:
	sn_error_set(err, "%s: out of memory", cfg->path);
	return -1;
}

void sn_config_epilog_free(struct sn_config *cfg)
{
	struct sn_epilog_settings *e = &cfg->epilog;

	for (size_t i = 0; i < e->n_thresholds; i++)
		free(e->thresholds[i].counter);
	free(e->thresholds);
	free(e->xid);
	free(e->record_dir);
	free(e->textfile_dir);
}

const struct sn_threshold *sn_threshold_find(const struct sn_epilog_settings *e,
					     const char *counter)
{
	for (size_t i = 0; i < e->n_thresholds; i++)
		if (!strcmp(e->thresholds[i].counter, counter))
			return &e->thresholds[i];
	return NULL;
}
