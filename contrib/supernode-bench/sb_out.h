// SPDX-License-Identifier: GPL-2.0-or-later
#ifndef SB_OUT_H
#define SB_OUT_H

/*
 * sb_out.c: the files the bench writes (--json, --prom, --plot), through
 * lib/util's trusted folders (util/sn_safedir.h).  The folder of FILE is
 * opened from "/" one component at a time without following a link, and
 * must be owned by root or the caller and not writable by group or others
 * unless sticky (as /tmp); FILE itself is never followed: a link there is
 * replaced, not written through.  A relative FILE is taken from the
 * current folder.  Messages: "supernode-bench: --json FILE: why".
 */
#include <stddef.h>
#include <stdio.h>

/*
 * sb_out_write - make @path hold exactly @len bytes of @data, atomically
 * (temporary "NAME.PID.tmp", fsync, rename, folder fsync'd).  @option
 * names the flag in messages.  Returns 0, or -1 with a message printed
 * (nothing replaced, no temporary left).
 */
int sb_out_write(const char *path, const void *data, size_t len,
		 const char *option);

/*
 * sb_out_load - @path's whole content (at most @max bytes, read until the
 * end: short reads are retried) as a malloc()ed NUL-terminated string;
 * NULL with *@missing = 1 when there is no such file, NULL with a message
 * printed on any other failure (a link, another owner, over @max).
 */
char *sb_out_load(const char *path, size_t max, const char *option,
		  int *missing);

/*
 * sb_out_check - whether @path can be written as above, before a run:
 * its folder opens and a temporary "NAME.PID.tmp" can be created in it
 * (then removed; @path itself is not touched).  Returns 0, or -1 with a
 * message printed.
 */
int sb_out_check(const char *path, const char *option);

/*
 * sb_out_stream - @path opened for a stream written as it goes (the
 * soak's --json lines): created 0644, or an existing regular file of the
 * caller's with one link truncated; a link at @path is refused.  Returns
 * the stream, or NULL with a message printed.
 */
FILE *sb_out_stream(const char *path, const char *option);

/*
 * sb_out_memstream_write - write what @fill writes into a memory stream
 * to @path with sb_out_write(); "-" writes to stdout instead.  @fill
 * returns 0 or -1.  Returns 0, or -1 with a message printed.
 */
int sb_out_memstream_write(const char *path, const char *option,
			   int (*fill)(FILE *f, void *arg), void *arg);

#endif
