/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "util/sn_number.h"

bool sn_number_parse(const char *s, long long *out)
{
	const char *p = s;
	char *end = NULL;
	long long v;

	if (!s || !*s)
		return false;
	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE || !end || *end)
		return false;
	*out = v;
	return true;
}

uint64_t sn_fnv64(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}
