/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_NUMBER_H
#define SN_NUMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* FNV-1a, 64 bits: start from SN_FNV64_BASIS (or a previous result). */
#define SN_FNV64_BASIS 1469598103934665603ull

/*
 * sn_fnv64 - hash n bytes at p into h (FNV-1a).  For the stamps of files
 * the caches are keyed by, not for anything an attacker chooses.
 */
uint64_t sn_fnv64(uint64_t h, const void *p, size_t n);

#endif
