/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_NUMBER_H
#define SN_NUMBER_H

#include <stdbool.h>

/*
 * sn_number_parse - strict decimal parse of a whole number.
 *
 * Accepts only [0-9]+ (an optional leading '-' for negative numbers, so that
 * "-1" can be reported as out of range rather than as garbage).  Rejects the
 * empty string, leading or trailing spaces, '+', hex/octal prefixes,
 * fractions, and values that do not fit in a long long (ERANGE).
 *
 * Returns true and stores the value in *out; false on any of the above.
 */
bool sn_number_parse(const char *s, long long *out);

#endif
