// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD for test_outputs.sh: read() of a regular file returns at
 * most 1000 bytes per call, as reads from NFS, FUSE or a file being
 * written may; a reader that calls read() once loses the rest.
 */
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHORT_READ_MAX 1000

ssize_t read(int fd, void *buf, size_t count)
{
	static ssize_t (*real)(int, void *, size_t);
	struct stat st;

	if (!real)
		real = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT,
							      "read");
	if (count > SHORT_READ_MAX && !fstat(fd, &st) && S_ISREG(st.st_mode))
		count = SHORT_READ_MAX;
	return real(fd, buf, count);
}
