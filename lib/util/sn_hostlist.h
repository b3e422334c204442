/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_HOSTLIST_H
#define SN_HOSTLIST_H

#include <stddef.h>

#include "util/sn_error.h"

/*
 * A buffer for one host name (gethostname(), a node's name in a hostlist),
 * with its NUL.  Linux's HOST_NAME_MAX is 64; a Slurm NodeName may be longer.
 */
#define SN_HOST_NAME_SIZE 256

/* The largest hostlist we expand in one call (field case 2: 65536). */
#ifndef SN_HOSTLIST_MAX /* tests/fuzz builds with a smaller bound */
#define SN_HOSTLIST_MAX 65536
#endif

/*
 * struct sn_names - an expanded hostlist: count host names, in the order
 * `scontrol show hostnames` prints them.  Owns names[] and every string;
 * release with sn_names_free().
 */
struct sn_names {
	char **names;
	size_t count;
};

/*
 * sn_hostlist_expand - expand a Slurm hostlist expression ("gpu-a[001-018]",
 * "a,b[1-2]") with Slurm's own parser (slurm_hostlist_*; libslurm for
 * programs, the host process's libslurmfull for plugins).
 *
 * @expr:  the expression; NULL or "" is an error ("empty nodelist").
 * @max:   refuse expressions of more than max hosts (before expanding).
 * @out:   filled on success; zeroed on error (no partial result).
 *
 * Returns 0, or -1 with err set (unparsable, empty, over the limit, or a
 * malformed form Slurm would silently accept: unbalanced brackets, empty
 * ranges, descending ranges, numbers that overflow, stray commas or blanks;
 * text after the last bracket group is refused too).  The limit is checked
 * on the written ranges, before Slurm expands anything.  hostlist.c lists
 * what Slurm 22.05 does with each form.
 */
int sn_hostlist_expand(const char *expr, size_t max, struct sn_names *out,
		       struct sn_error *err);

/*
 * sn_hostlist_count - the number of hosts expr names, counted on its
 * written ranges by the shape check of sn_hostlist_expand() alone: Slurm
 * expands nothing, so it costs one pass over the text (about 1 ms for
 * 0.5 MB) whatever the count.  Duplicates count each time.  A count over
 * 2^40 is returned as 2^40.  Returns the count (>= 1), or -1 with err set
 * as sn_hostlist_expand() sets it ("empty nodelist", "cannot parse
 * nodelist '...'").
 */
long long sn_hostlist_count(const char *expr, struct sn_error *err);

/* sn_names_free - release what sn_hostlist_expand filled; NULL-safe. */
void sn_names_free(struct sn_names *names);

/* The longest hostlist expression sn_hostlist_compress writes, bytes. */
#define SN_HOSTLIST_STRING_MAX (1 << 20)

/*
 * sn_hostlist_compress - n host names (n >= 1, each one name: no '[', ']',
 * ',' or blank, else an error) as one
 * Slurm hostlist expression, sorted and without duplicates ("a[1-2],b3"),
 * by Slurm's own code (slurm_hostlist_uniq, _ranged_string).  Returns a
 * malloc()ed string (caller frees), or NULL with err set.
 */
char *sn_hostlist_compress(char *const *names, size_t n, struct sn_error *err);

#endif
