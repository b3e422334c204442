/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/sn_file.h"

int sn_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int sn_mkdir_p(const char *dir, unsigned mode, struct sn_error *err)
{
	char buf[PATH_MAX];
	size_t n = strlen(dir);
	struct stat st;

	if (!n || n >= sizeof(buf)) {
		sn_error_set(err, "'%s': bad folder path", dir);
		return -1;
	}
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST) {
			sn_error_set(err, "%s: %s", buf, strerror(errno));
			return -1;
		}
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST) {
		sn_error_set(err, "%s: %s", buf, strerror(errno));
		return -1;
	}
	/* EEXIST also comes for a file of that name. */
	if (stat(buf, &st)) {
		sn_error_set(err, "%s: %s", buf, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		sn_error_set(err, "%s: %s", buf, strerror(ENOTDIR));
		return -1;
	}
	return 0;
}

const char *sn_file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "regular file";
	case S_IFDIR:
		return "folder";
	case S_IFIFO:
		return "fifo";
	case S_IFSOCK:
		return "socket";
	case S_IFCHR:
		return "character device";
	case S_IFBLK:
		return "block device";
	case S_IFLNK:
		return "symbolic link";
	}
	return "unknown type";
}

static void why_set(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void why_set(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!why || !size)
		return;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

/*
 * O_NONBLOCK: opening a FIFO does not wait for a writer.  O_NOFOLLOW makes
 * a final symbolic link fail with ELOOP, and a socket fails with ENXIO:
 * when the open fails, (l)stat() says whether the file is there but not
 * regular.
 */
int sn_file_open_regular(const char *path, unsigned flags, struct stat *st,
			 char *why, size_t why_size)
{
	int oflags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	struct stat own;
	int fd, e;

	if (!st)
		st = &own;
	memset(st, 0, sizeof(*st));
	if (!(flags & SN_FILE_FOLLOW))
		oflags |= O_NOFOLLOW;
	fd = open(path, oflags);
	if (fd < 0) {
		e = errno;
		if (!((flags & SN_FILE_FOLLOW) ? stat(path, st) :
						 lstat(path, st)) &&
		    !S_ISREG(st->st_mode))
			goto refuse;
		memset(st, 0, sizeof(*st));
		why_set(why, why_size, "cannot open: %s", strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, st)) {
		e = errno;
		close(fd);
		why_set(why, why_size, "cannot open: %s", strerror(e));
		errno = e;
		return -1;
	}
	if (S_ISREG(st->st_mode))
		return fd;
	close(fd);
refuse:
	why_set(why, why_size, "not a regular file (%s)",
		sn_file_kind(st->st_mode));
	errno = EINVAL;
	return -1;
}

long sn_file_read_fd(int fd, char *buf, size_t size)
{
	size_t len = 0;

	if (!size) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < SN_FILE_READ_TRIES && len + 1 < size; i++) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			buf[len] = '\0';
			return -1;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return (long)len;
}

long sn_file_read_small(const char *path, char *buf, size_t size,
			struct sn_error *err)
{
	char why[SN_FILE_WHY_MAX];
	long n;
	int fd, e;

	if (size)
		buf[0] = '\0';
	fd = sn_file_open_regular(path, 0, NULL, why, sizeof(why));
	if (fd < 0) {
		e = errno;
		sn_error_set(err, "%s: %s", why, path);
		errno = e;
		return -1;
	}
	n = sn_file_read_fd(fd, buf, size);
	e = errno;
	close(fd);
	if (n < 0) {
		sn_error_set(err, "cannot read: %s: %s", strerror(e), path);
		errno = e;
	}
	return n;
}

char *sn_file_load_why(const char *path, size_t max, size_t *len, char *why,
		       size_t why_size)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd;

	fd = sn_file_open_regular(path, SN_FILE_FOLLOW, &st, why, why_size);
	if (fd < 0)
		return NULL;
	if ((unsigned long long)st.st_size > max) {
		why_set(why, why_size, "%lld bytes, more than the limit of %zu",
			(long long)st.st_size, max);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		why_set(why, why_size, "out of memory");
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			why_set(why, why_size, "read failed: %s",
				n ? strerror(errno) : "file shrank");
			free(buf);
			buf = NULL;
			goto out;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	*len = got;
out:
	close(fd);
	return buf;
}

char *sn_file_load(const char *path, size_t max, size_t *len,
		   struct sn_error *err)
{
	char why[SN_FILE_WHY_MAX];
	char *buf = sn_file_load_why(path, max, len, why, sizeof(why));

	if (!buf)
		sn_error_set(err, "%s: %s", path, why);
	return buf;
}

long sn_file_read(const char *path, size_t max, char **out)
{
	char *buf;
	long len;
	int fd, e;

	*out = NULL;
	fd = sn_file_open_regular(path, 0, NULL, NULL, 0);
	if (fd < 0)
		return -1;
	if (max >= (size_t)LONG_MAX || !(buf = malloc(max + 1))) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	len = sn_file_read_fd(fd, buf, max + 1);
	e = errno;
	close(fd);
	if (len < 0) {
		/* EIO, ...: an error, not an empty file. */
		free(buf);
		errno = e;
		return -1;
	}
	*out = buf;
	return len;
}
