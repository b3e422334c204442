/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sb_prom.h: --prom FILE, the last result per supernode and operation as
 * a Prometheus textfile (families and merge rules in sb_prom.c).
 */
#ifndef SB_PROM_H
#define SB_PROM_H

#include "sb.h"

#define SB_PROM_MAX_BYTES (1u << 20) /* old file read, at most */
#define SB_PROM_LABEL_MAX 1024	     /* an old sample's supernode, escaped */

/** One result and the supernode it scores (any text; escaped on output). */
struct sb_prom_score {
	const char *supernode;
	const struct sb_result *r;
};

/*
 * sb_prom_pass - the pass of one result: no wrong element, and the busbw
 * of the largest size at least @min_busbw GB/s (0: no threshold).
 */
bool sb_prom_pass(const struct sb_result *r, double min_busbw);

/*
 * sb_prom_render - the textfile: this run's @n scores (a later score of
 * the same supernode and operation replaces an earlier one), the run's
 * end @now in seconds since the epoch, merged with @old, the file's
 * previous text (NULL: none), whose samples of other supernodes stay.
 * Returns a malloc()ed string (caller frees) or NULL (out of memory).
 */
char *sb_prom_render(const struct sb_prom_score *s, size_t n, double min_busbw,
		     long long now, const char *old);

/*
 * sb_prom_write - sb_prom_render() over @path's current content (at most
 * SB_PROM_MAX_BYTES, a link not followed), written atomically to @path.
 * Returns 0, or -1 with a message naming @path printed.
 */
int sb_prom_write(const char *path, const struct sb_prom_score *s, size_t n,
		  double min_busbw, long long now);

/*
 * sb_prom_write_results - sb_prom_write() of a run's @nres results, each
 * scoring the supernode its group names ("all": $SUPERNODE_NAMES, else
 * $SUPERNODE_NAME, else the host name; "intra": $SUPERNODE_NAME; "across"
 * left out), the run ending now.  Returns 0, or -1 (message printed).
 */
int sb_prom_write_results(const char *path, const struct sb_result *res,
			  size_t nres, double min_busbw);

#endif /* SB_PROM_H */
