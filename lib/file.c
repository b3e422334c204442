/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sn_file.h"

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

static void dir_sync(const char *path)
{
	char copy[PATH_MAX];
	int fd;

	snprintf(copy, sizeof(copy), "%s", path);
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int sn_file_write_atomic(const char *path, const char *data, size_t len,
			 unsigned mode, struct sn_error *err)
{
	char tmp[PATH_MAX];
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path,
			     (int)getpid()) >= sizeof(tmp)) {
		sn_error_set(err, "%s: path too long", path);
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  mode);
	if (fd < 0) {
		sn_error_set(err, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	if (sn_write_all(fd, data, len) || fsync(fd)) {
		sn_error_set(err, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	close(fd);
	if (rename(tmp, path)) {
		sn_error_set(err, "%s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	dir_sync(path);
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

/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
char *sn_file_load(const char *path, size_t max, size_t *len,
		   struct sn_error *err)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		sn_error_set(err, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		sn_error_set(err, "%s: not a regular file", path);
		goto out;
	}
	if ((unsigned long long)st.st_size > max) {
		sn_error_set(err, "%s: %lld bytes, more than the limit of %zu",
			     path, (long long)st.st_size, max);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		sn_error_set(err, "%s: out of memory", path);
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			sn_error_set(err, "%s: read failed: %s", path,
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

long sn_file_read(const char *path, size_t max, char **out)
{
	char *buf;
	size_t len = 0;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (!(buf = malloc(max + 1))) {
		close(fd);
		return -1;
	}
	while (len < max) {
		ssize_t n = read(fd, buf + len, max - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN) {
			/* EISDIR, EIO, ...: an error, not an empty file. */
			close(fd);
			free(buf);
			return -1;
		}
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return (long)len;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sn_lock_take(const char *path, unsigned wait_ms)
{
	/* By the clock: sleeps overrun under load and signals cut them short. */
	int64_t end = now_ms() + wait_ms;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	for (;;) {
		int64_t left;
		struct timespec pause = { 0, 10 * 1000 * 1000 };

		if (!flock(fd, LOCK_EX | LOCK_NB))
			return fd;
		if (errno != EWOULDBLOCK)
			break;
		left = end - now_ms();
		if (left <= 0)
			break;
		if (left < 10)
			pause.tv_nsec = (long)left * 1000 * 1000;
		nanosleep(&pause, NULL);
	}
	close(fd);
	return -1;
}
