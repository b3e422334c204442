// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_out.c: the bench's output files through lib/util's trusted folders
 * (sb_out.h).  Before, --json and --plot used fopen(path, "w"), which
 * writes through a link at path (a bench run as root could be made to
 * overwrite any file), and --prom read the old file with one read() (a
 * short read dropped samples) and leaked a descriptor when fsync failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sb.h"
#include "sb_out.h"
#include "util/sn_file.h"
#include "util/sn_safedir.h"

/* @path's folder as an absolute path into @dir, its last name into @base. */
static int split(const char *path, char *dir, size_t dsize, char *base,
		 size_t bsize)
{
	const char *slash = strrchr(path, '/');
	char cwd[PATH_MAX];
	int n;

	if (!*path || (slash && !slash[1]))
		return -1;
	if (snprintf(base, bsize, "%s", slash ? slash + 1 : path) >= (int)bsize)
		return -1;
	if (!strcmp(base, ".") || !strcmp(base, ".."))
		return -1;
	if (slash == path)
		return snprintf(dir, dsize, "/") >= (int)dsize ? -1 : 0;
	if (path[0] == '/')
		n = snprintf(dir, dsize, "%.*s", (int)(slash - path), path);
	else if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	else if (slash)
		n = snprintf(dir, dsize, "%s/%.*s", strcmp(cwd, "/") ? cwd : "",
			     (int)(slash - path), path);
	else
		n = snprintf(dir, dsize, "%s", cwd);
	return n < 0 || n >= (int)dsize ? -1 : 0;
}

/* The trusted folder of @path; -1 with a message. */
static int dir_open(const char *path, const char *option, char *dir,
		    size_t dsize, char *base, size_t bsize)
{
	struct sn_error err;
	int fd;

	if (split(path, dir, dsize, base, bsize)) {
		fprintf(stderr, SB_PREFIX "%s %s: not a file name\n", option,
			path);
		return -1;
	}
	fd = sn_safedir_open(dir, 0755, false, &err);
	if (fd < 0)
		fprintf(stderr, SB_PREFIX "%s %s: %s\n", option, path, err.msg);
	return fd;
}

int sb_out_write(const char *path, const void *data, size_t len,
		 const char *option)
{
	char dir[PATH_MAX], base[NAME_MAX + 1];
	struct sn_error err;
	int fd, rc;

	fd = dir_open(path, option, dir, sizeof(dir), base, sizeof(base));
	if (fd < 0)
		return -1;
	rc = sn_safedir_write(fd, dir, base, data, len, 0644, &err);
	if (rc)
		fprintf(stderr, SB_PREFIX "%s %s: %s\n", option, path, err.msg);
	close(fd);
	return rc;
}

char *sb_out_load(const char *path, size_t max, const char *option,
		  int *missing)
{
	char dir[PATH_MAX], base[NAME_MAX + 1], *text;
	struct sn_error err;
	size_t len = 0;
	int fd;

	*missing = 0;
	fd = dir_open(path, option, dir, sizeof(dir), base, sizeof(base));
	if (fd < 0)
		return NULL;
	text = sn_safedir_load(fd, dir, base, max, &len, &err);
	if (!text && errno == ENOENT)
		*missing = 1;
	else if (!text)
		fprintf(stderr, SB_PREFIX "%s %s: %s\n", option, path, err.msg);
	close(fd);
	return text;
}

int sb_out_check(const char *path, const char *option)
{
	char dir[PATH_MAX], base[NAME_MAX + 1], probe[NAME_MAX + 32];
	struct stat st;
	int fd, pfd;

	if (!path || !strcmp(path, "-"))
		return 0;
	fd = dir_open(path, option, dir, sizeof(dir), base, sizeof(base));
	if (fd < 0)
		return -1;
	/* A link there is replaced; anything else but a file is refused. */
	if (!fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) &&
	    !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		fprintf(stderr,
			SB_PREFIX
			"%s %s: cannot write: not a regular file (%s)\n",
			option, path, sn_file_kind(st.st_mode));
		close(fd);
		return -1;
	}
	/* The temporary sn_safedir_write() will use, created and removed. */
	snprintf(probe, sizeof(probe), "%s.%ld.tmp", base, (long)getpid());
	pfd = openat(fd, probe,
		     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     0600);
	if (pfd < 0) {
		fprintf(stderr, SB_PREFIX "%s %s: cannot write: %s\n", option,
			path, strerror(errno));
		close(fd);
		return -1;
	}
	close(pfd);
	unlinkat(fd, probe, 0);
	close(fd);
	return 0;
}

FILE *sb_out_stream(const char *path, const char *option)
{
	char dir[PATH_MAX], base[NAME_MAX + 1];
	const char *why = NULL;
	struct stat st;
	FILE *f = NULL;
	int dfd, fd;

	dfd = dir_open(path, option, dir, sizeof(dir), base, sizeof(base));
	if (dfd < 0)
		return NULL;
	fd = openat(dfd, base,
		    O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			    O_NOCTTY,
		    0644);
	close(dfd);
	if (fd < 0)
		why = errno == ELOOP ? "a symbolic link, not followed" :
				       strerror(errno);
	else if (fstat(fd, &st))
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
		why = "not a regular file with one link";
	else if (st.st_uid != geteuid())
		why = "a file of another user";
	else if (ftruncate(fd, 0) || !(f = fdopen(fd, "w")))
		why = strerror(errno);
	if (why) {
		fprintf(stderr, SB_PREFIX "%s %s: %s\n", option, path, why);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	return f;
}

int sb_out_memstream_write(const char *path, const char *option,
			   int (*fill)(FILE *f, void *arg), void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!strcmp(path, "-"))
		return fill(stdout, arg) || fflush(stdout) ? -1 : 0;
	f = open_memstream(&text, &len);
	if (!f) {
		fprintf(stderr, SB_PREFIX "%s %s: out of memory\n", option,
			path);
		return -1;
	}
	rc = fill(f, arg);
	if (fclose(f) || rc) {
		fprintf(stderr, SB_PREFIX "%s %s: cannot render\n", option,
			path);
		free(text);
		return -1;
	}
	rc = sb_out_write(path, text, len, option);
	free(text);
	return rc;
}
