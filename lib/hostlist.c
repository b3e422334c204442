/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hostlists go through Slurm's own parser.  Before handing a string to it we
 * only reject the shapes field case 2 lists that some Slurm versions accept
 * leniently (a stray ']', "node[]", "node[5-3]"), so that a malformed list
 * fails closed and never yields a partial or made-up host.
 */
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "sn_hostlist.h"

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
typedef hostlist_t *sn_slurm_hostlist;	/* 23.11: hostlist_t is the struct */
#else
typedef hostlist_t sn_slurm_hostlist;	/* up to 23.02: a pointer typedef */
#endif

/* One bracket group: digits, ',' and '-' only, no empty or reversed range. */
static int bracket_body_valid(const char *s, size_t len)
{
	size_t i = 0;

	if (len == 0)
		return 0;
	while (i < len) {
		unsigned long lo, hi;
		char *end;
		size_t start = i;

		if (s[i] < '0' || s[i] > '9')
			return 0;
		lo = strtoul(s + i, &end, 10);
		i = (size_t)(end - s);
		hi = lo;
		if (i < len && s[i] == '-') {
			i++;
			if (i >= len || s[i] < '0' || s[i] > '9')
				return 0;
			hi = strtoul(s + i, &end, 10);
			i = (size_t)(end - s);
		}
		if (hi < lo || i == start)
			return 0;
		if (i < len) {
			if (s[i] != ',' || i + 1 >= len)
				return 0;
			i++;
		}
	}
	return 1;
}

static int hostlist_shape_valid(const char *expr)
{
	const char *p = expr;

	while (*p) {
		const char *close;

		if (*p == ']')
			return 0;
		if (*p == ',' && (p == expr || p[1] == ',' || p[1] == '\0'))
			return 0;
		if (*p == ' ' || *p == '\t' || *p == '\n')
			return 0;
		if (*p != '[') {
			p++;
			continue;
		}
		close = strchr(p, ']');
		if (!close || memchr(p + 1, '[', (size_t)(close - p - 1)))
			return 0;
		if (!bracket_body_valid(p + 1, (size_t)(close - p - 1)))
			return 0;
		p = close + 1;
	}
	return 1;
}

void sn_names_free(struct sn_names *names)
{
	if (!names)
		return;
	for (size_t i = 0; i < names->count; i++)
		free(names->names[i]);
	free(names->names);
	names->names = NULL;
	names->count = 0;
}

int sn_hostlist_expand(const char *expr, size_t max, struct sn_names *out,
		       struct sn_error *err)
{
	sn_slurm_hostlist hl = NULL;
	char *host;
	int count;

	out->names = NULL;
	out->count = 0;
	if (!expr || !*expr) {
		sn_error_set(err, "empty nodelist");
		return -1;
	}
	if (!hostlist_shape_valid(expr) ||
	    !(hl = slurm_hostlist_create(expr))) {
		sn_error_set(err, "cannot parse nodelist '%.200s'", expr);
		goto fail;
	}
	count = slurm_hostlist_count(hl);
	if (count <= 0) {
		sn_error_set(err, "cannot parse nodelist '%.200s'", expr);
		goto fail;
	}
	if ((size_t)count > max) {
		sn_error_set(err, "nodelist '%.200s' has %d hosts, more than the limit of %zu",
			     expr, count, max);
		goto fail;
	}
	out->names = calloc((size_t)count, sizeof(*out->names));
	if (!out->names) {
		sn_error_set(err, "out of memory expanding '%.200s'", expr);
		goto fail;
	}
	/* slurm_hostlist_shift returns malloc()ed strings: free() them. */
	while (out->count < (size_t)count && (host = slurm_hostlist_shift(hl)))
		out->names[out->count++] = host;
	if (out->count != (size_t)count) {
		sn_error_set(err, "cannot expand nodelist '%.200s'", expr);
		goto fail;
	}
	slurm_hostlist_destroy(hl);
	return 0;
fail:
	if (hl)
		slurm_hostlist_destroy(hl);
	sn_names_free(out);
	return -1;
}
