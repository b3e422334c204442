/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_FILE_H
#define SN_FILE_H

#include <stddef.h>

#include "sn_error.h"

/*
 * sn_file_write_atomic - make path hold exactly data (len bytes), so that a
 * reader sees the old content or the new, never a part: write a temporary
 * file in the same folder (name unique per process), fsync it, rename it
 * over path, fsync the folder.  mode applies to the new file.  A kill at
 * any moment leaves at most a stray ".tmp" file, never a partial path.
 * Returns 0, or -1 with err set (nothing replaced).
 */
int sn_file_write_atomic(const char *path, const char *data, size_t len,
			 unsigned mode, struct sn_error *err);

/*
 * sn_write_all - write all len bytes of data to fd, retrying on EINTR and
 * short writes.  Returns 0, or -1 (errno set by write) on error.
 */
int sn_write_all(int fd, const void *data, size_t len);

/* sn_mkdir_p - create dir and its parents (mode for new ones); 0 or -1. */
int sn_mkdir_p(const char *dir, unsigned mode, struct sn_error *err);

/*
 * sn_file_load - a whole regular file of at most max bytes, read into a
 * malloc()ed, NUL-terminated buffer (caller frees; *len bytes).  A FIFO,
 * device or folder is refused without blocking.  Returns the buffer, or NULL
 * with err set ("PATH: cannot open: ...", "PATH: not a regular file",
 * "PATH: N bytes, more than the limit of MAX").
 */
char *sn_file_load(const char *path, size_t max, size_t *len,
		   struct sn_error *err);

/*
 * sn_file_read - read at most max bytes of a file into a malloc()ed,
 * NUL-terminated buffer (*out; caller frees).  Returns the length or -1.
 */
long sn_file_read(const char *path, size_t max, char **out);

/*
 * sn_lock_take - an exclusive flock() on path (created if needed), waiting
 * at most wait_ms.  The kernel drops it when the holder dies, so a stale
 * lock (dead PID) never blocks.  Returns the fd to keep (close to release)
 * or -1 on timeout or error.
 */
int sn_lock_take(const char *path, unsigned wait_ms);

#endif
