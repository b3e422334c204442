/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "sn_number.h"
#include "sn_option.h"

/* All digits after an optional '-': a number, even if it overflows. */
static int looks_numeric(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return 0;
	return strspn(s, "0123456789") == strlen(s);
}

int sn_supernode_count_parse(const char *arg, uint32_t max, uint32_t *out,
			     struct sn_error *err)
{
	long long v;

	if (!arg) {
		sn_error_set(err, "--supernode requires a value: a whole number from 1 to %u",
			     max);
		return -1;
	}
	if (!*arg) {
		sn_error_set(err, "--supernode= is empty: give a whole number from 1 to %u",
			     max);
		return -1;
	}
	if (!looks_numeric(arg)) {
		sn_error_set(err, "--supernode=%.40s is not a whole number (allowed: 1 to %u)",
			     arg, max);
		return -1;
	}
	if (!sn_number_parse(arg, &v) || v < 1 || v > (long long)max) {
		sn_error_set(err, "--supernode=%.40s is out of range (allowed: 1 to %u)",
			     arg, max);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}
