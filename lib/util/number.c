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
