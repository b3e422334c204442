/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_store_*: the record path layout (record_dir/<jobid>/<node>.json), the
 * bounded scans of a job folder and of the job folders, and the writer
 * (trusted folders, atomic, killed epilogs' temporaries swept), in a
 * temporary folder.
 */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#include <json-c/json.h>

#include "records/sn_store.h"

/* ---- sn_store_write (issue 9 items 7 and 9; moved from test_record.c) --- */

static char wroot[64];

static int write_setup(void **state)
{
	(void)state;
	umask(022);
	strcpy(wroot, "/tmp/sn-recwrite-XXXXXX");
	return mkdtemp(wroot) ? 0 : -1;
}

static int write_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", wroot);
	return system(cmd) ? -1 : 0;
}

static char *wpath(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* wroot/<fmt ...> into buf (PATH_MAX). */
static char *wpath(char *buf, const char *fmt, ...)
{
	char rel[PATH_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(buf, PATH_MAX, "%s/%s", wroot, rel);
	return buf;
}

static int write_job(uint32_t job, struct sn_error *err)
{
	char records[PATH_MAX], st[PATH_MAX];
	json_object *rec = json_tokener_parse("{\"schema\": 1, \"job_id\": 7}");
	int rc;

	err_reset(err);
	rc = sn_store_write(rec, wpath(records, "records"), wpath(st, "state"),
			    job, 1, "gpu-a001", err);
	json_object_put(rec);
	return rc;
}

/* A record {"job_id": job, "attempt": tag} of attempt for node gpu-a001. */
static int write_attempt(uint32_t job, uint32_t attempt, int tag,
			 struct sn_error *err)
{
	char records[PATH_MAX], st[PATH_MAX];
	json_object *rec = json_object_new_object();
	int rc;

	json_object_object_add(rec, "job_id", json_object_new_int64(job));
	json_object_object_add(rec, "attempt", json_object_new_int(tag));
	err_reset(err);
	rc = sn_store_write(rec, wpath(records, "records"), wpath(st, "state"),
			    job, attempt, "gpu-a001", err);
	json_object_put(rec);
	return rc;
}

/* The "attempt" of the record at wroot/REL; -1 when unreadable. */
static int attempt_at(const char *rel)
{
	char p[PATH_MAX];
	json_object *doc = json_object_from_file(wpath(p, "%s", rel)), *a;
	int v = -1;

	if (doc && json_object_object_get_ex(doc, "attempt", &a))
		v = json_object_get_int(a);
	json_object_put(doc);
	return v;
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	fclose(f);
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static void test_record_write(void **state)
{
	char p[PATH_MAX], pending[PATH_MAX];
	struct sn_error err;
	json_object *o;
	struct stat st;

	(void)state;
	assert_int_equal(write_job(42, &err), 0);
	assert_string_equal(err.msg, "(unset)");
	o = json_object_from_file(wpath(p, "records/42/gpu-a001.json"));
	assert_non_null(o);
	assert_int_equal(
		json_object_get_int64(json_object_object_get(o, "job_id")), 7);
	json_object_put(o);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(stat(wpath(p, "records/42"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	/* the note is gone once the record is written; the folder stays root's */
	assert_int_equal(
		stat(wpath(pending, "state/%s", SN_STORE_PENDING_DIR), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_false(exists(wpath(p, "state/%s/42.%d", SN_STORE_PENDING_DIR,
				  (int)getpid())));
	assert_int_equal(rmdir(pending), 0); /* empty */
}

/*
 * Issue 9 item 7: a user pre-creates record_dir/<jobid> as a link to any
 * folder, or as a folder of their own: root writes nothing there, the
 * message says why.
 */
static void test_record_write_refuses(void **state)
{
	char p[PATH_MAX], t[PATH_MAX], want[PATH_MAX + 64];
	struct sn_error err;

	(void)state;
	assert_int_equal(mkdir(wpath(p, "records"), 01777), 0);
	assert_int_equal(chmod(p, 01777), 0);
	assert_int_equal(mkdir(wpath(t, "victim"), 0755), 0);
	assert_int_equal(symlink(t, wpath(p, "records/43")), 0);
	assert_int_equal(write_job(43, &err), -1);
	snprintf(want, sizeof(want),
		 "a symbolic link, not followed: %s/records/43", wroot);
	assert_string_equal(err.msg, want);
	assert_false(exists(wpath(p, "victim/gpu-a001.json")));
	assert_int_equal(rmdir(t), 0); /* still empty */
	/* a folder a user made: owned by them, never written into */
	assert_int_equal(mkdir(wpath(p, "records/44"), 0755), 0);
	if (chown(p, 65534, 65534))
		fail_msg("chown %s: %s (the unit tests run as root)", p,
			 strerror(errno));
	assert_int_equal(write_job(44, &err), -1);
	snprintf(
		want, sizeof(want),
		"folder owned by uid 65534 (nobody), not by root: %s/records/44",
		wroot);
	assert_string_equal(err.msg, want);
	assert_false(exists(wpath(p, "records/44/gpu-a001.json")));
	/* record_dir itself writable by all without the sticky bit */
	assert_int_equal(chmod(wpath(p, "records"), 0777), 0);
	assert_int_equal(write_job(45, &err), -1);
	snprintf(
		want, sizeof(want),
		"folder writable by group or others without the sticky bit: %s/records",
		wroot);
	assert_string_equal(err.msg, want);
	assert_false(exists(wpath(p, "records/45")));
}

/* A PID that was a child a moment ago and is gone now. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

/*
 * Issue 9 item 9: temporaries of killed epilogs, in this job's folder (a
 * requeue) and in the folders their notes name, are removed when their
 * process is gone; a live process's, another node's and a user's stay.
 */
static void test_record_write_sweeps(void **state)
{
	char p[PATH_MAX];
	struct sn_error err;
	int dead = (int)dead_pid(), live = (int)getppid();

	(void)state;
	assert_int_equal(write_job(1, &err), 0); /* makes the folders */
	assert_int_equal(mkdir(wpath(p, "records/40"), 0755), 0);
	touch(wpath(p, "records/40/gpu-a001.json.%d.tmp", dead)); /* goes */
	touch(wpath(p, "records/40/gpu-a002.json.%d.tmp",
		    dead)); /* other node */
	touch(wpath(p, "records/40/gpu-a001.json.%d.tmp", live)); /* live */
	touch(wpath(p, "state/%s/40.%d", SN_STORE_PENDING_DIR, dead));
	assert_int_equal(mkdir(wpath(p, "records/41"), 0755), 0);
	touch(wpath(p, "records/41/gpu-a001.json.%d.tmp",
		    dead)); /* note alive */
	touch(wpath(p, "state/%s/41.%d", SN_STORE_PENDING_DIR, live));
	touch(wpath(p, "state/%s/39.%d", SN_STORE_PENDING_DIR,
		    dead)); /* no folder */
	/* this job's own folder: a requeued job whose epilog was killed */
	assert_int_equal(mkdir(wpath(p, "records/46"), 0755), 0);
	touch(wpath(p, "records/46/gpu-a001.json.%d.tmp", dead));
	touch(wpath(p, "records/46/gpu-a001.json.%d.tmp", live));

	assert_int_equal(write_job(46, &err), 0);
	assert_false(exists(wpath(p, "records/40/gpu-a001.json.%d.tmp", dead)));
	assert_true(exists(wpath(p, "records/40/gpu-a002.json.%d.tmp", dead)));
	assert_true(exists(wpath(p, "records/40/gpu-a001.json.%d.tmp", live)));
	assert_false(
		exists(wpath(p, "state/%s/40.%d", SN_STORE_PENDING_DIR, dead)));
	assert_false(
		exists(wpath(p, "state/%s/39.%d", SN_STORE_PENDING_DIR, dead)));
	assert_true(exists(wpath(p, "records/41/gpu-a001.json.%d.tmp", dead)));
	assert_true(
		exists(wpath(p, "state/%s/41.%d", SN_STORE_PENDING_DIR, live)));
	assert_false(exists(wpath(p, "records/46/gpu-a001.json.%d.tmp", dead)));
	assert_true(exists(wpath(p, "records/46/gpu-a001.json.%d.tmp", live)));
	assert_true(exists(wpath(p, "records/46/gpu-a001.json")));
}

/* ---- paths --------------------------------------------------------------- */

static void test_paths(void **state)
{
	char buf[PATH_MAX], small[12];

	(void)state;
	assert_int_equal(sn_store_job_dir("/r", 42, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/r/42");
	assert_int_equal(sn_store_path("/r", 42, "gpu-a001", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "/r/42/gpu-a001.json");
	assert_int_equal(
		sn_store_path("/r", 42, "gpu-a001", small, sizeof(small)), -1);
	assert_int_equal(sn_store_job_dir("/records", 4294967280LL, small,
					  sizeof(small)),
			 -1);
	assert_int_equal(
		sn_store_dir("/var/%n/rec", "n1", "h1", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/var/n1/rec");
	assert_int_equal(sn_store_dir("/var/%h", "n1", "h1", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "/var/h1");
	assert_int_equal(sn_store_dir("/var/%x", "n1", "h1", buf, sizeof(buf)),
			 -1);
	assert_int_equal(sn_store_dir("/var/%n", NULL, "h1", buf, sizeof(buf)),
			 -1);
}

static void test_node_names(void **state)
{
	char node[SN_STORE_NODE_MAX + 1], name[SN_STORE_NODE_MAX + 8];

	(void)state;
	assert_true(sn_store_node_of("gpu-a001.json", node, sizeof(node)));
	assert_string_equal(node, "gpu-a001");
	assert_true(sn_store_node_of("n_1.x.json", node, sizeof(node)));
	assert_string_equal(node, "n_1.x");
	assert_false(sn_store_node_of(".json", node, sizeof(node)));
	assert_false(sn_store_node_of("..", node, sizeof(node)));
	assert_false(sn_store_node_of(".hidden.json", node, sizeof(node)));
	assert_false(
		sn_store_node_of("gpu-a001.json.123.tmp", node, sizeof(node)));
	assert_false(sn_store_node_of("a b.json", node, sizeof(node)));
	assert_false(sn_store_node_of("-x.json", node, sizeof(node)));
	assert_false(sn_store_node_of("x.JSON", node, sizeof(node)));
	memset(name, 'a', SN_STORE_NODE_MAX);
	strcpy(name + SN_STORE_NODE_MAX, ".json");
	assert_true(sn_store_node_of(name, node, sizeof(node)));
	assert_int_equal(strlen(node), 255);
	memset(name, 'a', SN_STORE_NODE_MAX + 1);
	strcpy(name + SN_STORE_NODE_MAX + 1, ".json");
	assert_false(sn_store_node_of(name, node, sizeof(node)));
	assert_true(sn_store_node_ok("sna1"));
	assert_false(sn_store_node_ok(""));
	assert_false(sn_store_node_ok("a/b"));
}

/* ---- bounded scans --------------------------------------------------------- */

struct seen {
	char nodes[8][64];
	char first_path[PATH_MAX];
	size_t n;
	size_t stop_after; /* 0: never */
};

static int visit(const char *path, const char *node, void *arg)
{
	struct seen *s = arg;

	if (!s->n)
		snprintf(s->first_path, sizeof(s->first_path), "%s", path);
	if (s->n < 8)
		snprintf(s->nodes[s->n], sizeof(s->nodes[0]), "%s", node);
	s->n++;
	return s->stop_after && s->n >= s->stop_after ? -1 : 0;
}

static int cmp_node(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void test_scan_job(void **state)
{
	static const char *const files[] = {
		"gpu-a002.json", "gpu-a001.json", "gpu-a001.json.99.tmp",
		".hidden.json",	 "notes.txt",	  "a b.json",
	};
	char p[PATH_MAX], want[PATH_MAX];
	struct seen s = { 0 };
	bool trunc = true;

	(void)state;
	assert_int_equal(mkdir(wpath(p, "r"), 0755), 0);
	assert_int_equal(mkdir(wpath(p, "r/7"), 0755), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		touch(wpath(p, "r/7/%s", files[i]));
	assert_int_equal(sn_store_scan_job(wpath(p, "r"), 7, 1000, visit, &s,
					   &trunc),
			 2);
	assert_false(trunc);
	qsort(s.nodes, s.n, sizeof(s.nodes[0]), cmp_node);
	assert_string_equal(s.nodes[0], "gpu-a001");
	assert_string_equal(s.nodes[1], "gpu-a002");
	/* a visitor may stop the scan; the path is <dir>/<job>/<node>.json */
	memset(&s, 0, sizeof(s));
	s.stop_after = 1;
	assert_int_equal(
		sn_store_scan_job(wpath(p, "r"), 7, 1000, visit, &s, NULL), 1);
	snprintf(want, sizeof(want), "%s/r/7/%s.json", wroot, s.nodes[0]);
	assert_string_equal(s.first_path, want);
	/* at most max_entries entries looked at ("." and ".." count) */
	memset(&s, 0, sizeof(s));
	assert_true(sn_store_scan_job(wpath(p, "r"), 7, 3, visit, &s, &trunc) <=
		    2);
	assert_true(trunc);
	/* no folder for the job: nothing, no error */
	assert_int_equal(sn_store_scan_job(wpath(p, "r"), 8, 1000, visit, &s,
					   &trunc),
			 0);
	/* a file where the job folder should be: the reason in errno */
	touch(wpath(p, "r/9"));
	errno = 0;
	assert_int_equal(sn_store_scan_job(wpath(p, "r"), 9, 1000, visit, &s,
					   &trunc),
			 -1);
	assert_int_equal(errno, ENOTDIR);
}

/*
 * Issue 20 item 2: a requeued job keeps its id; each attempt's record has
 * its own file, and no later attempt replaces an earlier one's (before:
 * attempt 2 wrote over records/42/gpu-a001.json).
 */
static void test_record_attempts(void **state)
{
	struct sn_error err;
	struct seen s = { 0 };
	char p[PATH_MAX];
	bool trunc;

	(void)state;
	assert_int_equal(write_attempt(42, 1, 1, &err), 0);
	assert_int_equal(write_attempt(42, 2, 2, &err), 0);
	assert_int_equal(write_attempt(42, 3, 3, &err), 0);
	assert_int_equal(attempt_at("records/42/gpu-a001.json"), 1);
	assert_int_equal(attempt_at("records/42/attempt-2/gpu-a001.json"), 2);
	assert_int_equal(attempt_at("records/42/attempt-3/gpu-a001.json"), 3);
	/* no restart count from Slurm: the first attempt's record stays */
	assert_int_equal(write_attempt(42, 0, 9, &err), -1);
	snprintf(
		p, sizeof(p),
		"a record of an earlier attempt is there, kept: %s/records/42/gpu-a001.json",
		wroot);
	assert_string_equal(err.msg, p);
	assert_int_equal(attempt_at("records/42/gpu-a001.json"), 1);
	assert_int_equal(write_attempt(43, 0, 5, &err), 0);
	assert_int_equal(attempt_at("records/43/gpu-a001.json"), 5);
	assert_int_equal(write_attempt(42, SN_STORE_ATTEMPT_MAX + 1, 1, &err),
			 -1);
	/* the scan visits every attempt's record */
	assert_int_equal(sn_store_scan_job(wpath(p, "records"), 42, 1000, visit,
					   &s, &trunc),
			 3);
	assert_false(trunc);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.nodes[0], "gpu-a001");
	assert_string_equal(s.nodes[2], "gpu-a001");
	/* the folder names taken as attempts */
	assert_int_equal(sn_store_attempt_of("attempt-2"), 2);
	assert_int_equal(sn_store_attempt_of("attempt-65536"), 65536);
	assert_int_equal(sn_store_attempt_of("attempt-1"), 0);
	assert_int_equal(sn_store_attempt_of("attempt-0"), 0);
	assert_int_equal(sn_store_attempt_of("attempt-02"), 0);
	assert_int_equal(sn_store_attempt_of("attempt-65537"), 0);
	assert_int_equal(sn_store_attempt_of("attempt-"), 0);
	assert_int_equal(sn_store_attempt_of("attempt-2x"), 0);
	assert_int_equal(sn_store_attempt_of("gpu-a001.json"), 0);
}

static void test_jobs(void **state)
{
	static const char *const dirs[] = { "5",   "1000", "12", "0",
					    "abc", "-3",   "12x" };
	char p[PATH_MAX];
	int64_t *ids;
	size_t n;
	bool trunc;

	(void)state;
	assert_int_equal(mkdir(wpath(p, "r"), 0755), 0);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		assert_int_equal(mkdir(wpath(p, "r/%s", dirs[i]), 0755), 0);
	assert_int_equal(sn_store_jobs(wpath(p, "r"), 100, &ids, &n, &trunc),
			 0);
	assert_int_equal(n, 3);
	assert_false(trunc);
	assert_int_equal(ids[0], 1000);
	assert_int_equal(ids[1], 12);
	assert_int_equal(ids[2], 5);
	free(ids);
	assert_int_equal(sn_store_jobs(wpath(p, "r"), 2, &ids, &n, &trunc), 0);
	assert_int_equal(n, 2);
	assert_true(trunc);
	free(ids);
	assert_int_equal(sn_store_jobs(wpath(p, "none"), 100, &ids, &n, &trunc),
			 0);
	assert_int_equal(n, 0);
	assert_null(ids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_node_names),
		cmocka_unit_test_setup_teardown(test_scan_job, write_setup,
						write_teardown),
		cmocka_unit_test_setup_teardown(test_record_attempts,
						write_setup, write_teardown),
		cmocka_unit_test_setup_teardown(test_jobs, write_setup,
						write_teardown),
		cmocka_unit_test_setup_teardown(test_record_write, write_setup,
						write_teardown),
		cmocka_unit_test_setup_teardown(test_record_write_refuses,
						write_setup, write_teardown),
		cmocka_unit_test_setup_teardown(test_record_write_sweeps,
						write_setup, write_teardown),
	};

	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
