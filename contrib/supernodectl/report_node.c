/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl report --node NAME --last N: the node's N most recent jobs
 * (by the record's "end"), one line each.  The scan is bounded: at most
 * SNCTL_MAX_DIRS job folders are listed (sn_store_jobs), newest job ids
 * first, and at most SNCTL_MAX_FILES records read.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/sn_store.h"
#include "report.h"

static int end_desc(const void *pa, const void *pb)
{
	const struct snctl_record *a = pa, *b = pb;

	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return a->job_id == b->job_id ? 0 : (a->job_id > b->job_id ? -1 : 1);
}

/* Read dir/<job>/<node>.json for the newest jobs first (sn_store_jobs). */
static void scan_dir(struct snctl_set *set, const char *dir, const char *node)
{
	char path[PATH_MAX];
	int64_t *ids;
	bool truncated;
	size_t n;

	if (sn_store_jobs(dir, SNCTL_MAX_DIRS, &ids, &n, &truncated)) {
		snctl_problem_add(set, dir, "cannot list: %s", strerror(errno));
		return;
	}
	if (truncated) {
		sn_log_stderr(
			"%s: more than %u job folders: only those listed first are read",
			dir, SNCTL_MAX_DIRS);
		set->truncated = true;
	}
	for (size_t i = 0; i < n; i++) {
		if (sn_store_path(dir, ids[i], node, path, sizeof(path)) ||
		    access(path, F_OK))
			continue;
		if (snctl_record_load(set, path, ids[i], node) < 0)
			break;
	}
	free(ids);
}

static void lines_print(const struct snctl_set *set, size_t n)
{
	int wj = 3, wu = 4;
	char end[48], job[24];

	for (size_t i = 0; i < n; i++) {
		snprintf(job, sizeof(job), "%lld",
			 (long long)set->recs[i].job_id);
		wj = (int)strlen(job) > wj ? (int)strlen(job) : wj;
		if ((int)strlen(set->recs[i].user) > wu)
			wu = (int)strlen(set->recs[i].user);
	}
	printf("%-*s  %-*s  %-24s  %-5s  %s\n", wj, "JOB", wu, "USER", "END",
	       "WORST", "DRAIN_REASON");
	for (size_t i = 0; i < n; i++) {
		const struct snctl_record *r = &set->recs[i];

		snctl_fmt_time(r->end, end, sizeof(end));
		printf("%-*lld  %-*s  %-24s  %-5s  %s\n", wj,
		       (long long)r->job_id, wu, r->user[0] ? r->user : "?",
		       end, sn_grade_name(r->worst),
		       r->drain_reason ? r->drain_reason : "-");
	}
}

static void json_print(const struct report_args *a, const struct snctl_set *set,
		       size_t n)
{
	json_object *doc = json_object_new_object();
	json_object *jobs = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(jobs, json_object_get(set->recs[i].doc));
	json_object_object_add(doc, "node", json_object_new_string(a->node));
	json_object_object_add(doc, "jobs", jobs);
	json_object_object_add(doc, "unreadable", snctl_problems_json(set));
	snctl_json_print(doc);
	json_object_put(doc);
}

int report_node(const struct report_args *a, const struct sn_config *cfg)
{
	struct snctl_set set = { 0 };
	size_t ndirs = 0, n;
	char **dirs;
	int rc = SNCTL_EXIT_NOTFOUND;

	dirs = snctl_record_dirs(cfg, a->node, &ndirs);
	if (!dirs)
		return SNCTL_EXIT_USAGE;
	for (size_t i = 0; i < ndirs && set.files_read < SNCTL_MAX_FILES; i++)
		scan_dir(&set, dirs[i], a->node);
	snctl_problems_print(&set);
	if (!set.n) {
		sn_log_stderr("no record of node %s in %s", a->node,
			      cfg->epilog.record_dir);
		goto out;
	}
	qsort(set.recs, set.n, sizeof(*set.recs), end_desc);
	n = set.n < a->last ? set.n : a->last;
	if (a->json)
		json_print(a, &set, n);
	else
		lines_print(&set, n);
	rc = SNCTL_EXIT_OK;
out:
	snctl_strv_free(dirs, ndirs);
	snctl_set_free(&set);
	return rc;
}
