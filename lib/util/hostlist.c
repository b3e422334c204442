/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hostlists go through Slurm's own parser.  Before handing a string to it we
 * check its shape and count its hosts, so that a malformed list fails closed
 * and never yields a partial or made-up host, and so that a list over the
 * limit is refused before Slurm allocates anything.
 *
 * What Slurm 22.05's slurm_hostlist_create() does, and what we decided
 * (field cases 1 and 2; tests/unit/test_hostlist.c asserts each):
 *
 *  - Several bracket groups form a Cartesian product: gpu-a[1-2]-b[3-4] is
 *    gpu-a1-b3 gpu-a1-b4 gpu-a2-b3 gpu-a2-b4.  With three or more groups the
 *    last group varies fastest, then the first, then the second, and so on:
 *    a[1-2]b[1-2]c[1-2] is a1b1c1 a1b1c2 a2b1c1 a2b1c2 a1b2c1 ...  We keep
 *    Slurm's order: it is the order of `scontrol show hostnames`.
 *  - Each range keeps its own zero-padding (nd[01-02,007-008]); the width of
 *    a range is its low end's (n[001-3] is n001..n003, n[1-003] is n1..n3).
 *  - Text after the last bracket group (b2u[05,02]n3, web[1-3].example.com)
 *    is refused by 22.05, as slurm.conf refuses it in NodeName.  Decision:
 *    refuse it here too, explicitly, so the answer does not change with the
 *    Slurm version.  Text between groups (rack[0-1]_blade[0-1]) is fine.
 *  - Slurm is lenient where we are not: "node[01" gives "node]", "node01]"
 *    and "x],y" give hosts with a ']' in the name, leading, trailing and
 *    doubled commas are skipped, blanks separate hosts, a number that
 *    overflows is clamped (node[99999999999999999999] is
 *    node18446744073709551615) and n[0-18446744073709551615] counts 0 hosts;
 *    a host number of 2^64 - 1 or more, in brackets or ending a plain name,
 *    wraps inside Slurm (18446744073709551615,0 gave a made-up host or a
 *    crash).  All of these are refused here.
 *  - Slurm refuses "node[]", "node[01,]", "node[,01]", "node[[01]]",
 *    "node[5-3]", "n[0x1]" and a single range of more than 65536 hosts.
 *  - Counting matters: Slurm makes one range per combination of all groups
 *    but the last, eagerly, so a[0-65535]b[0-65535]c[0-3] ran 108 s and
 *    grew to 24 GB before the kernel killed it.  We refuse any list of more
 *    than max hosts, counted on the written ranges, before calling Slurm.
 *  - Duplicates are kept (n[1-2],n1 is n1 n2 n1) and the order is as
 *    written (n[3,1,2] is n3 n1 n2); callers that care check for them.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/sn_hostlist.h"
#include "util/sn_slurm.h" /* sn_slurm_hostlist, slurm_hostlist_pop */

/*
 * Hosts are taken with slurm_hostlist_pop (util/sn_slurm.h): the last
 * host, O(1).  slurm_hostlist_shift takes the first and, each time a
 * range empties, moves all the others down one: a list of many ranges
 * (n[0,2,4,...], a[0-65535]b[3]: 65536 ranges of one host) cost
 * O(ranges^2), 0.6 s for 65536 hosts and over 1 s under ASan
 * (found by fuzz_config).
 */

/* Host counts saturate here: anything this large is over every limit. */
#define HOSTS_CAP (1ULL << 40)

static unsigned long long hosts_add(unsigned long long a, unsigned long long b)
{
	return a + b > HOSTS_CAP ? HOSTS_CAP : a + b;
}

static unsigned long long hosts_mul(unsigned long long a, unsigned long long b)
{
	if (a && b > HOSTS_CAP / a)
		return HOSTS_CAP;
	return a * b;
}

/* Decimal digits at s[*i], at least one, that fit an unsigned long long. */
static int digits_read(const char *s, size_t len, size_t *i,
		       unsigned long long *v)
{
	size_t start = *i;

	*v = 0;
	while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
		unsigned d = (unsigned)(s[*i] - '0');

		if (*v > (ULLONG_MAX - d) / 10)
			return 0;
		*v = *v * 10 + d;
		(*i)++;
	}
	return *i > start;
}

/*
 * One bracket group: "LO[-HI]" items joined by ',', no empty, reversed or
 * overflowing range.  Sets *count to the number of hosts it names.
 */
static int bracket_count(const char *s, size_t len, unsigned long long *count,
			 int *huge)
{
	size_t i = 0;

	*count = 0;
	if (len == 0)
		return 0;
	while (i < len) {
		unsigned long long lo, hi;

		if (!digits_read(s, len, &i, &lo))
			return 0;
		hi = lo;
		if (i < len && s[i] == '-') {
			i++;
			if (!digits_read(s, len, &i, &hi))
				return 0;
		}
		if (hi < lo)
			return 0;
		if (hi == ULLONG_MAX)
			*huge = 1;
		*count = hosts_add(*count, hi - lo >= HOSTS_CAP ? HOSTS_CAP :
								  hi - lo + 1);
		if (i < len) {
			if (s[i] != ',' || i + 1 >= len)
				return 0;
			i++;
		}
	}
	return 1;
}

/* Length of the item at s: up to the first ',' outside brackets. */
static size_t item_len(const char *s)
{
	int in_group = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] == '[')
			in_group = 1;
		else if (s[i] == ']')
			in_group = 0;
		else if (s[i] == ',' && !in_group)
			break;
	}
	return i;
}

/*
 * A plain name's trailing digits are its number to Slurm (node18 is node
 * number 18): one of 2^64 - 1 or more is clamped and wraps inside Slurm
 * (18446744073709551615,0 shifted a made-up "1844674407370955" and popped a
 * crash; found by fuzz_hostlist).
 */
static int plain_number_huge(const char *s, size_t len)
{
	unsigned long long v;
	size_t i = len;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == len)
		return 0;
	return !digits_read(s, len, &i, &v) || v == ULLONG_MAX;
}

/*
 * One host item ("gpu-a[1-2]-b[3-4]"): its groups multiply, and nothing may
 * follow the last group.  Sets *count to the number of hosts.
 */
static int item_count(const char *s, size_t len, unsigned long long *count,
		      int *huge)
{
	unsigned long long n = 1, group;
	int groups = 0, suffix = 0;
	size_t i = 0;

	if (len == 0)
		return 0;
	while (i < len) {
		const char *close;

		if (s[i] == ']' || s[i] == ' ' || s[i] == '\t' || s[i] == '\n')
			return 0;
		if (s[i] != '[') {
			suffix = 1;
			i++;
			continue;
		}
		close = memchr(s + i, ']', len - i);
		if (!close ||
		    memchr(s + i + 1, '[', (size_t)(close - s) - i - 1))
			return 0;
		if (!bracket_count(s + i + 1, (size_t)(close - s) - i - 1,
				   &group, huge))
			return 0;
		n = hosts_mul(n, group);
		groups++;
		suffix = 0;
		i = (size_t)(close - s) + 1;
	}
	if (groups && suffix)
		return 0;
	if (!groups && plain_number_huge(s, len))
		*huge = 1;
	*count = n;
	return 1;
}

/* The whole expression: items joined by single commas.  *hosts: the total. */
static int hostlist_shape_check(const char *expr, unsigned long long *hosts,
				int *huge)
{
	unsigned long long n;
	const char *p = expr;

	*hosts = 0;
	*huge = 0;
	for (;;) {
		size_t len = item_len(p);

		if (!item_count(p, len, &n, huge))
			return 0;
		*hosts = hosts_add(*hosts, n);
		if (!p[len])
			return 1;
		p += len + 1;
	}
}

long long sn_hostlist_count(const char *expr, struct sn_error *err)
{
	unsigned long long hosts;
	int huge;

	if (!expr || !*expr) {
		sn_error_set(err, "empty nodelist");
		return -1;
	}
	if (!hostlist_shape_check(expr, &hosts, &huge) || huge) {
		sn_error_set(err, "cannot parse nodelist '%.200s'", expr);
		return -1;
	}
	return (long long)hosts;
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
	unsigned long long hosts;
	char *host;
	int count, huge;
	size_t i;

	out->names = NULL;
	out->count = 0;
	if (!expr || !*expr) {
		sn_error_set(err, "empty nodelist");
		return -1;
	}
	if (!hostlist_shape_check(expr, &hosts, &huge)) {
		sn_error_set(err, "cannot parse nodelist '%.200s'", expr);
		return -1;
	}
	if (hosts > max) {
		sn_error_set(
			err,
			"nodelist '%.200s' has %s%llu hosts, more than the limit of %zu",
			expr, hosts >= HOSTS_CAP ? "over " : "", hosts, max);
		return -1;
	}
	if (huge) {
		sn_error_set(err, "cannot parse nodelist '%.200s'", expr);
		return -1;
	}
	if (!(hl = slurm_hostlist_create(expr))) {
		sn_error_set(err, "cannot parse nodelist '%.200s'", expr);
		goto fail;
	}
	count = slurm_hostlist_count(hl);
	if (count <= 0) {
		sn_error_set(err, "cannot parse nodelist '%.200s'", expr);
		goto fail;
	}
	if ((size_t)count > max) {
		sn_error_set(
			err,
			"nodelist '%.200s' has %d hosts, more than the limit of %zu",
			expr, count, max);
		goto fail;
	}
	out->names = calloc((size_t)count, sizeof(*out->names));
	if (!out->names) {
		sn_error_set(err, "out of memory expanding '%.200s'", expr);
		goto fail;
	}
	/* Last host first; malloc()ed strings: free() them. */
	out->count = (size_t)count; /* unfilled entries stay NULL */
	for (i = (size_t)count; i > 0 && (host = slurm_hostlist_pop(hl)); i--)
		out->names[i - 1] = host;
	if (i) {
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

/* Grow buf until the ranged string fits (slurm_hostlist_ranged_string). */
static char *ranged(sn_slurm_hostlist hl, struct sn_error *err)
{
	size_t size = 256;
	char *buf = NULL;

	for (; size <= SN_HOSTLIST_STRING_MAX; size *= 4) {
		free(buf);
		if (!(buf = malloc(size))) {
			sn_error_set(err, "out of memory");
			return NULL;
		}
		if (slurm_hostlist_ranged_string(hl, size, buf) >= 0)
			return buf;
	}
	free(buf);
	sn_error_set(err, "hostlist longer than %d bytes",
		     SN_HOSTLIST_STRING_MAX);
	return NULL;
}

char *sn_hostlist_compress(char *const *names, size_t n, struct sn_error *err)
{
	sn_slurm_hostlist hl = NULL;
	char *out = NULL;

	if (!n) {
		sn_error_set(err, "empty nodelist");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (!names[i][0] || strpbrk(names[i], "[], \t\n")) {
			sn_error_set(err, "'%.200s' is not one host name",
				     names[i]);
			return NULL;
		}
	if (!(hl = slurm_hostlist_create(names[0]))) {
		sn_error_set(err, "cannot make a hostlist of '%.200s'",
			     names[0]);
		return NULL;
	}
	for (size_t i = 1; i < n; i++)
		if (!slurm_hostlist_push_host(hl, names[i])) {
			sn_error_set(err, "cannot add '%.200s' to a hostlist",
				     names[i]);
			goto out;
		}
	slurm_hostlist_uniq(hl);
	out = ranged(hl, err);
out:
	slurm_hostlist_destroy(hl);
	return out;
}
