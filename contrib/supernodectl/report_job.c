/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl report JOBID: every node's record of one job, as a table
 * (header line, the last attempt's when there were several; one row per
 * node and port/accelerator, worst first, then
 * the drain reasons and the nodes without a record, then one line per
 * attempt when the records say which) or as one JSON document {job_id,
 * worst, nodes: [records], missing: [...], unreadable: [...], attempts:
 * [...]}.  A requeued job keeps its id: each attempt (Slurm's restart
 * count + 1) has its own records, all of them read (sacct shows only the
 * last unless --duplicates).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "records/sn_store.h"
#include "report.h"

struct job_scan {
	struct snctl_set *set;
	int64_t job;
};

/* One record file into the set; -1 when the read budget is spent. */
static int job_visit(const char *path, const char *node, void *arg)
{
	struct job_scan *js = arg;

	return snctl_record_load(js->set, path, js->job, node) < 0 ? -1 : 0;
}

/* Load every <dir>/<job>/<node>.json into set (sn_store_scan_job). */
static void scan_job_dir(struct snctl_set *set, const char *dir, int64_t job)
{
	struct job_scan js = { set, job };
	char jobdir[PATH_MAX];
	bool truncated;
	long n = sn_store_scan_job(dir, job, SNCTL_MAX_DIRS, job_visit, &js,
				   &truncated);
	int e = errno;

	sn_store_job_dir(dir, job, jobdir, sizeof(jobdir));
	if (n < 0)
		snctl_problem_add(set, jobdir, "cannot list: %s", strerror(e));
	else if (truncated)
		snctl_problem_add(
			set, jobdir,
			"more than %u entries: only those listed first are read",
			SNCTL_MAX_DIRS);
}

static bool have_record(const struct snctl_set *set, const char *node)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->recs[i].node, node))
			return true;
	return false;
}

static bool supernode_seen(const struct sn_config *cfg,
			   const struct snctl_set *set, uint32_t sn)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct sn_node *n =
			sn_config_find_node(cfg, set->recs[i].node);

		if (n && n->supernode == sn)
			return true;
	}
	return false;
}

/*
 * The nodes that should have a record and have none: jobs take whole
 * supernodes, so every member of a supernode that another record names.
 */
static json_object *missing_nodes(const struct sn_config *cfg,
				  const struct snctl_set *set)
{
	json_object *a = json_object_new_array();

	for (uint32_t s = 0; a && s < cfg->n_supernodes; s++) {
		const struct sn_supernode *sn = &cfg->supernodes[s];

		if (!supernode_seen(cfg, set, s))
			continue;
		for (size_t k = 0; k < sn->size; k++)
			if (!have_record(set, sn->members[k]))
				json_object_array_add(
					a,
					json_object_new_string(sn->members[k]));
	}
	return a;
}

/*
 * Whether record r counts in the header: with several attempts in the
 * records (last > 0), only the last attempt's do, as sacct shows the last
 * one unless asked; the attempt lines below the table give each of them.
 */
static bool in_header(const struct snctl_record *r, int64_t last)
{
	return !last || r->attempt == last;
}

/*
 * The last attempt's number when attempts (attempts_json: first to last)
 * holds several, else 0.
 */
static int64_t last_attempt(json_object *attempts)
{
	size_t n = attempts ? json_object_array_length(attempts) : 0;
	json_object *last, *num;

	if (n < 2)
		return 0;
	last = json_object_array_get_idx(attempts, n - 1);
	return json_object_object_get_ex(last, "attempt", &num) ?
		       json_object_get_int64(num) :
		       0;
}

static enum sn_grade set_worst(const struct snctl_set *set, int64_t last)
{
	enum sn_grade w = SN_OK;

	for (size_t i = 0; i < set->n; i++)
		if (in_header(&set->recs[i], last))
			w = sn_grade_worse(w, set->recs[i].worst);
	return w;
}

/* "exit 0", or "exit mixed" when the nodes disagree, "exit ?" if none. */
static void exit_text(const struct snctl_set *set, int64_t last, char *buf,
		      size_t size)
{
	int64_t x = INT64_MIN;
	bool seen = false;

	for (size_t i = 0; i < set->n; i++) {
		if (!in_header(&set->recs[i], last))
			continue;
		if (seen && set->recs[i].exit_code != x) {
			snprintf(buf, size, "mixed");
			return;
		}
		x = set->recs[i].exit_code;
		seen = true;
	}
	if (x == INT64_MIN)
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%lld", (long long)x);
}

/*
 * The header line: the job's span, exit, nodes and worst grade; of its
 * last attempt, named at the end ("attempt 2 of 2"), when the records
 * hold several.
 */
static void header_print(const struct report_args *a,
			 const struct snctl_set *set, size_t n_missing,
			 int64_t last, size_t n_attempts)
{
	int64_t start = INT64_MAX, end = 0;
	char s[48], e[48], d[32], x[32], nodes[48], tail[48] = "";
	size_t n = 0;

	for (size_t i = 0; i < set->n; i++) {
		if (!in_header(&set->recs[i], last))
			continue;
		n++;
		if (set->recs[i].start > 0 && set->recs[i].start < start)
			start = set->recs[i].start;
		if (set->recs[i].end > end)
			end = set->recs[i].end;
	}
	if (start == INT64_MAX)
		start = 0;
	snctl_fmt_time(start, s, sizeof(s));
	snctl_fmt_time(end, e, sizeof(e));
	snctl_fmt_duration(start && end ? end - start : -1, d, sizeof(d));
	exit_text(set, last, x, sizeof(x));
	if (n_missing && !last)
		snprintf(nodes, sizeof(nodes), "%zu of %zu", n, n + n_missing);
	else
		snprintf(nodes, sizeof(nodes), "%zu", n);
	if (last)
		snprintf(tail, sizeof(tail), "  attempt %lld of %zu",
			 (long long)last, n_attempts);
	printf("job %lld  user %s  start %s  end %s  duration %s  exit %s  nodes %s  worst %s%s\n",
	       (long long)a->job,
	       set->recs[0].user[0] ? set->recs[0].user : "?", s, e, d, x,
	       nodes, sn_grade_name(set_worst(set, last)), tail);
}

/* A record's integer field, or JSON null when it has none. */
static json_object *int_or_null(json_object *doc, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return NULL;
	return json_object_new_int64(json_object_get_int64(v));
}

static json_object *str_or_null(json_object *doc, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_new_string(json_object_get_string(v));
}

/* {node, reason} onto the array *a (made on first use). */
static void node_reason_add(json_object **a, const char *node,
			    const char *reason)
{
	json_object *o = json_object_new_object();

	if (!*a)
		*a = json_object_new_array();
	json_object_object_add(o, "node", json_object_new_string(node));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_array_add(*a, o);
}

/*
 * One attempt's summary from its records (set sorted by attempt): the
 * restart count, the job's nodes, when it ended, what ended it (the batch
 * script's exit:signal and the steps' derived one), its worst grade, the
 * nodes drained by the epilog and those whose prolog failed.
 */
static json_object *attempt_json(const struct snctl_set *set, size_t from,
				 size_t to)
{
	json_object *o = json_object_new_object(), *first = set->recs[from].doc;
	json_object *drained = NULL, *failed = NULL;
	enum sn_grade w = SN_OK;
	int64_t end = 0;

	for (size_t i = from; i < to; i++) {
		const struct snctl_record *r = &set->recs[i];
		json_object *pf;

		w = sn_grade_worse(w, r->worst);
		if (r->end > end)
			end = r->end;
		if (r->drain_reason)
			node_reason_add(&drained, r->node, r->drain_reason);
		if (json_object_object_get_ex(r->doc, "prolog_failed", &pf) &&
		    json_object_is_type(pf, json_type_string))
			node_reason_add(&failed, r->node,
					json_object_get_string(pf));
	}
	json_object_object_add(o, "attempt",
			       json_object_new_int64(set->recs[from].attempt));
	json_object_object_add(
		o, "restart_count",
		json_object_new_int64(set->recs[from].attempt - 1));
	json_object_object_add(o, "nodes", str_or_null(first, "nodes"));
	json_object_object_add(o, "records",
			       json_object_new_int64((int64_t)(to - from)));
	json_object_object_add(o, "end", json_object_new_int64(end));
	json_object_object_add(o, "exit_code", int_or_null(first, "exit_code"));
	json_object_object_add(o, "signal", int_or_null(first, "signal"));
	json_object_object_add(o, "derived_exit_code",
			       int_or_null(first, "derived_exit_code"));
	json_object_object_add(o, "derived_signal",
			       int_or_null(first, "derived_signal"));
	json_object_object_add(o, "worst",
			       json_object_new_string(sn_grade_name(w)));
	json_object_object_add(o, "drained",
			       drained ? drained : json_object_new_array());
	json_object_object_add(o, "prolog_failed",
			       failed ? failed : json_object_new_array());
	return o;
}

static int rec_by_attempt(const void *pa, const void *pb)
{
	const struct snctl_record *a = pa, *b = pb;

	if (a->attempt != b->attempt)
		return a->attempt < b->attempt ? -1 : 1;
	return strcmp(a->node, b->node);
}

/* Every attempt of the job, first to last (sorts set by attempt). */
static json_object *attempts_json(struct snctl_set *set)
{
	json_object *a = json_object_new_array();
	size_t from = 0;

	qsort(set->recs, set->n, sizeof(*set->recs), rec_by_attempt);
	for (size_t i = 1; i <= set->n; i++)
		if (i == set->n ||
		    set->recs[i].attempt != set->recs[from].attempt) {
			json_object_array_add(a, attempt_json(set, from, i));
			from = i;
		}
	return a;
}

/* "0:15", or "?" when the record had none. */
static void pair_text(json_object *o, const char *a, const char *b, char *buf,
		      size_t size)
{
	json_object *x = json_object_object_get(o, a);
	json_object *y = json_object_object_get(o, b);

	if (!x)
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%d:%d", json_object_get_int(x),
			 y ? json_object_get_int(y) : 0);
}

/*
 * "attempt 1 (restart 0): nodes sna[1-2], ended 2026-..., exit 0:15,
 * derived 0:0, worst OK, 2 records" and its drained / prolog failed lines.
 */
static void attempts_print(json_object *attempts)
{
	for (size_t i = 0; i < json_object_array_length(attempts); i++) {
		json_object *o = json_object_array_get_idx(attempts, i), *l;
		char e[48], x[32], d[32];
		const char *nodes;

		snctl_fmt_time(
			json_object_get_int64(json_object_object_get(o, "end")),
			e, sizeof(e));
		pair_text(o, "exit_code", "signal", x, sizeof(x));
		pair_text(o, "derived_exit_code", "derived_signal", d,
			  sizeof(d));
		nodes = json_object_get_string(
			json_object_object_get(o, "nodes"));
		printf("attempt %lld (restart %lld): nodes %s, ended %s, exit %s, derived %s, worst %s, %lld records\n",
		       (long long)json_object_get_int64(
			       json_object_object_get(o, "attempt")),
		       (long long)json_object_get_int64(
			       json_object_object_get(o, "restart_count")),
		       nodes ? nodes : "?", e, x, d,
		       json_object_get_string(
			       json_object_object_get(o, "worst")),
		       (long long)json_object_get_int64(
			       json_object_object_get(o, "records")));
		l = json_object_object_get(o, "drained");
		for (size_t k = 0; k < json_object_array_length(l); k++) {
			json_object *r = json_object_array_get_idx(l, k);

			printf("  drained: %s: %s\n",
			       json_object_get_string(
				       json_object_object_get(r, "node")),
			       json_object_get_string(
				       json_object_object_get(r, "reason")));
		}
		l = json_object_object_get(o, "prolog_failed");
		for (size_t k = 0; k < json_object_array_length(l); k++) {
			json_object *r = json_object_array_get_idx(l, k);

			printf("  prolog failed: %s: %s\n",
			       json_object_get_string(
				       json_object_object_get(r, "node")),
			       json_object_get_string(
				       json_object_object_get(r, "reason")));
		}
	}
}

/* Whether any record says its attempt (an epilog of issue 20 or later). */
static bool attempts_known(const struct snctl_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (json_object_object_get_ex(set->recs[i].doc, "attempt",
					      NULL))
			return true;
	return false;
}

static int rec_by_node(const void *pa, const void *pb)
{
	const struct snctl_record *a = pa, *b = pb;

	if (a->worst != b->worst)
		return a->worst > b->worst ? -1 : 1;
	return strcmp(a->node, b->node);
}

static void footer_print(const struct snctl_set *set, json_object *missing)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->recs[i].drain_reason)
			printf("%s: %s: %s\n",
			       !set->recs[i].drain_outcome ||
					       !strcmp(set->recs[i]
							       .drain_outcome,
						       "drained") ?
				       "drained" :
				       set->recs[i].drain_outcome,
			       set->recs[i].node, set->recs[i].drain_reason);
	for (size_t i = 0; i < json_object_array_length(missing); i++)
		printf("missing: %s: no readable record\n",
		       json_object_get_string(
			       json_object_array_get_idx(missing, i)));
}

static int table_print(const struct report_args *a, const struct snctl_set *set,
		       json_object *missing, json_object *attempts)
{
	struct report_rows rows = { 0 };
	int rc = SNCTL_EXIT_OK;

	for (size_t i = 0; i < set->n; i++)
		if (report_rows_add(&rows, &set->recs[i])) {
			sn_log_stderr("out of memory");
			rc = SNCTL_EXIT_NOTFOUND;
			goto out;
		}
	report_rows_sort(&rows);
	header_print(a, set, json_object_array_length(missing),
		     last_attempt(attempts),
		     attempts ? json_object_array_length(attempts) : 0);
	report_rows_print(stdout, &rows);
	footer_print(set, missing);
	if (attempts)
		attempts_print(attempts);
out:
	report_rows_free(&rows);
	return rc;
}

static void json_print(const struct report_args *a, const struct snctl_set *set,
		       json_object *missing, json_object *attempts)
{
	json_object *doc = json_object_new_object();
	json_object *nodes = json_object_new_array();

	for (size_t i = 0; i < set->n; i++)
		json_object_array_add(nodes, json_object_get(set->recs[i].doc));
	json_object_object_add(doc, "job_id", json_object_new_int64(a->job));
	json_object_object_add(
		doc, "worst",
		json_object_new_string(sn_grade_name(set_worst(set, 0))));
	json_object_object_add(doc, "nodes", nodes);
	json_object_object_add(doc, "missing", json_object_get(missing));
	json_object_object_add(doc, "unreadable", snctl_problems_json(set));
	json_object_object_add(doc, "attempts", json_object_get(attempts));
	snctl_json_print(doc);
	json_object_put(doc);
}

int report_job(const struct report_args *a, const struct sn_config *cfg)
{
	struct snctl_set set = { 0 };
	json_object *missing = NULL, *attempts = NULL;
	size_t ndirs = 0;
	char **dirs;
	int rc = SNCTL_EXIT_NOTFOUND;

	dirs = snctl_record_dirs(cfg, NULL, &ndirs);
	if (!dirs)
		return SNCTL_EXIT_USAGE;
	for (size_t i = 0; i < ndirs && !set.truncated; i++)
		scan_job_dir(&set, dirs[i], a->job);
	snctl_problems_print(&set);
	if (!set.n) {
		sn_log_stderr("no record of job %lld in %s", (long long)a->job,
			      cfg->epilog.record_dir);
		goto out;
	}
	attempts = attempts_json(&set);
	qsort(set.recs, set.n, sizeof(*set.recs), rec_by_node);
	missing = missing_nodes(cfg, &set);
	if (a->json) {
		json_print(a, &set, missing, attempts);
		rc = SNCTL_EXIT_OK;
	} else {
		rc = table_print(a, &set, missing,
				 attempts_known(&set) ? attempts : NULL);
	}
out:
	json_object_put(attempts);
	json_object_put(missing);
	snctl_strv_free(dirs, ndirs);
	snctl_set_free(&set);
	return rc;
}
