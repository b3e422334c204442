/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files (lib/file.c): atomic replacement (never a partial document, even
 * to a reader racing two writers), sn_mkdir_p, bounded sn_file_read, the
 * sysfs/procfs reader that refuses every file that is not regular, and
 * the prolog lock of field case 16 (bounded wait, a dead holder's lock is
 * free at once).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#include "util/sn_file.h"
#include "util/sn_safedir.h"
#include "util/sn_child.h"

static char dir[64];

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	umask(022);
	snprintf(dir, sizeof(dir), "/tmp/sn-file-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static void path_in(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
}

/* ---- sn_mkdir_p --------------------------------------------------------- */

static void test_mkdir_p(void **state)
{
	char path[PATH_MAX], want[PATH_MAX + 64];
	struct sn_error err;
	struct stat st;

	(void)state;
	path_in(path, "a/b/c");
	err_reset(&err);
	assert_int_equal(sn_mkdir_p(path, 0700, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	path_in(path, "a");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* Again, and with a trailing slash: fine. */
	path_in(path, "a/b/c");
	assert_int_equal(sn_mkdir_p(path, 0700, &err), 0);
	path_in(path, "a/b/c/d/");
	assert_int_equal(sn_mkdir_p(path, 0700, &err), 0);
	path_in(path, "a/b/c/d");
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_string_equal(err.msg, "(unset)");

	/* A file in the way, inside the path or at its end. */
	path_in(path, "f");
	assert_int_equal(unit_write_file(path, "x", 1, 0600), 0);
	path_in(path, "f/sub");
	assert_int_equal(sn_mkdir_p(path, 0700, &err), -1);
	snprintf(want, sizeof(want), "%s: Not a directory", path);
	assert_string_equal(err.msg, want);
	path_in(path, "f");
	err_reset(&err);
	assert_int_equal(sn_mkdir_p(path, 0700, &err), -1);
	snprintf(want, sizeof(want), "%s: Not a directory", path);
	assert_string_equal(err.msg, want);

	assert_int_equal(sn_mkdir_p("", 0700, &err), -1);
	assert_string_equal(err.msg, "'': bad folder path");
	assert_int_equal(sn_mkdir_p("/", 0700, &err), 0);
}

/* ---- sn_file_read ------------------------------------------------------- */

static void test_read_bounds(void **state)
{
	char path[PATH_MAX], text[101];
	char *out = (char *)1;

	(void)state;
	for (int i = 0; i < 100; i++)
		text[i] = (char)('0' + i % 10);
	text[100] = '\0';
	path_in(path, "f");
	assert_int_equal(unit_write_file(path, text, 100, 0600), 0);

	assert_int_equal(sn_file_read(path, 1000, &out), 100);
	assert_string_equal(out, text);
	free(out);
	assert_int_equal(sn_file_read(path, 100, &out), 100);
	assert_string_equal(out, text);
	free(out);
	assert_int_equal(sn_file_read(path, 10, &out), 10);
	assert_memory_equal(out, "0123456789", 11); /* NUL-terminated */
	free(out);
	assert_int_equal(sn_file_read(path, 0, &out), 0);
	assert_string_equal(out, "");
	free(out);

	out = (char *)1;
	path_in(path, "missing");
	assert_int_equal(sn_file_read(path, 10, &out), -1);
	assert_null(out);
	/* A folder is an error, not an empty file. */
	out = (char *)1;
	assert_int_equal(sn_file_read(dir, 10, &out), -1);
	assert_null(out);
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("blocked on a file that is not regular");
}

/* A FIFO without a writer: refused at once, not waited on (the alarm fails
 * the test if the open or the read blocks). */
static void test_read_fifo_never_blocks(void **state)
{
	char path[PATH_MAX];
	char *out = (char *)1;

	(void)state;
	path_in(path, "fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	signal(SIGALRM, on_alarm);
	alarm(5);
	errno = 0;
	assert_int_equal(sn_file_read(path, 10, &out), -1);
	assert_int_equal(errno, EINVAL);
	assert_null(out);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
}

/* Make a UNIX socket file at path (bound, then the socket closed). */
static void make_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
}

/*
 * sn_file_read_small, the sysfs/procfs reader: every kind of file that is
 * not regular is refused without blocking, with the phrase, the kind and
 * the path; a link is never followed; a regular file is read, bounded.
 */
static void test_read_small_refuses(void **state)
{
	static const struct {
		const char *name;
		const char *kind;
	} cases[] = {
		{ "fifo", "fifo" },	     { "folder", "folder" },
		{ "sock", "socket" },	     { "dangling", "symbolic link" },
		{ "link", "symbolic link" },
	};
	char path[PATH_MAX], target[PATH_MAX], want[PATH_MAX + 64], buf[8];
	struct sn_error err;
	struct stat st;
	int fd;

	(void)state;
	path_in(path, "fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	path_in(path, "folder");
	assert_int_equal(mkdir(path, 0700), 0);
	path_in(path, "sock");
	make_socket(path);
	path_in(path, "dangling");
	assert_int_equal(symlink("nowhere", path), 0);
	path_in(target, "vendor");
	assert_int_equal(unit_write_file(target, "0x10de\n", 7, 0644), 0);
	path_in(path, "link");
	assert_int_equal(symlink(target, path), 0);
	path_in(path, "null");
	assert_int_equal(symlink("/dev/null", path), 0);

	signal(SIGALRM, on_alarm);
	alarm(5);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		path_in(path, cases[i].name);
		snprintf(want, sizeof(want), "not a regular file (%s): %s",
			 cases[i].kind, path);
		err_reset(&err);
		strcpy(buf, "x");
		errno = 0;
		assert_int_equal(
			sn_file_read_small(path, buf, sizeof(buf), &err), -1);
		assert_int_equal(errno, EINVAL);
		assert_string_equal(err.msg, want);
		assert_string_equal(buf, "");
	}
	/* Following a link is the caller's choice: it still refuses a device. */
	path_in(path, "null");
	fd = sn_file_open_regular(path, SN_FILE_FOLLOW, &st, want,
				  sizeof(want));
	assert_int_equal(fd, -1);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(want, "not a regular file (character device)");
	path_in(path, "link");
	fd = sn_file_open_regular(path, SN_FILE_FOLLOW, &st, NULL, 0);
	assert_true(fd >= 0);
	assert_int_equal(st.st_size, 7);
	close(fd);
	alarm(0);
	signal(SIGALRM, SIG_DFL);

	/* missing; a regular file, whole and cut to the buffer */
	path_in(path, "missing");
	snprintf(want, sizeof(want),
		 "cannot open: No such file or directory: %s", path);
	errno = 0;
	assert_int_equal(sn_file_read_small(path, buf, sizeof(buf), &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(err.msg, want);
	assert_int_equal(sn_file_read_small(target, buf, sizeof(buf), &err), 7);
	assert_string_equal(buf, "0x10de\n");
	assert_int_equal(sn_file_read_small(target, buf, 4, &err), 3);
	assert_string_equal(buf, "0x1");
	assert_string_equal(sn_file_kind(S_IFBLK), "block device");
	assert_string_equal(sn_file_kind(S_IFREG), "regular file");
}

/* ---- the prolog's lock (field case 16) ------------------------------------ */

/*
 * What the prolog does: its state_dir through the trusted walk, then
 * sn_safedir_lock() on prolog.lock in it (wait_ms at most).
 */
static int lock_take(const char *path, unsigned wait_ms)
{
	char folder[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct sn_error err;
	int fd, lock;

	snprintf(folder, sizeof(folder), "%.*s", (int)(slash - path), path);
	fd = sn_safedir_open(folder, 0, false, &err);
	if (fd < 0)
		return -1;
	lock = sn_safedir_lock(fd, folder, slash + 1, wait_ms, &err);
	close(fd);
	return lock;
}

static void test_lock_wait_bounded(void **state)
{
	char path[PATH_MAX];
	int held, again;
	int64_t t0, took;

	(void)state;
	path_in(path, "prolog.lock");
	held = lock_take(path, 0);
	assert_true(held >= 0);

	t0 = sn_now_ms();
	assert_int_equal(lock_take(path, 300), -1);
	took = sn_now_ms() - t0;
	if (took < 300 || took > 350)
		fail_msg("second taker gave up after %lld ms, want 300..350",
			 (long long)took);
	t0 = sn_now_ms();
	assert_int_equal(lock_take(path, 0), -1);
	assert_true(sn_now_ms() - t0 < 50);

	close(held);
	t0 = sn_now_ms();
	again = lock_take(path, 300);
	assert_true(again >= 0);
	assert_true(sn_now_ms() - t0 < 50);
	close(again);
}

/* Released while a taker waits: it gets the lock then, not at its limit. */
static void test_lock_handover(void **state)
{
	char path[PATH_MAX];
	int sync[2], fd;
	char c;
	pid_t pid;
	int64_t t0, took;
	int st;

	(void)state;
	path_in(path, "prolog.lock");
	assert_int_equal(pipe(sync), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int held = lock_take(path, 0);

		if (held < 0 || write(sync[1], "h", 1) != 1)
			_exit(1);
		usleep(200 * 1000);
		_exit(0); /* the kernel drops the lock */
	}
	assert_int_equal(read(sync[0], &c, 1), 1);
	t0 = sn_now_ms();
	fd = lock_take(path, 5000);
	took = sn_now_ms() - t0;
	assert_true(fd >= 0);
	if (took < 100 || took > 1000)
		fail_msg("took the lock after %lld ms, want ~200",
			 (long long)took);
	close(fd);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(sync[0]);
	close(sync[1]);
}

/*
 * Field case 16: a lock file left by a process that is gone (its PID
 * written in it, as PID-file guards do) never blocks the next prolog.
 */
static void test_lock_stale(void **state)
{
	char path[PATH_MAX];
	int sync[2], fd, st;
	char c;
	pid_t pid;
	int64_t t0;

	(void)state;
	path_in(path, "prolog.lock");
	/* A PID file of a process that does not exist. */
	assert_int_equal(unit_write_file(path, "99999\n", 6, 0600), 0);
	fd = lock_take(path, 0);
	assert_true(fd >= 0);
	close(fd);

	/* A holder that dies holding it (no close, no unlock). */
	assert_int_equal(pipe(sync), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int held = lock_take(path, 0);
		char pidtext[32];
		int n = snprintf(pidtext, sizeof(pidtext), "%d\n",
				 (int)getpid());

		if (held < 0 || write(held, pidtext, (size_t)n) != n ||
		    write(sync[1], "h", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	assert_int_equal(read(sync[0], &c, 1), 1);
	assert_int_equal(lock_take(path, 50), -1); /* alive: held */
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	t0 = sn_now_ms();
	fd = lock_take(path, 1000);
	assert_true(fd >= 0);
	assert_true(sn_now_ms() - t0 < 50);
	close(fd);
	close(sync[0]);
	close(sync[1]);
}

static void test_lock_bad_path(void **state)
{
	char path[PATH_MAX];
	int64_t t0 = sn_now_ms();

	(void)state;
	path_in(path, "missing/prolog.lock");
	assert_int_equal(lock_take(path, 1000), -1);
	assert_true(sn_now_ms() - t0 < 50); /* no waiting on an error */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mkdir_p, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_bounds, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read_fifo_never_blocks,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_small_refuses, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lock_wait_bounded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lock_handover, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lock_stale, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lock_bad_path, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
