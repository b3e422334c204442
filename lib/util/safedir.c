/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trusted folders and files of the privileged programs (see sn_safedir.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

static bool owner_ok(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* "WHAT owned by uid N, not by root: PATH" (or "not by root or uid M"). */
static void owner_refuse(const struct stat *st, const char *what,
			 const char *path, struct sn_error *err)
{
	if (geteuid() == 0)
		sn_error_set(err, "%s owned by uid %u, not by root: %s", what,
			     (unsigned)st->st_uid, path);
	else
		sn_error_set(err,
			     "%s owned by uid %u, not by root or uid %u: %s",
			     what, (unsigned)st->st_uid, (unsigned)geteuid(),
			     path);
	errno = EPERM;
}

/* The owner and mode of the folder open as fd; 0 or -1 (errno, err). */
static int folder_check(int fd, const char *path, struct sn_error *err)
{
	struct stat st;

	if (fstat(fd, &st)) {
		int e = errno;

		sn_error_set(err, "cannot stat the folder: %s: %s", strerror(e),
			     path);
		errno = e;
		return -1;
	}
	if (!owner_ok(st.st_uid)) {
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
		bool create, struct sn_error *err)
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
	if (folder_check(nfd, path, err)) {
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

int sn_safedir_open(const char *path, unsigned mode, bool create,
		    struct sn_error *err)
{
	char shown[PATH_MAX] = "", name[NAME_MAX + 1];
	const char *p = path;
	size_t used = 0;
	int fd, nfd;

	if (!path || path[0] != '/') {
		sn_error_set(err, "not an absolute folder path: %s",
			     path ? path : "(null)");
		return fail_errno(EINVAL);
	}
	if (strlen(path) >= sizeof(shown)) {
		sn_error_set(err, "folder path too long: %.200s...", path);
		return fail_errno(ENAMETOOLONG);
	}
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || folder_check(fd, "/", err)) {
		int e = errno;

		if (fd < 0)
			sn_error_set(err, "cannot open the folder: %s: /",
				     strerror(e));
		else
			close(fd);
		return fail_errno(e);
	}
	for (;;) {
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (!n)
			break;
		snprintf(name, sizeof(name), "%.*s",
			 (int)(n > NAME_MAX ? NAME_MAX : n), p);
		used += (size_t)snprintf(shown + used, sizeof(shown) - used,
					 "/%.*s", (int)n, p);
		p += n;
		if (n > NAME_MAX || !name_ok(name)) {
			sn_error_set(
				err,
				"not a plain folder name (\".\", \"..\" or too long): %s",
				shown);
			close(fd);
			return fail_errno(EINVAL);
		}
		nfd = step(fd, name, shown, mode, create, err);
		if (nfd < 0) {
			int e = errno;

			close(fd);
			return fail_errno(e);
		}
		close(fd);
		fd = nfd;
	}
	return fd;
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
	return step(dirfd, name, shown, mode, create, err);
}

/* A leftover name.PID.tmp of our own PID: a regular file of ours. */
static bool our_stale_tmp(int dirfd, const char *tmp)
{
	struct stat st;

	return !fstatat(dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISREG(st.st_mode) && owner_ok(st.st_uid);
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
	if (!owner_ok(st->st_uid)) {
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
		    !S_ISREG(st.st_mode) || !owner_ok(st.st_uid))
			continue;
		if (!unlinkat(dirfd, de->d_name, 0))
			removed++;
	}
	closedir(d);
	return removed;
}
