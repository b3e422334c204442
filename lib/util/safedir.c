/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trusted folders and files of the privileged programs (see sn_safedir.h). */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/sn_file.h"
#include "util/sn_safedir.h"

#define LOCK_POLL_MS 10

/* paths.trusted_owners, copied by sn_safedir_trust_owners(). */
static char trusted[SN_SAFEDIR_MAX_OWNERS][SN_SAFEDIR_OWNER_MAX + 1];
static size_t n_trusted;

int sn_safedir_trust_owners(const char *const *names, size_t n)
{
	if (n > SN_SAFEDIR_MAX_OWNERS)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!names[i] || strlen(names[i]) > SN_SAFEDIR_OWNER_MAX)
			return -1;
	for (size_t i = 0; i < n; i++)
		snprintf(trusted[i], sizeof(trusted[i]), "%s", names[i]);
	n_trusted = n;
	return 0;
}

/* The account name of uid into buf ("" when unknown). */
static const char *owner_name(uid_t uid, char *buf, size_t size)
{
	char pwbuf[1024];
	struct passwd pw, *res = NULL;

	buf[0] = '\0';
	if (!getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) && res)
		snprintf(buf, size, "%s", res->pw_name);
	return buf;
}

/* uid is a system account (1 to 999) named in paths.trusted_owners. */
static bool owner_named(uid_t uid)
{
	char name[SN_SAFEDIR_OWNER_MAX + 2];

	if (!n_trusted || !uid || uid >= SN_SAFEDIR_SYSTEM_UID_END ||
	    !*owner_name(uid, name, sizeof(name)))
		return false;
	for (size_t i = 0; i < n_trusted; i++)
		if (!strcmp(trusted[i], name))
			return true;
	return false;
}

/* Root, us, or (folders and files, never libraries) a named owner. */
static bool owner_ok(uid_t uid, bool lib)
{
	return uid == 0 || uid == geteuid() || (!lib && owner_named(uid));
}

/* "WHAT owned by uid N (NAME), not by root: PATH" (or "not by root or uid M"). */
static void owner_refuse(const struct stat *st, const char *what,
			 const char *path, struct sn_error *err)
{
	char name[64], shown[80] = "";

	if (*owner_name(st->st_uid, name, sizeof(name)))
		snprintf(shown, sizeof(shown), " (%s)", name);
	if (geteuid() == 0)
		sn_error_set(err, "%s owned by uid %u%s, not by root: %s", what,
			     (unsigned)st->st_uid, shown, path);
	else
		sn_error_set(err,
			     "%s owned by uid %u%s, not by root or uid %u: %s",
			     what, (unsigned)st->st_uid, shown,
			     (unsigned)geteuid(), path);
	errno = EPERM;
}

/* The owner and mode of the folder open as fd; 0 or -1 (errno, err). */
static int folder_check(int fd, const char *path, bool lib,
			struct sn_error *err)
{
	struct stat st;

	if (fstat(fd, &st)) {
		int e = errno;

		sn_error_set(err, "cannot stat the folder: %s: %s", strerror(e),
			     path);
		errno = e;
		return -1;
	}
	if (!owner_ok(st.st_uid, lib)) {
		owner_refuse(&st, "folder", path, err);
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		sn_error_set(
			err,
			"folder writable by group or others without the sticky bit: %s",
			path);
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* Why name in fd did not open as a folder (open()'s errno e). */
static void open_refuse(int fd, const char *name, const char *path, int e,
			struct sn_error *err)
{
	struct stat st;
	bool known = !fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW);

	if (known && S_ISLNK(st.st_mode)) {
		sn_error_set(err, "a symbolic link, not followed: %s", path);
		e = ELOOP;
	} else if (known && !S_ISDIR(st.st_mode)) {
		sn_error_set(err, "not a folder (%s): %s",
			     sn_file_kind(st.st_mode), path);
		e = ENOTDIR;
	} else {
		sn_error_set(err, "cannot open the folder: %s: %s", strerror(e),
			     path);
	}
	errno = e;
}

/* The folder name inside the trusted folder fd, checked; path for messages. */
static int step(int fd, const char *name, const char *path, unsigned mode,
		bool create, bool lib, struct sn_error *err)
{
	int nfd = -1, e;

	for (int tries = 0; tries < 2 && nfd < 0; tries++) {
		nfd = openat(fd, name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd >= 0)
			break;
		if (errno != ENOENT || !create || tries) {
			open_refuse(fd, name, path, errno, err);
			return -1;
		}
		if (mkdirat(fd, name, mode) && errno != EEXIST) {
			e = errno;
			sn_error_set(err, "cannot create the folder: %s: %s",
				     strerror(e), path);
			errno = e;
			return -1;
		}
	}
	if (folder_check(nfd, path, lib, err)) {
		e = errno;
		close(nfd);
		errno = e;
		return -1;
	}
	return nfd;
}

/* A single path component we may create or open: not "", ".", "..", no '/'. */
static bool name_ok(const char *name)
{
	return name && *name && strcmp(name, ".") && strcmp(name, "..") &&
	       !strchr(name, '/') && strlen(name) <= NAME_MAX;
}

static int fail_errno(int e)
{
	errno = e;
	return -1;
}

/*
 * A walk from "/" along cur, one component at a time: fd is the checked
 * folder cur[0, pos).  A symbolic link met on the way restarts it from "/"
 * along the path the link gives (normalised: the folders before the link
 * are real folders, so ".." in its target is the textual parent).
 */
struct walk {
	char cur[PATH_MAX];
	size_t pos;
	int fd;
	unsigned links;
	bool lib; /* a library's walk: owners root and us only */
};

/* "/" opened and checked into w->fd; 0 or -1 (errno, err). */
static int walk_root(struct walk *w, struct sn_error *err)
{
	w->pos = 0;
	w->fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->fd < 0) {
		int e = errno;

		sn_error_set(err, "cannot open the folder: %s: /", strerror(e));
		return fail_errno(e);
	}
	if (folder_check(w->fd, "/", w->lib, err)) {
		int e = errno;

		close(w->fd);
		w->fd = -1;
		return fail_errno(e);
	}
	return 0;
}

/* in ("/a/./b/../c") as an absolute path without "." or ".." into out. */
static int normalise(const char *in, char *out, size_t size)
{
	size_t used = 0;

	for (const char *p = in;;) {
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (!n)
			break;
		if (n == 2 && !strncmp(p, "..", 2)) {
			while (used && out[used - 1] != '/')
				used--;
			if (used)
				used--;
		} else if (!(n == 1 && *p == '.')) {
			if (used + 1 + n >= size)
				return -1;
			out[used++] = '/';
			memcpy(out + used, p, n);
			used += n;
		}
		p += n;
	}
	if (!used)
		out[used++] = '/';
	out[used] = '\0';
	return 0;
}

/*
 * A link may be followed only where no one but root (or us) can have put
 * it or can change it: in a folder of root (or us) that no group or other
 * may write, sticky or not (a user's link in /tmp is theirs).
 */
static bool link_holder_ok(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && (st.st_uid == 0 || st.st_uid == geteuid()) &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* The link cur[start, end) (start at its '/'): restart along its target. */
static int walk_link(struct walk *w, size_t start, size_t end,
		     struct sn_error *err)
{
	char name[NAME_MAX + 1], target[PATH_MAX], joined[3 * PATH_MAX];
	ssize_t n;

	snprintf(name, sizeof(name), "%.*s", (int)(end - start - 1),
		 w->cur + start + 1);
	if (!link_holder_ok(w->fd)) {
		sn_error_set(err, "a symbolic link, not followed: %.*s",
			     (int)end, w->cur);
		return fail_errno(ELOOP);
	}
	if (++w->links > SN_SAFEDIR_MAX_LINKS) {
		sn_error_set(err, "more than %d symbolic links: %.*s",
			     SN_SAFEDIR_MAX_LINKS, (int)end, w->cur);
		return fail_errno(ELOOP);
	}
	n = readlinkat(w->fd, name, target, sizeof(target) - 1);
	if (n <= 0) {
		int e = n ? errno : ENOENT;

		sn_error_set(err, "cannot read the link: %s: %.*s", strerror(e),
			     (int)end, w->cur);
		return fail_errno(e);
	}
	target[n] = '\0';
	snprintf(joined, sizeof(joined), "%.*s/%s/%s",
		 target[0] == '/' ? 0 : (int)start, w->cur, target,
		 w->cur + end);
	if (normalise(joined, w->cur, sizeof(w->cur))) {
		sn_error_set(err, "path too long behind the link: %.200s...",
			     joined);
		return fail_errno(ENAMETOOLONG);
	}
	close(w->fd);
	return walk_root(w, err);
}

/*
 * Walk w->cur (w->fd at "/").  Folders are opened (created with mode when
 * create); when file is set the last component is left for the caller, its
 * folder in w->fd and its name at w->cur + w->pos + 1.  0 or -1.
 */
static int walk(struct walk *w, unsigned mode, bool create, bool file,
		struct sn_error *err)
{
	for (;;) {
		size_t start = w->pos, end, n;
		char name[NAME_MAX + 1], held = 0;
		struct stat st;
		int nfd;

		start += strspn(w->cur + start, "/");
		n = strcspn(w->cur + start, "/");
		if (!n)
			return 0;
		end = start + n;
		start--; /* at the '/' */
		snprintf(name, sizeof(name), "%.*s", (int)n,
			 w->cur + start + 1);
		if (file && !w->cur[end + strspn(w->cur + end, "/")]) {
			w->pos = start;
			if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISLNK(st.st_mode))
				return 0;
			if (walk_link(w, start, end, err))
				return -1;
			continue;
		}
		if (!fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode)) {
			if (walk_link(w, start, end, err))
				return -1;
			continue;
		}
		held = w->cur[end];
		w->cur[end] = '\0'; /* the path so far, for messages */
		nfd = step(w->fd, name, w->cur, mode, create, w->lib, err);
		w->cur[end] = held;
		if (nfd < 0)
			return -1;
		close(w->fd);
		w->fd = nfd;
		w->pos = end;
	}
}

/* path absolute, each component a plain name; 0, or -1 with err set. */
static int path_plain(const char *path, const char *what, struct sn_error *err)
{
	const char *p = path;

	if (!path || path[0] != '/') {
		sn_error_set(err, "not an absolute %s path: %s", what,
			     path ? path : "(null)");
		return fail_errno(EINVAL);
	}
	if (strlen(path) >= PATH_MAX) {
		sn_error_set(err, "%s path too long: %.200s...", what, path);
		return fail_errno(ENAMETOOLONG);
	}
	for (;;) {
		char name[NAME_MAX + 1];
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (!n)
			return 0;
		snprintf(name, sizeof(name), "%.*s",
			 (int)(n > NAME_MAX ? NAME_MAX : n), p);
		if (n > NAME_MAX || !name_ok(name)) {
			sn_error_set(
				err,
				"not a plain folder name (\".\", \"..\" or too long): %.*s",
				(int)(p + n - path), path);
			return fail_errno(EINVAL);
		}
		p += n;
	}
}

int sn_safedir_open(const char *path, unsigned mode, bool create,
		    struct sn_error *err)
{
	struct walk w = { .fd = -1 };

	if (path_plain(path, "folder", err))
		return -1;
	normalise(path, w.cur, sizeof(w.cur)); /* "a//b/" -> "/a/b" */
	if (walk_root(&w, err))
		return -1;
	if (walk(&w, mode, create, false, err)) {
		int e = errno;

		close(w.fd);
		return fail_errno(e);
	}
	return w.fd;
}

int sn_safedir_sub(int dirfd, const char *dir, const char *name, unsigned mode,
		   bool create, struct sn_error *err)
{
	char shown[PATH_MAX];

	snprintf(shown, sizeof(shown), "%s/%s", dir, name ? name : "(null)");
	if (!name_ok(name)) {
		sn_error_set(err, "not a plain folder name: %s", shown);
		return fail_errno(EINVAL);
	}
	return step(dirfd, name, shown, mode, create, false, err);
}

/* The library or program name in the checked folder dirfd; path for messages. */
static int code_check(int dirfd, const char *name, const char *path,
		      const char *what, struct sn_error *err)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		int e = errno;

		if (e == ENOENT)
			return 0; /* dlopen() says it */
		sn_error_set(err, "cannot open: %s: %s", strerror(e), path);
		return fail_errno(e);
	}
	if (!S_ISREG(st.st_mode)) {
		sn_error_set(err, "not a regular file (%s): %s",
			     sn_file_kind(st.st_mode), path);
		return fail_errno(EINVAL);
	}
	if (!owner_ok(st.st_uid, true)) {
		owner_refuse(&st, what, path, err);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		sn_error_set(err, "%s writable by group or others: %s", what,
			     path);
		return fail_errno(EPERM);
	}
	return 0;
}

/* A file of code that root runs: library or program (its what). */
static int code_trusted(const char *path, const char *what,
			struct sn_error *err)
{
	struct walk w = { .fd = -1, .lib = true };
	int rc;

	if (path_plain(path, what, err))
		return -1;
	normalise(path, w.cur, sizeof(w.cur));
	if (walk_root(&w, err))
		return -1;
	rc = walk(&w, 0, false, true, err);
	if (rc && errno == ENOENT)
		rc = 0; /* a folder missing: dlopen() says it */
	else if (!rc && w.cur[w.pos])
		rc = code_check(w.fd, w.cur + w.pos + 1, w.cur, what, err);
	if (w.fd >= 0)
		close(w.fd);
	return rc;
}

int sn_safedir_library(const char *path, struct sn_error *err)
{
	if (path && !strchr(path, '/'))
		return 0; /* the dynamic loader's own search */
	return code_trusted(path, "library", err);
}

int sn_safedir_program(const char *path, struct sn_error *err)
{
	return code_trusted(path, "program", err);
}

/*
 * Whether dlopen(path) failed because path is not there: a path that does
 * not exist, or a bare name the loader's search did not find (glibc's
 * "NAME: cannot open shared object file: No such file or directory"; a
 * library that is there but lacks a dependency names the dependency).
 */
static bool dl_missing(const char *path, const char *why)
{
	static const char enoent[] =
		": cannot open shared object file: No such file or directory";
	size_t n = strlen(path);

	if (strchr(path, '/'))
		return access(path, F_OK) && errno == ENOENT;
	return why && !strncmp(why, path, n) && !strcmp(why + n, enoent);
}

void *sn_safedir_dlopen(const char *path, int flags, struct sn_error *err)
{
	const char *why;
	bool missing;
	void *dl;

	if (sn_safedir_library(path, err)) {
		if (errno == ENOENT)
			errno = EPERM; /* refused, not missing */
		return NULL;
	}
	dlerror();
	dl = dlopen(path, flags);
	if (!dl) {
		why = dlerror();
		sn_error_set(err, "dlopen: %s", why ? why : path);
		missing = dl_missing(path, why);
		errno = missing ? ENOENT : ELIBBAD;
	}
	return dl;
}

/* A leftover name.PID.tmp of our own PID: a regular file of ours. */
static bool our_stale_tmp(int dirfd, const char *tmp)
{
	struct stat st;

	return !fstatat(dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISREG(st.st_mode) && owner_ok(st.st_uid, false);
}

static int tmp_create(int dirfd, const char *tmp, unsigned mode)
{
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(dirfd, tmp, flags, mode);

	/* A process that had our PID was killed while writing: its file. */
	if (fd < 0 && errno == EEXIST && our_stale_tmp(dirfd, tmp) &&
	    !unlinkat(dirfd, tmp, 0))
		fd = openat(dirfd, tmp, flags, mode);
	return fd;
}

int sn_safedir_write(int dirfd, const char *dir, const char *name,
		     const void *data, size_t len, unsigned mode,
		     struct sn_error *err)
{
	char tmp[NAME_MAX + 1], shown[PATH_MAX];
	const char *what = "cannot write";
	int fd, e;

	if (!name_ok(name) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.%d.tmp", name,
			     (int)getpid()) >= sizeof(tmp)) {
		sn_error_set(err, "not a plain file name: %s/%s", dir,
			     name ? name : "(null)");
		return fail_errno(EINVAL);
	}
	snprintf(shown, sizeof(shown), "%s/%s", dir, tmp);
	fd = tmp_create(dirfd, tmp, mode);
	if (fd < 0) {
		e = errno;
		sn_error_set(err, "cannot create: %s: %s", strerror(e), shown);
		return fail_errno(e);
	}
	if (sn_write_all(fd, data, len) || fsync(fd)) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd)) { /* NFS reports a failed write here */
		e = errno;
		goto fail;
	}
	if (renameat(dirfd, tmp, dirfd, name)) {
		e = errno;
		what = "cannot rename over the file";
		snprintf(shown, sizeof(shown), "%s/%s", dir, name);
		goto fail;
	}
	fsync(dirfd);
	return 0;
fail:
	unlinkat(dirfd, tmp, 0);
	sn_error_set(err, "%s: %s: %s", what, strerror(e), shown);
	return fail_errno(e);
}

/* A file we read or lock: regular, ours, one link; 0 or -1 (errno, err). */
static int file_check(const struct stat *st, const char *path,
		      struct sn_error *err)
{
	if (S_ISLNK(st->st_mode)) {
		sn_error_set(err, "a symbolic link, not followed: %s", path);
		return fail_errno(ELOOP);
	}
	if (!S_ISREG(st->st_mode)) {
		sn_error_set(err, "not a regular file (%s): %s",
			     sn_file_kind(st->st_mode), path);
		return fail_errno(EINVAL);
	}
	if (!owner_ok(st->st_uid, false)) {
		owner_refuse(st, "file", path, err);
		return -1;
	}
	if (st->st_nlink != 1) {
		sn_error_set(err, "file with %lu links (a hard link?): %s",
			     (unsigned long)st->st_nlink, path);
		return fail_errno(EINVAL);
	}
	return 0;
}

/* Open name in dirfd with flags | O_NOFOLLOW, checked before and after. */
static int file_open(int dirfd, const char *path, const char *name, int flags,
		     struct sn_error *err)
{
	struct stat before, st;
	int fd, e;

	if (fstatat(dirfd, name, &before, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT || !(flags & O_CREAT)) {
			e = errno;
			sn_error_set(err, "cannot open: %s: %s", strerror(e),
				     path);
			return fail_errno(e);
		}
	} else if (file_check(&before, path, err)) {
		/* A FIFO or a device is refused before it is opened. */
		return -1;
	}
	fd = openat(dirfd, name,
		    flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		e = errno;
		if (e == ELOOP)
			sn_error_set(err, "a symbolic link, not followed: %s",
				     path);
		else
			sn_error_set(err, "cannot open: %s: %s", strerror(e),
				     path);
		return fail_errno(e);
	}
	if (fstat(fd, &st) || file_check(&st, path, err)) {
		e = errno;
		close(fd);
		return fail_errno(e);
	}
	return fd;
}

static char *read_whole(int fd, size_t size, const char *path,
			struct sn_error *err)
{
	char *buf = malloc(size + 1);
	size_t got = 0;

	if (!buf) {
		sn_error_set(err, "out of memory: %s", path);
		errno = ENOMEM;
		return NULL;
	}
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n ? errno : EIO;

			sn_error_set(err, "cannot read: %s: %s",
				     n ? strerror(e) : "the file shrank", path);
			free(buf);
			errno = e;
			return NULL;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	return buf;
}

char *sn_safedir_load(int dirfd, const char *dir, const char *name, size_t max,
		      size_t *len, struct sn_error *err)
{
	char path[PATH_MAX];
	struct stat st;
	char *buf = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	*len = 0;
	if (!name_ok(name)) {
		sn_error_set(err, "not a plain file name: %s", path);
		errno = EINVAL;
		return NULL;
	}
	fd = file_open(dirfd, path, name, O_RDONLY, err);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || (unsigned long long)st.st_size > max) {
		sn_error_set(err, "%lld bytes, more than the limit of %zu: %s",
			     (long long)st.st_size, max, path);
		errno = EFBIG;
	} else if ((buf = read_whole(fd, (size_t)st.st_size, path, err))) {
		*len = (size_t)st.st_size;
	}
	if (!buf) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	close(fd);
	return buf;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sn_safedir_lock(int dirfd, const char *dir, const char *name,
		    unsigned wait_ms, struct sn_error *err)
{
	/* By the clock: sleeps overrun under load and signals cut them short. */
	int64_t end = mono_ms() + wait_ms;
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!name_ok(name)) {
		sn_error_set(err, "not a plain file name: %s", path);
		return fail_errno(EINVAL);
	}
	fd = file_open(dirfd, path, name, O_RDWR | O_CREAT, err);
	if (fd < 0)
		return -1;
	for (;;) {
		struct timespec pause = { 0, LOCK_POLL_MS * 1000 * 1000 };
		int64_t left;

		if (!flock(fd, LOCK_EX | LOCK_NB))
			return fd;
		if (errno != EWOULDBLOCK)
			break;
		left = end - mono_ms();
		if (left <= 0)
			break;
		if (left < LOCK_POLL_MS)
			pause.tv_nsec = (long)left * 1000 * 1000;
		nanosleep(&pause, NULL);
	}
	close(fd);
	sn_error_set(err, "cannot take the lock within %u ms: %s", wait_ms,
		     path);
	return fail_errno(EWOULDBLOCK);
}

/*
 * The PID of a temporary name "BASE.PID.tmp" (BASE not empty, starting
 * with one of prefixes when given; PID in decimal without a leading zero,
 * 1 to INT_MAX); 0 when name is not one.
 */
static pid_t tmp_pid(const char *name, const char *const *prefixes)
{
	size_t n = strlen(name), dot, start;
	unsigned long long v = 0;

	while (prefixes && *prefixes &&
	       strncmp(name, *prefixes, strlen(*prefixes)))
		prefixes++;
	if (prefixes && !*prefixes)
		return 0;
	if (n < 7 || strcmp(name + n - 4, ".tmp"))
		return 0;
	dot = n - 4; /* name[dot] is the '.' of ".tmp" */
	for (start = dot; start > 0 && isdigit((unsigned char)name[start - 1]);)
		start--;
	/* digits name[start..dot), a '.' before them, a base before that */
	if (start == dot || dot - start > 10 || start < 2 ||
	    name[start - 1] != '.' || name[start] == '0')
		return 0;
	for (size_t i = start; i < dot; i++)
		v = v * 10 + (unsigned)(name[i] - '0');
	return v <= INT_MAX ? (pid_t)v : 0;
}

int sn_safedir_remove(int dirfd, const char *dir, const char *name,
		      struct sn_error *err)
{
	if (unlinkat(dirfd, name, 0) && errno != ENOENT) {
		sn_error_set(err, "cannot remove: %s: %s/%s", strerror(errno),
			     dir, name);
		return -1;
	}
	return 0;
}

size_t sn_safedir_sweep(int dirfd, const char *const *prefixes)
{
	size_t seen = 0, removed = 0;
	struct dirent *de;
	DIR *d;
	int fd;

	/* A descriptor of its own: readdir() must not move dirfd's offset. */
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return 0;
	}
	while (seen < SN_SAFEDIR_SWEEP_MAX && (de = readdir(d))) {
		pid_t pid = tmp_pid(de->d_name, prefixes);
		struct stat st;

		seen++;
		if (!pid || pid == getpid() || !kill(pid, 0) || errno != ESRCH)
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || !owner_ok(st.st_uid, false))
			continue;
		if (!unlinkat(dirfd, de->d_name, 0))
			removed++;
	}
	closedir(d);
	return removed;
}
