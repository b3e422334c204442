/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_FUZZ_H
#define SN_FUZZ_H

/*
 * Shared by the fuzz targets (header only: tests/fuzz/CMakeLists.txt makes
 * a program of every fuzz_*.c).
 *
 *  - fz_scratch(): a private folder on tmpfs for targets whose parser reads
 *    a file: $SN_FUZZ_TMPDIR (tests/fuzz/run makes one and removes it, also
 *    after a crash) or /dev/shm, as sn-fuzz-XXXXXX; removed at exit.
 *  - fz_write(): make a file hold exactly the given bytes.
 *  - fz_split(): an input cut at NUL bytes into at most max C strings
 *    (copies; the last part runs to the end of the input).
 *  - FZ_ASSERT(): a property that must hold; a failure is a crash.
 */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sanitizer/common_interface_defs.h>

/* Said through the sanitizer's report (libFuzzer may have closed stderr). */
#define FZ_STR2(x) #x
#define FZ_STR(x) FZ_STR2(x)
#define FZ_ASSERT(cond)                                           \
	do {                                                      \
		if (!(cond)) {                                    \
			__sanitizer_report_error_summary(         \
				"property failed at " __FILE__    \
				":" FZ_STR(__LINE__) ": " #cond); \
			abort();                                  \
		}                                                 \
	} while (0)

static char fz_dir[PATH_MAX];

static int fz_rm_one(const char *path, const struct stat *sb, int flag,
		     struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void fz_cleanup(void)
{
	if (fz_dir[0])
		nftw(fz_dir, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	fz_dir[0] = '\0';
}

/* The scratch folder (made on first use); exits if it cannot be made. */
static inline const char *fz_scratch(void)
{
	const char *base = getenv("SN_FUZZ_TMPDIR");

	if (fz_dir[0])
		return fz_dir;
	snprintf(fz_dir, sizeof(fz_dir), "%s/sn-fuzz-XXXXXX",
		 base && *base ? base : "/dev/shm");
	if (!mkdtemp(fz_dir)) {
		perror(fz_dir);
		exit(2);
	}
	atexit(fz_cleanup);
	return fz_dir;
}

/* path (under the scratch folder) into buf; exits if it does not fit. */
static inline const char *fz_path(char *buf, size_t size, const char *rel)
{
	if ((size_t)snprintf(buf, size, "%s/%s", fz_scratch(), rel) >= size)
		exit(2);
	return buf;
}

/* Make path hold exactly data[0..len); exits on a write error. */
static inline void fz_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	const char *p = data;

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0) {
			perror(path);
			exit(2);
		}
		p += n;
		len -= (size_t)n;
	}
	close(fd);
}

/*
 * Cut data at NUL bytes into at most max parts (the last keeps the rest,
 * NULs included but unseen).  Returns a malloc()ed copy (free it) that
 * parts[] point into; *n gets the number of parts (>= 1).
 */
static inline char *fz_split(const unsigned char *data, size_t size,
			     char **parts, size_t max, size_t *n)
{
	char *copy = malloc(size + 1);
	size_t i = 0;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	*n = 0;
	parts[(*n)++] = copy;
	for (i = 0; i < size && *n < max; i++)
		if (!copy[i])
			parts[(*n)++] = copy + i + 1;
	return copy;
}

/* The input as one C string (a malloc()ed copy; free it). */
static inline char *fz_string(const unsigned char *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
