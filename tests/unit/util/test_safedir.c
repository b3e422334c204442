/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/safedir.c (issue 9 items 7 and 9): the folders root writes are
 * opened without following a link, a user's folder or a writable one is
 * refused with the exact message, files are written atomically and read
 * only when they are root's regular files, and stale temporaries of dead
 * processes are swept (a live PID's are kept).  Run as root: the tests
 * chown to uid 65534 to make "another user's" folder and file.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#include "util/sn_safedir.h"

#define OTHER_UID 65534 /* nobody */

static char root[64];

static int setup(void **state)
{
	(void)state;
	umask(022);
	strcpy(root, "/tmp/sn-safedir-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

/* root/rel into buf (PATH_MAX). */
static char *at(const char *rel, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/%s", root, rel);
	return buf;
}

static void make_dir(const char *rel, unsigned mode)
{
	char p[PATH_MAX];

	assert_int_equal(mkdir(at(rel, p), 0755), 0);
	assert_int_equal(chmod(p, mode), 0);
}

static void make_file(const char *rel, const char *text)
{
	char p[PATH_MAX];
	FILE *f = fopen(at(rel, p), "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void give_away(const char *rel)
{
	char p[PATH_MAX];

	if (lchown(at(rel, p), OTHER_UID, OTHER_UID))
		fail_msg("chown %s to %d: %s (the unit tests run as root)", p,
			 OTHER_UID, strerror(errno));
}

static void expect_msg(const struct sn_error *err, const char *phrase,
		       const char *rel)
{
	char want[PATH_MAX + 128], p[PATH_MAX];

	if (geteuid() == 0 || !strstr(phrase, "not by root"))
		snprintf(want, sizeof(want), "%s: %s", phrase, at(rel, p));
	else
		snprintf(want, sizeof(want), "%s or uid %u: %s", phrase,
			 (unsigned)geteuid(), at(rel, p));
	assert_string_equal(err->msg, want);
}

static size_t entries(const char *rel)
{
	char p[PATH_MAX], cmd[PATH_MAX + 32];
	FILE *f;
	size_t n = 0;
	char line[512];

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", at(rel, p));
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n++;
	pclose(f);
	return n;
}

/* A PID that was ours a moment ago and is gone now. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	return pid;
}

static void test_open_creates(void **state)
{
	char p[PATH_MAX];
	struct sn_error err;
	struct stat st;
	int fd;

	(void)state;
	err_reset(&err);
	fd = sn_safedir_open(at("a//b/c/", p), 0750, true, &err);
	assert_true(fd >= 0);
	assert_string_equal(err.msg, "(unset)");
	assert_int_equal(stat(at("a/b/c", p), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	close(fd);
	/* present now: opened without create */
	fd = sn_safedir_open(at("a/b/c", p), 0, false, &err);
	assert_true(fd >= 0);
	close(fd);
	/* missing without create: ENOENT, nothing made */
	assert_int_equal(sn_safedir_open(at("a/x/y", p), 0755, false, &err),
			 -1);
	assert_int_equal(errno, ENOENT);
	expect_msg(&err, "cannot open the folder: No such file or directory",
		   "a/x");
	assert_int_equal(stat(at("a/x", p), &st), -1);
	/* what a path may not be */
	assert_int_equal(sn_safedir_open("relative/dir", 0755, true, &err), -1);
	assert_string_equal(err.msg,
			    "not an absolute folder path: relative/dir");
	assert_int_equal(sn_safedir_open(at("a/../a", p), 0755, true, &err),
			 -1);
	expect_msg(&err, "not a plain folder name (\".\", \"..\" or too long)",
		   "a/..");
	make_file("file", "x");
	assert_int_equal(sn_safedir_open(at("file/sub", p), 0755, true, &err),
			 -1);
	assert_int_equal(errno, ENOTDIR);
	expect_msg(&err, "not a folder (regular file)", "file");
}

/* Issue 9 item 7: a user's link as record_dir/<jobid> is not followed. */
static void test_symlink_refused(void **state)
{
	char p[PATH_MAX], t[PATH_MAX];
	struct sn_error err;
	int fd;

	(void)state;
	make_dir("records", 01777);
	make_dir("victim", 0755);
	assert_int_equal(symlink(at("victim", t), at("records/42", p)), 0);
	err_reset(&err);
	assert_int_equal(sn_safedir_open(at("records/42", p), 0755, true, &err),
			 -1);
	assert_int_equal(errno, ELOOP);
	expect_msg(&err, "a symbolic link, not followed", "records/42");
	/* one step at a time, as the epilog does */
	fd = sn_safedir_open(at("records", p), 0755, true, &err);
	assert_true(fd >= 0);
	assert_int_equal(sn_safedir_sub(fd, at("records", p), "42", 0755, true,
					&err),
			 -1);
	expect_msg(&err, "a symbolic link, not followed", "records/42");
	close(fd);
	/* a link higher up, and a dangling one, the same */
	assert_int_equal(
		sn_safedir_open(at("records/42/sub", p), 0755, true, &err), -1);
	expect_msg(&err, "a symbolic link, not followed", "records/42");
	assert_int_equal(symlink("/nonexistent/target", at("records/43", p)),
			 0);
	assert_int_equal(sn_safedir_open(at("records/43", p), 0755, true, &err),
			 -1);
	expect_msg(&err, "a symbolic link, not followed", "records/43");
	assert_int_equal(entries("victim"), 0);
	assert_int_equal(access("/nonexistent/target", F_OK), -1);
}

/* A folder another user owns, or may write without the sticky bit. */
static void test_untrusted_folders(void **state)
{
	char p[PATH_MAX];
	struct sn_error err;
	int fd;

	(void)state;
	make_dir("records", 01777);
	make_dir("records/42", 0755);
	give_away("records/42");
	err_reset(&err);
	assert_int_equal(sn_safedir_open(at("records/42", p), 0755, true, &err),
			 -1);
	assert_int_equal(errno, EPERM);
	expect_msg(&err, "folder owned by uid 65534 (nobody), not by root",
		   "records/42");
	/* group- or world-writable: only with the sticky bit */
	make_dir("shared", 0777);
	assert_int_equal(sn_safedir_open(at("shared/42", p), 0755, true, &err),
			 -1);
	expect_msg(&err,
		   "folder writable by group or others without the sticky bit",
		   "shared");
	assert_int_equal(entries("shared"), 0);
	make_dir("group", 0775);
	assert_int_equal(sn_safedir_open(at("group", p), 0755, true, &err), -1);
	expect_msg(&err,
		   "folder writable by group or others without the sticky bit",
		   "group");
	assert_int_equal(chmod(at("shared", p), 01777), 0);
	fd = sn_safedir_open(at("shared/42", p), 0755, true, &err);
	assert_true(fd >= 0);
	close(fd);
}

/*
 * Issue 17 item 7: a link that only root can have made (its folder root's,
 * writable by no group or other) is followed, relative ones with ".."
 * too; the walk starts again along its target and checks every component.
 */
static void test_root_link_followed(void **state)
{
	char p[PATH_MAX], t[PATH_MAX];
	struct sn_error err;
	int fd;

	(void)state;
	make_dir("local", 0755);
	make_dir("local/spool", 0755);
	make_dir("var", 0755);
	assert_int_equal(symlink("../local/spool", at("var/spool", p)), 0);
	err_reset(&err);
	fd = sn_safedir_open(at("var/spool/supernode", p), 0700, true, &err);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(access(at("local/spool/supernode", t), F_OK), 0);
	/* behind it, a folder of a user is refused under its real path */
	make_dir("local/spool/user", 0755);
	give_away("local/spool/user");
	assert_int_equal(sn_safedir_open(at("var/spool/user/x", p), 0700, true,
					 &err),
			 -1);
	expect_msg(&err, "folder owned by uid 65534 (nobody), not by root",
		   "local/spool/user");
	/* a loop ends */
	assert_int_equal(symlink("loop", at("var/loop", p)), 0);
	assert_int_equal(sn_safedir_open(at("var/loop", p), 0700, true, &err),
			 -1);
	assert_int_equal(errno, ELOOP);
	expect_msg(&err, "more than 40 symbolic links", "var/loop");
	/* root's link in a sticky folder: a user could have put it first */
	make_dir("sticky", 01777);
	assert_int_equal(symlink(at("local/spool", t), at("sticky/spool", p)),
			 0);
	assert_int_equal(
		sn_safedir_open(at("sticky/spool", p), 0700, true, &err), -1);
	expect_msg(&err, "a symbolic link, not followed", "sticky/spool");
}

/*
 * Issue 17 item 7: a system account named in paths.trusted_owners owns a
 * folder root may write into (Debian's prometheus); nobody never does.
 */
static void test_trusted_owner(void **state)
{
	static const char *const daemon_only[] = { "daemon" };
	static const char *const with_nobody[] = { "daemon", "nobody" };
	char p[PATH_MAX];
	struct sn_error err;
	int fd;

	(void)state;
	make_dir("svc", 0755);
	assert_int_equal(lchown(at("svc", p), 1, 1), 0); /* daemon */
	make_dir("user", 0755);
	give_away("user");
	err_reset(&err);
	assert_int_equal(sn_safedir_open(at("svc/d", p), 0755, true, &err), -1);
	expect_msg(&err, "folder owned by uid 1 (daemon), not by root", "svc");
	assert_int_equal(sn_safedir_trust_owners(daemon_only, 1), 0);
	fd = sn_safedir_open(at("svc/d", p), 0755, true, &err);
	assert_true(fd >= 0);
	close(fd);
	/* a link in the named account's folder is still not followed */
	assert_int_equal(symlink("d", at("svc/l", p)), 0);
	assert_int_equal(sn_safedir_open(at("svc/l", p), 0755, true, &err), -1);
	expect_msg(&err, "a symbolic link, not followed", "svc/l");
	/* nobody (uid 65534) is no system account: named or not, refused */
	assert_int_equal(sn_safedir_trust_owners(with_nobody, 2), 0);
	assert_int_equal(sn_safedir_open(at("user/d", p), 0755, true, &err),
			 -1);
	expect_msg(&err, "folder owned by uid 65534 (nobody), not by root",
		   "user");
	/* a library is never a named account's, nor is its folder */
	make_file("daemon.so", "x");
	assert_int_equal(lchown(at("daemon.so", p), 1, 1), 0);
	assert_int_equal(sn_safedir_library(p, &err), -1);
	expect_msg(&err, "library owned by uid 1 (daemon), not by root",
		   "daemon.so");
	make_file("svc/lib.so", "x");
	assert_int_equal(sn_safedir_library(at("svc/lib.so", p), &err), -1);
	expect_msg(&err, "folder owned by uid 1 (daemon), not by root", "svc");
	assert_int_equal(sn_safedir_trust_owners(NULL, 0), 0);
}

/* Issue 17 item 6: what a library must be before root loads it. */
static void test_library(void **state)
{
	char p[PATH_MAX], t[PATH_MAX];
	struct sn_error err;

	(void)state;
	err_reset(&err);
	assert_int_equal(sn_safedir_library("libnvidia-ml.so.1", &err), 0);
	make_dir("lib", 0755);
	make_file("lib/ok.so", "x");
	assert_int_equal(sn_safedir_library(at("lib/ok.so", p), &err), 0);
	assert_int_equal(symlink("ok.so", at("lib/ok.so.1", p)), 0);
	assert_int_equal(sn_safedir_library(p, &err), 0);
	assert_int_equal(sn_safedir_library(at("lib/missing.so", p), &err), 0);
	assert_int_equal(sn_safedir_library(at("none/x.so", p), &err), 0);
	make_file("lib/nobody.so", "x");
	give_away("lib/nobody.so");
	assert_int_equal(sn_safedir_library(at("lib/nobody.so", p), &err), -1);
	expect_msg(&err, "library owned by uid 65534 (nobody), not by root",
		   "lib/nobody.so");
	make_file("lib/gw.so", "x");
	assert_int_equal(chmod(at("lib/gw.so", p), 0664), 0);
	assert_int_equal(sn_safedir_library(p, &err), -1);
	expect_msg(&err, "library writable by group or others", "lib/gw.so");
	/* through root's link to it, the file's own path is named */
	assert_int_equal(symlink("gw.so", at("lib/gw.so.1", t)), 0);
	assert_int_equal(sn_safedir_library(t, &err), -1);
	expect_msg(&err, "library writable by group or others", "lib/gw.so");
	assert_int_equal(mkfifo(at("lib/fifo.so", p), 0600), 0);
	assert_int_equal(sn_safedir_library(p, &err), -1);
	expect_msg(&err, "not a regular file (fifo)", "lib/fifo.so");
	assert_null(sn_safedir_dlopen(at("lib/nobody.so", p), RTLD_NOW, &err));
	expect_msg(&err, "library owned by uid 65534 (nobody), not by root",
		   "lib/nobody.so");
	assert_int_equal(sn_safedir_program(at("lib/gw.so", p), &err), -1);
	expect_msg(&err, "program writable by group or others", "lib/gw.so");
}

static char *slurp(const char *rel)
{
	char p[PATH_MAX], *buf = calloc(1, 4096);
	FILE *f = fopen(at(rel, p), "r");

	assert_non_null(buf);
	assert_non_null(f);
	assert_true(fread(buf, 1, 4095, f) < 4095);
	fclose(f);
	return buf;
}

static void test_write(void **state)
{
	char p[PATH_MAX], t[PATH_MAX], tmp[64];
	struct sn_error err;
	struct stat st;
	char *text;
	int fd;

	(void)state;
	make_dir("d", 0755);
	fd = sn_safedir_open(at("d", p), 0755, false, &err);
	assert_true(fd >= 0);
	err_reset(&err);
	assert_int_equal(sn_safedir_write(fd, at("d", p), "r.json",
					  "{\"a\": 1}", 8, 0644, &err),
			 0);
	assert_string_equal(err.msg, "(unset)");
	text = slurp("d/r.json");
	assert_string_equal(text, "{\"a\": 1}");
	free(text);
	assert_int_equal(stat(at("d/r.json", p), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(entries("d"), 1); /* no temporary left */
	/* a stale temporary of a dead process that had our PID: replaced */
	snprintf(tmp, sizeof(tmp), "d/r.json.%d.tmp", (int)getpid());
	make_file(tmp, "old junk");
	assert_int_equal(sn_safedir_write(fd, at("d", p), "r.json", "2", 1,
					  0644, &err),
			 0);
	text = slurp("d/r.json");
	assert_string_equal(text, "2");
	free(text);
	assert_int_equal(entries("d"), 1);
	/* a link planted as the temporary: not followed, nothing written */
	make_file("outside", "keep");
	assert_int_equal(symlink(at("outside", t), at(tmp, p)), 0);
	assert_int_equal(sn_safedir_write(fd, at("d", p), "r.json", "3", 1,
					  0644, &err),
			 -1);
	snprintf(t, sizeof(t), "cannot create: File exists: %s/%s", root, tmp);
	assert_string_equal(err.msg, t);
	text = slurp("outside");
	assert_string_equal(text, "keep");
	free(text);
	assert_int_equal(unlink(at(tmp, p)), 0);
	/* a link planted as the file itself is replaced, its target untouched */
	assert_int_equal(unlink(at("d/r.json", p)), 0);
	assert_int_equal(symlink(at("outside", t), at("d/r.json", p)), 0);
	assert_int_equal(sn_safedir_write(fd, at("d", p), "r.json", "4", 1,
					  0644, &err),
			 0);
	assert_int_equal(lstat(at("d/r.json", p), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	text = slurp("outside");
	assert_string_equal(text, "keep");
	free(text);
	/* names that are not plain file names */
	assert_int_equal(sn_safedir_write(fd, at("d", p), "../x", "5", 1, 0644,
					  &err),
			 -1);
	snprintf(t, sizeof(t), "not a plain file name: %s/d/../x", root);
	assert_string_equal(err.msg, t);
	close(fd);
}

static void test_load(void **state)
{
	char p[PATH_MAX], want[PATH_MAX + 64];
	struct sn_error err;
	size_t len = 99;
	char *buf;
	int fd;

	(void)state;
	make_dir("d", 0755);
	fd = sn_safedir_open(at("d", p), 0, false, &err);
	assert_true(fd >= 0);
	make_file("d/ok", "12345");
	buf = sn_safedir_load(fd, at("d", p), "ok", 5, &len, &err);
	assert_non_null(buf);
	assert_string_equal(buf, "12345");
	assert_int_equal(len, 5);
	free(buf);
	/* over the limit */
	assert_null(sn_safedir_load(fd, at("d", p), "ok", 4, &len, &err));
	assert_int_equal(errno, EFBIG);
	expect_msg(&err, "5 bytes, more than the limit of 4", "d/ok");
	/* missing */
	assert_null(sn_safedir_load(fd, at("d", p), "none", 4, &len, &err));
	assert_int_equal(errno, ENOENT);
	expect_msg(&err, "cannot open: No such file or directory", "d/none");
	/* a FIFO: refused before it is opened, so never blocks */
	assert_int_equal(mkfifo(at("d/fifo", p), 0600), 0);
	alarm(10); /* the old reader would hang here: fail rather than hang */
	assert_null(sn_safedir_load(fd, at("d", p), "fifo", 100, &len, &err));
	alarm(0);
	assert_int_equal(errno, EINVAL);
	expect_msg(&err, "not a regular file (fifo)", "d/fifo");
	/* a folder, a link, a hard link, another user's file */
	make_dir("d/sub", 0755);
	assert_null(sn_safedir_load(fd, at("d", p), "sub", 100, &len, &err));
	expect_msg(&err, "not a regular file (folder)", "d/sub");
	assert_int_equal(symlink(at("d/ok", want), at("d/link", p)), 0);
	assert_null(sn_safedir_load(fd, at("d", p), "link", 100, &len, &err));
	assert_int_equal(errno, ELOOP);
	expect_msg(&err, "a symbolic link, not followed", "d/link");
	assert_int_equal(link(at("d/ok", want), at("d/hard", p)), 0);
	assert_null(sn_safedir_load(fd, at("d", p), "hard", 100, &len, &err));
	expect_msg(&err, "file with 2 links (a hard link?)", "d/hard");
	assert_int_equal(unlink(at("d/hard", p)), 0);
	give_away("d/ok");
	assert_null(sn_safedir_load(fd, at("d", p), "ok", 100, &len, &err));
	assert_int_equal(errno, EPERM);
	expect_msg(&err, "file owned by uid 65534 (nobody), not by root",
		   "d/ok");
	close(fd);
}

static void test_lock(void **state)
{
	char p[PATH_MAX];
	struct sn_error err;
	int fd, held, other;

	(void)state;
	make_dir("d", 0755);
	fd = sn_safedir_open(at("d", p), 0, false, &err);
	held = sn_safedir_lock(fd, at("d", p), "x.lock", 0, &err);
	assert_true(held >= 0);
	/* flock() locks belong to the open file: a second open waits */
	other = sn_safedir_lock(fd, at("d", p), "x.lock", 50, &err);
	assert_int_equal(other, -1);
	expect_msg(&err, "cannot take the lock within 50 ms", "d/x.lock");
	close(held);
	other = sn_safedir_lock(fd, at("d", p), "x.lock", 0, &err);
	assert_true(other >= 0);
	close(other);
	/* a FIFO or another user's file as the lock: refused */
	assert_int_equal(mkfifo(at("d/f.lock", p), 0600), 0);
	assert_int_equal(sn_safedir_lock(fd, at("d", p), "f.lock", 0, &err),
			 -1);
	expect_msg(&err, "not a regular file (fifo)", "d/f.lock");
	give_away("d/x.lock");
	assert_int_equal(sn_safedir_lock(fd, at("d", p), "x.lock", 0, &err),
			 -1);
	expect_msg(&err, "file owned by uid 65534 (nobody), not by root",
		   "d/x.lock");
	close(fd);
}

static void tmp_name(char *buf, size_t size, const char *base, long pid)
{
	snprintf(buf, size, "d/%s.%ld.tmp", base, pid);
}

/* Issue 9 item 9: temporaries of dead processes go, a live PID's stay. */
static void test_sweep(void **state)
{
	static const char *const only_a[] = { "a.json.", NULL };
	char p[PATH_MAX], t[PATH_MAX], n[64];
	pid_t dead = dead_pid();
	struct sn_error err;
	int fd;

	(void)state;
	make_dir("d", 0755);
	tmp_name(n, sizeof(n), "a.json", dead); /* removed */
	make_file(n, "x");
	tmp_name(n, sizeof(n), "a.json", getpid()); /* ours: live */
	make_file(n, "x");
	tmp_name(n, sizeof(n), "a.json", getppid()); /* live */
	make_file(n, "x");
	tmp_name(n, sizeof(n), "b.json", dead); /* another prefix */
	make_file(n, "x");
	make_file("d/a.json.0.tmp", "x");	    /* no such PID */
	make_file("d/a.json.99999999999.tmp", "x"); /* not a PID */
	snprintf(n, sizeof(n), "d/a.json.%ld.tmp.bak", (long)dead);
	make_file(n, "x"); /* not the pattern */
	snprintf(n, sizeof(n), "d/.%ld.tmp", (long)dead);
	make_file(n, "x"); /* no base */
	fd = sn_safedir_open(at("d", p), 0, false, &err);
	assert_true(fd >= 0);
	assert_int_equal(sn_safedir_sweep(fd, only_a), 1);
	tmp_name(n, sizeof(n), "a.json", dead);
	assert_int_equal(access(at(n, p), F_OK), -1);
	assert_int_equal(entries("d"), 7);
	/* without prefixes: b's goes too; a link or a user's file never */
	tmp_name(n, sizeof(n), "c.prom", dead);
	make_file(n, "x");
	give_away(n);
	tmp_name(n, sizeof(n), "l.json", dead);
	assert_int_equal(symlink(at("d/a.json.0.tmp", t), at(n, p)), 0);
	assert_int_equal(sn_safedir_sweep(fd, NULL), 1);
	tmp_name(n, sizeof(n), "b.json", dead);
	assert_int_equal(access(at(n, p), F_OK), -1);
	assert_int_equal(entries("d"), 8);
	close(fd);
}

/* At most SN_SAFEDIR_SWEEP_MAX entries (".", ".." count) per call. */
static void test_sweep_bounded(void **state)
{
	char p[PATH_MAX], n[64];
	pid_t dead = dead_pid();
	size_t first, second;
	struct sn_error err;
	int fd;

	(void)state;
	make_dir("d", 0755);
	for (int i = 0; i < SN_SAFEDIR_SWEEP_MAX + 50; i++) {
		snprintf(n, sizeof(n), "d/f%03d.json.%ld.tmp", i, (long)dead);
		make_file(n, "");
	}
	fd = sn_safedir_open(at("d", p), 0, false, &err);
	first = sn_safedir_sweep(fd, NULL);
	assert_true(first >= SN_SAFEDIR_SWEEP_MAX - 2 &&
		    first <= SN_SAFEDIR_SWEEP_MAX);
	second = sn_safedir_sweep(fd, NULL);
	assert_int_equal(first + second, SN_SAFEDIR_SWEEP_MAX + 50);
	assert_int_equal(entries("d"), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_creates, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_symlink_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_root_link_followed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_trusted_owner, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_library, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untrusted_folders, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_bounded, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
