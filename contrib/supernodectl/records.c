/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the epilog's records: <record_dir>/<jobid>/<node>.json, schema 1
 * (no "schema": 1; a higher one is a newer epilog's, named as such).
 * record_dir may be shared storage written by many nodes, so every read is
 * bounded (files per run, bytes per file, JSON depth) and a file that is
 * unreadable, corrupt, of another schema or inconsistent with its path is
 * reported, never fatal.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/sn_store.h"
#include "util/sn_file.h"
#include "util/sn_slurm_env.h"
#include "snctl.h"

#define SNCTL_SCHEMA 1

bool snctl_node_name_ok(const char *s)
{
	return sn_store_node_ok(s);
}

const char *snctl_node_default(const char *given, char *host, size_t size,
			       const char *cmd)
{
	const char *node = given;

	if (!node || !*node)
		node = getenv(SN_ENV_NODENAME);
	if (!node || !*node)
		node = sn_slurm_env_host(host, size);
	if (!snctl_node_name_ok(node)) {
		sn_log_stderr("%s: '%s' is not a node name", cmd, node);
		return NULL;
	}
	return node;
}

int snctl_grade_parse(const char *s)
{
	return sn_grade_parse(s);
}

void snctl_problem_add(struct snctl_set *set, const char *path, const char *fmt,
		       ...)
{
	struct snctl_problem *p;
	char why[512];
	va_list ap;

	if (set->n_probs == set->cap_probs) {
		size_t cap = set->cap_probs ? set->cap_probs * 2 : 8;

		p = realloc(set->probs, cap * sizeof(*p));
		if (!p)
			return;
		set->probs = p;
		set->cap_probs = cap;
	}
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	p = &set->probs[set->n_probs];
	p->path = strdup(path);
	p->why = strdup(why);
	if (!p->path || !p->why) {
		free(p->path);
		free(p->why);
		return;
	}
	set->n_probs++;
}

void snctl_set_free(struct snctl_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->recs[i].path);
		json_object_put(set->recs[i].doc);
	}
	for (size_t i = 0; i < set->n_probs; i++) {
		free(set->probs[i].path);
		free(set->probs[i].why);
	}
	free(set->recs);
	free(set->probs);
	memset(set, 0, sizeof(*set));
}

void snctl_problems_print(const struct snctl_set *set)
{
	for (size_t i = 0; i < set->n_probs; i++)
		sn_log_stderr("%s: %s", set->probs[i].path, set->probs[i].why);
	if (set->truncated)
		sn_log_stderr(
			"stopped after reading %u record files: the rest is not shown",
			SNCTL_MAX_FILES);
}

json_object *snctl_problems_json(const struct snctl_set *set)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < set->n_probs; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(
			p, "path", json_object_new_string(set->probs[i].path));
		json_object_object_add(
			p, "error", json_object_new_string(set->probs[i].why));
		json_object_array_add(a, p);
	}
	return a;
}

/* Parse buf (len bytes) as one JSON document, depth-bounded. */
static json_object *json_parse(const char *buf, size_t len, char *why,
			       size_t size)
{
	struct json_tokener *tok = json_tokener_new_ex(SNCTL_JSON_DEPTH);
	enum json_tokener_error e;
	json_object *o = NULL;

	if (!tok) {
		snprintf(why, size, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, buf, (int)len);
	e = json_tokener_get_error(tok);
	if (e == json_tokener_continue) {
		snprintf(why, size, "corrupt JSON: truncated");
	} else if (e != json_tokener_success) {
		snprintf(why, size, "corrupt JSON at byte %zu: %s",
			 json_tokener_get_parse_end(tok),
			 json_tokener_error_desc(e));
	} else if (json_tokener_get_parse_end(tok) < len &&
		   strspn(buf + json_tokener_get_parse_end(tok), " \t\r\n") !=
			   len - json_tokener_get_parse_end(tok)) {
		snprintf(why, size, "corrupt JSON: data after the document");
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return e == json_tokener_success ? o : NULL;
}

static bool get_int(json_object *doc, const char *key, int64_t *out)
{
	json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_int64(v);
	return true;
}

static const char *get_str(json_object *doc, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The worst verdict grade, for a record whose "worst" is absent. */
static enum sn_grade verdicts_worst(json_object *doc)
{
	enum sn_grade w = SN_OK;
	json_object *a;

	if (!json_object_object_get_ex(doc, "verdicts", &a) ||
	    !json_object_is_type(a, json_type_array))
		return w;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *g;
		int x = -1;

		if (json_object_object_get_ex(json_object_array_get_idx(a, i),
					      "grade", &g))
			x = snctl_grade_parse(json_object_get_string(g));
		if (x >= 0)
			w = sn_grade_worse(w, (enum sn_grade)x);
	}
	return w;
}

/*
 * A record of a newer format (a newer epilog, during a rolling upgrade):
 * its node (the record's, else its path's) and what to do.
 */
static void newer_text(json_object *doc, const char *path_node, int64_t schema,
		       char *why, size_t size)
{
	const char *node = get_str(doc, "node");

	if (!node || !snctl_node_name_ok(node))
		node = path_node ? path_node : "?";
	snprintf(
		why, size,
		"node %s: written by a newer supernode-epilog (format %lld): upgrade supernodectl",
		node, (long long)schema);
}

/*
 * Check the schema and fill rec from doc; why says what is wrong.  No
 * "schema" reads as 1; fields not known here are ignored.
 */
static int record_fill(struct snctl_record *rec, json_object *doc,
		       int64_t want_job, const char *want_node, char *why,
		       size_t size)
{
	int64_t schema;
	int w;

	if (!json_object_is_type(doc, json_type_object)) {
		snprintf(why, size, "not a JSON object");
		return -1;
	}
	if (!json_object_object_get_ex(doc, "schema", NULL))
		schema = 1; /* read as format 1 (etc/README.md) */
	else if (!get_int(doc, "schema", &schema))
		schema = 0;
	if (schema > SNCTL_SCHEMA) {
		newer_text(doc, want_node, schema, why, size);
		return -1;
	}
	if (schema != SNCTL_SCHEMA) {
		snprintf(why, size, "unsupported schema (want %d)",
			 SNCTL_SCHEMA);
		return -1;
	}
	rec->node = get_str(doc, "node");
	if (!get_int(doc, "job_id", &rec->job_id) || !rec->node) {
		snprintf(why, size, "no job_id or node");
		return -1;
	}
	if ((want_job && rec->job_id != want_job) ||
	    (want_node && strcmp(rec->node, want_node))) {
		snprintf(why, size,
			 "holds job %lld node %s, not what its path says",
			 (long long)rec->job_id, rec->node);
		return -1;
	}
	rec->supernode = get_str(doc, "supernode") ?: "";
	rec->user = get_str(doc, "user") ?: "";
	rec->drain_reason = get_str(doc, "drain_reason");
	rec->drain_outcome = get_str(doc, "drain_outcome");
	if (!get_int(doc, "start", &rec->start))
		rec->start = 0;
	if (!get_int(doc, "end", &rec->end))
		rec->end = 0;
	if (!get_int(doc, "exit_code", &rec->exit_code))
		rec->exit_code = INT64_MIN;
	if (!get_int(doc, "attempt", &rec->attempt) || rec->attempt < 1)
		rec->attempt = 1; /* before issue 20: the first attempt */
	w = snctl_grade_parse(get_str(doc, "worst"));
	rec->worst = w < 0 ? verdicts_worst(doc) : (enum sn_grade)w;
	return 0;
}

static int record_push(struct snctl_set *set, const struct snctl_record *rec)
{
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 8;
		struct snctl_record *r = realloc(set->recs, cap * sizeof(*r));

		if (!r)
			return -1;
		set->recs = r;
		set->cap = cap;
	}
	set->recs[set->n] = *rec;
	set->recs[set->n].path = strdup(rec->path);
	if (!set->recs[set->n].path)
		return -1;
	set->n++;
	return 0;
}

int snctl_record_load(struct snctl_set *set, const char *path, int64_t want_job,
		      const char *want_node)
{
	struct snctl_record rec = { .path = (char *)path };
	char why[256] = "";
	char *buf = NULL;
	long len;
	int rc = 1;

	if (set->files_read >= SNCTL_MAX_FILES) {
		set->truncated = true;
		return -1;
	}
	set->files_read++;
	len = sn_file_read(path, SNCTL_MAX_FILE_BYTES + 1, &buf);
	if (len < 0) {
		snctl_problem_add(set, path, "unreadable: %s", strerror(errno));
		goto out;
	}
	if ((size_t)len > SNCTL_MAX_FILE_BYTES) {
		snctl_problem_add(set, path, "larger than %u bytes: not read",
				  SNCTL_MAX_FILE_BYTES);
		goto out;
	}
	rec.doc = json_parse(buf, (size_t)len, why, sizeof(why));
	if (!rec.doc ||
	    record_fill(&rec, rec.doc, want_job, want_node, why, sizeof(why))) {
		snctl_problem_add(set, path, "%s", why);
		goto out;
	}
	if (record_push(set, &rec)) {
		snctl_problem_add(set, path, "out of memory");
		goto out;
	}
	rec.doc = NULL; /* the set owns it now */
	rc = 0;
out:
	json_object_put(rec.doc);
	free(buf);
	return rc;
}

void snctl_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* record_dir expanded for node (sn_store_dir) as a new string (NULL on error). */
static char *dir_expand(const struct sn_config *cfg, const char *node)
{
	char host[256], out[PATH_MAX];

	sn_slurm_env_host(host, sizeof(host));
	if (sn_store_dir(cfg->epilog.record_dir, node, host, out,
			 sizeof(out))) {
		sn_log_stderr(
			"epilog.record_dir '%s': cannot expand for node %s",
			cfg->epilog.record_dir, node ? node : "(none)");
		return NULL;
	}
	return strdup(out);
}

char **snctl_record_dirs(const struct sn_config *cfg, const char *node,
			 size_t *n)
{
	bool per_node = strstr(cfg->epilog.record_dir, "%n") != NULL;
	size_t want = 1, i;
	char **v;

	*n = 0;
	if (per_node && !node)
		want = cfg->n_nodes < SNCTL_MAX_FILES ? cfg->n_nodes :
							SNCTL_MAX_FILES;
	v = calloc(want ? want : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < want; i++) {
		const char *who = node;

		if (per_node && !node)
			who = cfg->nodes[i].name;
		v[i] = dir_expand(cfg, who);
		if (!v[i]) {
			snctl_strv_free(v, i);
			return NULL;
		}
	}
	*n = want;
	return v;
}
