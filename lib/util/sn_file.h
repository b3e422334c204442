/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_FILE_H
#define SN_FILE_H

#include <stddef.h>
#include <sys/stat.h>

#include "util/sn_error.h"

/*
 * sn_write_all - write all len bytes of data to fd, retrying on EINTR and
 * short writes.  Returns 0, or -1 (errno set by write) on error.
 */
int sn_write_all(int fd, const void *data, size_t len);

/* sn_mkdir_p - create dir and its parents (mode for new ones); 0 or -1. */
int sn_mkdir_p(const char *dir, unsigned mode, struct sn_error *err);

#define SN_FILE_FOLLOW 1u     /* sn_file_open_regular: follow a final link */
#define SN_FILE_WHY_MAX 128   /* a failure phrase, with NUL */
#define SN_FILE_READ_TRIES 64 /* read() calls per sn_file_read_fd() */

/*
 * sn_file_kind - what a file of this st_mode is, for messages: "regular
 * file", "folder", "fifo", "socket", "character device", "block device",
 * "symbolic link", "unknown type".
 */
const char *sn_file_kind(mode_t mode);

/*
 * sn_file_open_regular - the one way lib/ opens a file it reads but does
 * not own (sysfs and procfs attributes, the config, hwloc XML, state
 * files): O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, plus O_NOFOLLOW
 * unless flags holds SN_FILE_FOLLOW, then fstat().  Anything but a regular
 * file is refused before a byte is read: a FIFO (the non-blocking open
 * does not wait for a writer), a folder, a socket, a device, and without
 * SN_FILE_FOLLOW a symbolic link as the last component, dangling or not
 * (links in the folders above are followed: sysfs is made of them).
 * @st:  receives the file's status, also for a refused file (may be NULL)
 * @why: receives, on failure, a phrase without the path: "not a regular
 *       file (fifo)", "not a regular file (symbolic link)", "cannot open:
 *       No such file or directory"; may be NULL; why_size bytes
 *
 * Returns the descriptor (the caller closes it), or -1 with errno set:
 * EINVAL for a file that is not regular, else the open()'s (ENOENT,
 * ENOTDIR, EACCES, ELOOP for a loop above the file, ...).
 */
int sn_file_open_regular(const char *path, unsigned flags, struct stat *st,
			 char *why, size_t why_size);

/*
 * sn_file_read_fd - read at most size - 1 bytes from fd into buf and
 * NUL-terminate it (a longer file is cut), in at most SN_FILE_READ_TRIES
 * read() calls, EINTR retried.  Returns the bytes read, or -1 with errno
 * set by read() (buf then holds what came before the error).
 */
long sn_file_read_fd(int fd, char *buf, size_t size);

/*
 * sn_file_read_small - the bounded reader of sysfs and procfs attributes:
 * sn_file_open_regular() (no link followed), then sn_file_read_fd() into
 * buf (size bytes, NUL-terminated, "" on failure).  Never blocks.
 * Returns the bytes read, or -1 with errno set (EINVAL: not a regular
 * file) and err set to the phrase then the path: "not a regular file
 * (fifo): /sys/bus/pci/devices/0000:1b:00.0/class", "cannot open: No such
 * file or directory: PATH", "cannot read: Input/output error: PATH".
 */
long sn_file_read_small(const char *path, char *buf, size_t size,
			struct sn_error *err);

/*
 * sn_file_load_why - a whole regular file of at most max bytes, read into
 * a malloc()ed, NUL-terminated buffer (caller frees; *len bytes).  Opened
 * with sn_file_open_regular(SN_FILE_FOLLOW): the config and the hwloc XML
 * are named by the admin, who may keep them behind a link.  Returns the
 * buffer, or NULL with why (why_size bytes) set to a phrase without the
 * path: "cannot open: ...", "not a regular file (fifo)", "N bytes, more
 * than the limit of MAX", "read failed: ...", "out of memory".
 */
char *sn_file_load_why(const char *path, size_t max, size_t *len, char *why,
		       size_t why_size);

/*
 * sn_file_load - sn_file_load_why() with err set to "PATH: why" (the
 * config's "FILE: problem" form).
 */
char *sn_file_load(const char *path, size_t max, size_t *len,
		   struct sn_error *err);

/*
 * sn_file_read - read at most max bytes of a regular file (a state file)
 * into a malloc()ed, NUL-terminated buffer (*out; caller frees), opened
 * with sn_file_open_regular() (no link followed, never blocks).  Returns
 * the length, or -1 with errno set (EINVAL: not a regular file; ENOENT;
 * ENOMEM; a read error) and *out NULL.
 */
long sn_file_read(const char *path, size_t max, char **out);

#endif
