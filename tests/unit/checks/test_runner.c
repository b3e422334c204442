/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The check runner (lib/runner.c), field case 16: every group in its own
 * child, results in group order whatever order the children finish in; a
 * group that hangs (in a sleep, with every signal blocked, in an NVML call
 * of the fake libnvidia-ml) is killed at its limit and reported CRIT
 * CHECK_TIMEOUT naming it, and the call comes back on time; a group that
 * dies is UNKNOWN CHECK_DIED; sn_run_in_child's exit codes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#include "config/sn_config.h"
#include "checks/sn_runner.h"
#include "util/sn_child.h"

#ifdef SN_FAKE_NVML
static const char *const fake_lib = SN_FAKE_NVML;
#else
static const char *const fake_lib = NULL;
#endif

#define REAL SN_FIXTURES "/nvidia/nvml-h200x2.json"

/* The groups below take no context. */
static const struct sn_check_ctx no_ctx;

/* Where a group leaves its pid (and a grandchild's) for the test to check. */
static char pid_file[64];

static void pid_note(pid_t pid)
{
	FILE *f = fopen(pid_file, "a");

	if (f) {
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
}

static unsigned pids_read(pid_t *pids, unsigned max)
{
	FILE *f = fopen(pid_file, "r");
	unsigned n = 0;
	int p;

	if (!f)
		return 0;
	while (n < max && fscanf(f, "%d", &p) == 1)
		pids[n++] = p;
	fclose(f);
	return n;
}

static int setup(void **state)
{
	(void)state;
	snprintf(pid_file, sizeof(pid_file), "/tmp/sn-runner-%d.pids",
		 (int)getpid());
	unlink(pid_file);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(pid_file);
	unsetenv("SN_FAKE_NVML_HANG");
	unsetenv("SN_FAKE_NVML_FIXTURE");
	return 0;
}

/* ---- groups ------------------------------------------------------------- */

static int g_two(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	(void)ctx;
	usleep(150 * 1000); /* finishes last */
	sn_results_add(out, SN_OK, "two", "OK", "dev-a", "fine", "fine");
	sn_results_add(out, SN_WARN, "two", "TWO_WARN", "dev-b", "x", "y %d",
		       7);
	return 0;
}

static int g_one(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	(void)ctx; /* finishes first */
	sn_results_add(out, SN_CRIT, "one", "ONE_CRIT", "dev-c", "up", "down");
	return 0;
}

static int g_mid(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	(void)ctx;
	usleep(50 * 1000);
	sn_results_add(out, SN_UNKNOWN, "mid", "MID_UNKNOWN", "node", "", "?");
	return 0;
}

static int g_none(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	(void)ctx;
	(void)out;
	return 0;
}

static int g_ok(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	(void)ctx;
	sn_results_add(out, SN_OK, "quick", "OK", "node", "e", "f");
	return 0;
}

static int g_sleep(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	(void)ctx;
	(void)out;
	pid_note(getpid());
	for (;;)
		sleep(1000);
	return 0;
}

static int g_abort(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	struct rlimit no_core = { 0, 0 };

	(void)ctx;
	sn_results_add(out, SN_OK, "abort", "OK", "node", "e", "lost");
	setrlimit(RLIMIT_CORE, &no_core);
	abort();
}

static int g_exit3(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	(void)ctx;
	(void)out;
	_exit(3);
}

static int g_segv(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	struct rlimit no_core = { 0, 0 };

	(void)ctx;
	(void)out;
	setrlimit(RLIMIT_CORE, &no_core);
	signal(SIGSEGV, SIG_DFL); /* not ASan's handler */
	raise(SIGSEGV);
	return 0;
}

/* As close to D state as user space gets: every signal blocked, waiting. */
static int g_deaf(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	sigset_t all;

	(void)ctx;
	(void)out;
	signal(SIGTERM, SIG_IGN);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	pid_note(getpid());
	for (;;)
		pause();
	return 0;
}

/* Returns at once, but leaves a grandchild holding its pipe open. */
static int g_orphan(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	pid_t pid;

	(void)ctx;
	pid = fork();
	if (pid == 0) {
		pid_note(getpid());
		for (;;)
			pause();
	}
	sn_results_add(out, SN_OK, "orphan", "OK", "node", "e", "f");
	return 0;
}

static int g_max(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	(void)ctx;
	for (size_t i = 0; i < SN_RESULTS_MAX + 10; i++)
		sn_results_add(out, i % 2 ? SN_WARN : SN_OK, "max", "M", "dev",
			       "e", "%zu", i);
	return 0;
}

/* ---- helpers ------------------------------------------------------------ */

static void expect_result(const struct sn_results *r, size_t i, enum sn_grade g,
			  const char *check, const char *code,
			  const char *device, const char *expected,
			  const char *found)
{
	const struct sn_result *x;

	if (i >= r->count)
		fail_msg("result %zu missing (%zu results)", i, r->count);
	x = &r->items[i];
	if (x->grade != g || strcmp(x->check, check) || strcmp(x->code, code) ||
	    strcmp(x->device, device) || strcmp(x->expected, expected) ||
	    strcmp(x->found, found))
		fail_msg(
			"result %zu: %s %s %s %s expected '%s' found '%s'; want %s %s %s %s expected '%s' found '%s'",
			i, sn_grade_name(x->grade), x->check, x->code,
			x->device, x->expected, x->found, sn_grade_name(g),
			check, code, device, expected, found);
}

/* Waits (up to 1 s) for pid to be gone: reaped by us or by nobody left. */
static void expect_gone(pid_t pid)
{
	for (int i = 0; i < 100; i++) {
		int st;

		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		if (kill(pid, 0) && errno == ESRCH)
			return;
		usleep(10 * 1000);
	}
	kill(pid, SIGKILL);
	fail_msg("process %d still alive after the runner returned", (int)pid);
}

static int64_t run(const struct sn_check_group *g, unsigned n,
		   uint32_t check_ms, uint32_t total_ms, struct sn_results *r)
{
	int64_t t0 = sn_now_ms();

	memset(r, 0, sizeof(*r));
	assert_int_equal(sn_run_checks(&no_ctx, g, n, check_ms, total_ms, r),
			 0);
	return sn_now_ms() - t0;
}

/* ---- sn_run_checks ------------------------------------------------------ */

static void test_group_order(void **state)
{
	const struct sn_check_group g[] = {
		{ "two", g_two },
		{ "none", g_none },
		{ "one", g_one },
		{ "mid", g_mid },
	};
	struct sn_results r;
	int64_t took;

	(void)state;
	took = run(g, 4, 5000, 10000, &r);
	assert_int_equal(r.count, 4);
	expect_result(&r, 0, SN_OK, "two", "OK", "dev-a", "fine", "fine");
	expect_result(&r, 1, SN_WARN, "two", "TWO_WARN", "dev-b", "x", "y 7");
	expect_result(&r, 2, SN_CRIT, "one", "ONE_CRIT", "dev-c", "up", "down");
	expect_result(&r, 3, SN_UNKNOWN, "mid", "MID_UNKNOWN", "node", "", "?");
	/* All at once: the slowest (150 ms) sets the time, not the sum. */
	assert_true(took >= 150 && took < 1000);
	sn_results_free(&r);
}

static void test_timeout_named(void **state)
{
	const struct sn_check_group g[] = {
		{ "quick", g_ok },
		{ "sleeper", g_sleep },
		{ "after", g_ok },
	};
	struct sn_results r;
	pid_t pid;
	int64_t took;

	(void)state;
	took = run(g, 3, 1000, 30000, &r);
	if (took < 1000 || took > 1200)
		fail_msg("returned after %lld ms, want 1000..1200",
			 (long long)took);
	assert_int_equal(r.count, 3);
	expect_result(&r, 0, SN_OK, "quick", "OK", "node", "e", "f");
	expect_result(&r, 1, SN_CRIT, "sleeper", "CHECK_TIMEOUT", "sleeper",
		      "finish within its time budget", "timeout: sleeper > 1s");
	expect_result(&r, 2, SN_OK, "quick", "OK", "node", "e", "f");
	assert_int_equal(pids_read(&pid, 1), 1);
	expect_gone(pid);
	sn_results_free(&r);
}

/* Not a whole number of seconds: said as it was, not rounded up. */
static void test_timeout_fraction(void **state)
{
	const struct sn_check_group g[] = { { "sleeper", g_sleep } };
	struct sn_results r;
	int64_t took;

	(void)state;
	took = run(g, 1, 500, 30000, &r);
	assert_true(took >= 500 && took <= 700);
	assert_int_equal(r.count, 1);
	expect_result(&r, 0, SN_CRIT, "sleeper", "CHECK_TIMEOUT", "sleeper",
		      "finish within its time budget",
		      "timeout: sleeper > 0.5s");
	sn_results_free(&r);
}

/* total_timeout below check_timeout: the total wins, and is what is said. */
static void test_total_timeout(void **state)
{
	const struct sn_check_group g[] = {
		{ "sleeper", g_sleep },
		{ "quick", g_ok },
	};
	struct sn_results r;
	int64_t took;

	(void)state;
	took = run(g, 2, 5000, 300, &r);
	if (took < 300 || took > 500)
		fail_msg("returned after %lld ms, want 300..500",
			 (long long)took);
	assert_int_equal(r.count, 2);
	expect_result(&r, 0, SN_CRIT, "sleeper", "CHECK_TIMEOUT", "sleeper",
		      "finish within its time budget",
		      "timeout: sleeper > 0.3s");
	expect_result(&r, 1, SN_OK, "quick", "OK", "node", "e", "f");
	sn_results_free(&r);
}

static void test_died(void **state)
{
	const struct sn_check_group g[] = {
		{ "aborts", g_abort },
		{ "exits", g_exit3 },
		{ "segv", g_segv },
		{ "quick", g_ok },
	};
	struct sn_results r;
	int64_t took;

	(void)state;
	took = run(g, 4, 5000, 5000, &r);
	assert_true(took < 1000);
	assert_int_equal(r.count, 4);
	expect_result(&r, 0, SN_UNKNOWN, "aborts", "CHECK_DIED", "aborts",
		      "check completes", "killed by SIGABRT");
	expect_result(&r, 1, SN_UNKNOWN, "exits", "CHECK_DIED", "exits",
		      "check completes", "exit 3");
	expect_result(&r, 2, SN_UNKNOWN, "segv", "CHECK_DIED", "segv",
		      "check completes", "killed by SIGSEGV");
	expect_result(&r, 3, SN_OK, "quick", "OK", "node", "e", "f");
	sn_results_free(&r);
}

/* Every signal blocked, SIGTERM ignored: SIGKILL still ends it on time. */
static void test_deaf_child_killed(void **state)
{
	const struct sn_check_group g[] = { { "deaf", g_deaf } };
	struct sn_results r;
	pid_t pid;
	int64_t took;

	(void)state;
	took = run(g, 1, 400, 400, &r);
	assert_true(took >= 400 && took <= 600);
	expect_result(&r, 0, SN_CRIT, "deaf", "CHECK_TIMEOUT", "deaf",
		      "finish within its time budget", "timeout: deaf > 0.4s");
	assert_int_equal(pids_read(&pid, 1), 1);
	expect_gone(pid);
	sn_results_free(&r);
}

/*
 * A grandchild left holding the group's pipe keeps the group from ending:
 * the whole process group is killed at the limit, the grandchild too.
 */
static void test_grandchild_killed(void **state)
{
	const struct sn_check_group g[] = { { "orphan", g_orphan } };
	struct sn_results r;
	pid_t pid;
	int64_t took;

	(void)state;
	/* The grandchild becomes ours when its parent exits: we can reap it. */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	took = run(g, 1, 300, 300, &r);
	assert_true(took >= 300 && took <= 500);
	expect_result(&r, 0, SN_CRIT, "orphan", "CHECK_TIMEOUT", "orphan",
		      "finish within its time budget",
		      "timeout: orphan > 0.3s");
	assert_int_equal(pids_read(&pid, 1), 1);
	expect_gone(pid);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	sn_results_free(&r);
}

static void test_results_max(void **state)
{
	const struct sn_check_group g[] = { { "max", g_max },
					    { "quick", g_ok } };
	struct sn_results r;

	(void)state;
	run(g, 2, 10000, 10000, &r);
	/* The first group fills the list; the second's result has no room. */
	assert_int_equal(r.count, SN_RESULTS_MAX);
	expect_result(&r, 0, SN_OK, "max", "M", "dev", "e", "0");
	expect_result(&r, 1, SN_WARN, "max", "M", "dev", "e", "1");
	expect_result(&r, SN_RESULTS_MAX - 1, SN_WARN, "max", "M", "dev", "e",
		      "4095");
	sn_results_free(&r);
}

/* A caller that ignores SIGCHLD (inherited from a daemon) loses nothing. */
static void test_sigchld_ignored(void **state)
{
	const struct sn_check_group g[] = { { "quick", g_ok },
					    { "one", g_one } };
	struct sigaction now;
	struct sn_results r;

	(void)state;
	signal(SIGCHLD, SIG_IGN);
	run(g, 2, 2000, 2000, &r);
	sigaction(SIGCHLD, NULL, &now);
	signal(SIGCHLD, SIG_DFL);
	assert_true(now.sa_handler == SIG_IGN); /* given back as it was */
	assert_int_equal(r.count, 2);
	expect_result(&r, 0, SN_OK, "quick", "OK", "node", "e", "f");
	expect_result(&r, 1, SN_CRIT, "one", "ONE_CRIT", "dev-c", "up", "down");
	sn_results_free(&r);
}

/* ---- the real accelerator group, NVML hung (fake libnvidia-ml) ---------- */

static void test_nvml_hang(void **state)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	struct sn_results r = { 0 };
	struct sn_error err;
	char *yaml = NULL;
	int64_t t0, took;

	(void)state;
	if (!fake_lib)
		skip();
	setenv("SN_FAKE_NVML_FIXTURE", REAL, 1);
	setenv("SN_FAKE_NVML_HANG", "nvmlDeviceGetCount_v2", 1);
	assert_true(
		asprintf(
			&yaml,
			"supernodes:\n  - name: sn01\n    nodes: n[1-2]\n"
			"paths:\n  sysfs: /nonexistent/sys\n  dev: /nonexistent/dev\n"
			"  nvml: %s\n"
			"node:\n  accelerators:\n    vendor: nvidia\n    count: 2\n",
			fake_lib) > 0);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	free(yaml);
	if (!cfg)
		fail_msg("%s", err.msg);
	assert_int_equal(sn_check_ctx_init(&ctx, cfg, "n1", &err), 0);

	/* All three groups: ports and topology have nothing configured. */
	t0 = sn_now_ms();
	assert_int_equal(sn_run_checks(&ctx, sn_check_groups,
				       sn_check_groups_count, 1000, 30000, &r),
			 0);
	took = sn_now_ms() - t0;
	if (took > 1200)
		fail_msg("returned after %lld ms, want at most 1200",
			 (long long)took);
	assert_int_equal(r.count, 1);
	expect_result(&r, 0, SN_CRIT, "accelerators", "CHECK_TIMEOUT",
		      "accelerators", "finish within its time budget",
		      "timeout: accelerators > 1s");
	sn_results_free(&r);

	/* Not hung: the same group answers, through the same child. */
	unsetenv("SN_FAKE_NVML_HANG");
	t0 = sn_now_ms();
	sn_run_checks(&ctx, sn_check_groups, 1, 1000, 30000, &r);
	assert_true(sn_now_ms() - t0 < 1000);
	/* The real capture's two H200s, after the two sysfs rows. */
	assert_int_equal(r.count, 4);
	expect_result(
		&r, 0, SN_UNKNOWN, "gpu_count", "ACCEL_PCI_SCAN", "node",
		"PCI functions in sysfs",
		"/nonexistent/sys/bus/pci/devices: No such file or directory");
	expect_result(&r, 1, SN_UNKNOWN, "gpu_count", "ACCEL_DEV_NODES", "node",
		      "device nodes",
		      "paths.dev /nonexistent/dev: No such file or directory");
	expect_result(&r, 3, SN_OK, "gpu", "OK", "gpu1 0000:00:07.0", "healthy",
		      "NVIDIA H200 pcie gen5 x16, 18 nvlinks active");
	sn_results_free(&r);
	sn_config_free(cfg);
}

/* ---- sn_run_in_child ---------------------------------------------------- */

static int c_hello(void *arg, int fd)
{
	(void)arg;
	return write(fd, "hello", 5) == 5 ? 0 : 1;
}

static int c_code(void *arg, int fd)
{
	(void)fd;
	return *(int *)arg;
}

static int c_sleep(void *arg, int fd)
{
	(void)arg;
	if (write(fd, "partial", 7) != 7)
		return 1;
	for (;;)
		sleep(1000);
	return 0;
}

static int c_kill(void *arg, int fd)
{
	(void)arg;
	(void)fd;
	raise(SIGKILL);
	return 0;
}

static int c_big(void *arg, int fd)
{
	char chunk[1000];

	(void)arg;
	memset(chunk, 'z', sizeof(chunk));
	for (int i = 0; i < 300; i++) /* 300 kB: more than a pipe holds */
		if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk))
			return 1;
	return 0;
}

static void test_run_in_child(void **state)
{
	char *buf = (char *)1;
	size_t len = 99;
	int code;
	int64_t t0, took;

	(void)state;
	assert_int_equal(sn_run_in_child(c_hello, NULL, 2000, 100, &buf, &len),
			 0);
	assert_int_equal(len, 5);
	assert_string_equal(buf, "hello");
	free(buf);

	code = 7;
	assert_int_equal(sn_run_in_child(c_code, &code, 2000, 100, &buf, &len),
			 7);
	assert_null(buf);
	assert_int_equal(len, 0);
	code = 256 + 3; /* an exit status is 8 bits */
	assert_int_equal(sn_run_in_child(c_code, &code, 2000, 100, &buf, &len),
			 3);

	t0 = sn_now_ms();
	assert_int_equal(sn_run_in_child(c_sleep, NULL, 300, 100, &buf, &len),
			 -1);
	took = sn_now_ms() - t0;
	assert_true(took >= 300 && took <= 500);
	assert_int_equal(len, 7); /* what came before the limit */
	assert_string_equal(buf, "partial");
	free(buf);

	assert_int_equal(sn_run_in_child(c_kill, NULL, 2000, 100, &buf, &len),
			 -2);
	free(buf);

	/* Output beyond max_bytes is dropped, the child still ends normally. */
	assert_int_equal(sn_run_in_child(c_big, NULL, 5000, 1000, &buf, &len),
			 0);
	assert_int_equal(len, 1000);
	assert_int_equal(strlen(buf), 1000);
	free(buf);
	assert_int_equal(
		sn_run_in_child(c_big, NULL, 5000, 1 << 20, &buf, &len), 0);
	assert_int_equal(len, 300000);
	free(buf);
}

/* Deferred cleanup: 400 ms, then a mark file (arg: its path). */
static void slow_cleanup(void *path)
{
	usleep(400 * 1000);
	unit_write_file(path, "cleaned", 7, 0600);
}

static int c_defer(void *arg, int fd)
{
	if (sn_child_defer(slow_cleanup, arg))
		return 9;
	return write(fd, "out", 3) == 3 ? 5 : 1;
}

/*
 * A child's deferred cleanup (NVML's shutdown in the check) runs after its
 * output and status reached the parent, which does not wait for it; the
 * cleanup still runs.  Outside a child, sn_child_defer refuses.
 */
static void test_child_defer(void **state)
{
	char path[] = "/tmp/sn-defer-XXXXXX", mark[64];
	char *buf = NULL;
	size_t len = 0;
	int64_t t0, took;
	struct stat st;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	snprintf(mark, sizeof(mark), "%s", path);
	assert_int_equal(sn_child_defer(slow_cleanup, mark), -1);
	t0 = sn_now_ms();
	assert_int_equal(sn_run_in_child(c_defer, mark, 5000, 100, &buf, &len),
			 5);
	took = sn_now_ms() - t0;
	assert_true(took < 300); /* not the 400 ms of the cleanup */
	assert_int_equal(len, 3);
	assert_string_equal(buf, "out");
	free(buf);
	assert_int_equal(stat(mark, &st), -1); /* not yet */
	for (int i = 0; i < 300 && stat(mark, &st); i++)
		usleep(10 * 1000);
	assert_int_equal(stat(mark, &st), 0); /* it ran */
	unlink(mark);
}

/* Writes, then closes its fd as fdopen + fclose do (--learn). */
static int c_fclose(void *arg, int fd)
{
	FILE *f = fdopen(fd, "w");

	if (!f || sn_child_defer(slow_cleanup, arg))
		return 9;
	fputs("manifest", f);
	return fclose(f) ? 1 : 6;
}

/* Closes its fd, then opens a file, which takes the fd's number. */
static int c_reuse(void *arg, int fd)
{
	int f;

	if (write(fd, "out", 3) != 3)
		return 1;
	close(fd);
	f = open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	return f == fd ? 7 : 8;
}

/*
 * A child that closed the fd it was given still reports its status: its
 * trailer has a descriptor of its own.  Before, --learn's fclose() left
 * the trailer unwritten, and under load a child not reaped within the
 * 20 ms grace read as killed ("--learn failed": integration.vendors); a
 * deferred cleanup makes that certain here.  Nor does the trailer land in
 * a file that took the closed fd's number.
 */
static void test_child_closes_fd(void **state)
{
	char mark[] = "/tmp/sn-runner-mark-XXXXXX";
	char *buf = NULL;
	struct stat st;
	size_t len = 0;
	int64_t t0;
	int fd = mkstemp(mark);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(mark);
	t0 = sn_now_ms();
	assert_int_equal(sn_run_in_child(c_fclose, mark, 5000, 100, &buf, &len),
			 6);
	assert_true(sn_now_ms() - t0 < 300); /* not the 400 ms cleanup */
	assert_int_equal(len, 8);
	assert_string_equal(buf, "manifest");
	free(buf);
	for (int i = 0; i < 300 && stat(mark, &st); i++)
		usleep(10 * 1000);
	unlink(mark);

	assert_int_equal(sn_run_in_child(c_reuse, mark, 5000, 100, &buf, &len),
			 7);
	assert_int_equal(len, 3);
	free(buf);
	assert_int_equal(stat(mark, &st), 0);
	assert_int_equal(st.st_size, 0); /* no trailer in the file */
	unlink(mark);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_group_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_timeout_named, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_timeout_fraction, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_total_timeout, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_died, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deaf_child_killed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_grandchild_killed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_results_max, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sigchld_ignored, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_nvml_hang, setup,
						teardown),
		cmocka_unit_test(test_child_closes_fd),
		cmocka_unit_test_setup_teardown(test_run_in_child, setup,
						teardown),
		cmocka_unit_test(test_child_defer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
