/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by the cmocka unit tests.  Include after <cmocka.h>'s
 * prerequisites (stdarg.h, stddef.h, stdint.h, setjmp.h).
 */
#ifndef SN_UNIT_H
#define SN_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "util/sn_error.h"

/* Fail unless haystack contains needle; prints both. */
#define assert_contains(haystack, needle)                          \
	do {                                                       \
		const char *h_ = (haystack), *n_ = (needle);       \
		if (!h_ || !strstr(h_, n_))                        \
			fail_msg("\"%s\" does not contain \"%s\"", \
				 h_ ? h_ : "(null)", n_);          \
	} while (0)

/* Fail if haystack contains needle. */
#define assert_not_contains(haystack, needle)                       \
	do {                                                        \
		const char *h_ = (haystack), *n_ = (needle);        \
		if (h_ && strstr(h_, n_))                           \
			fail_msg("\"%s\" contains \"%s\"", h_, n_); \
	} while (0)

/* A fresh error whose message is visibly unset. */
static inline void err_reset(struct sn_error *err)
{
	strcpy(err->msg, "(unset)");
}

/*
 * unit_write_file - a test fixture: path holds exactly len bytes of data
 * (created or truncated with mode).  Returns 0 or -1.
 */
static inline int unit_write_file(const char *path, const char *data,
				  size_t len, unsigned mode)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f)
		return -1;
	rc = fwrite(data, 1, len, f) == len ? 0 : -1;
	if (fclose(f))
		rc = -1;
	(void)chmod(path, mode);
	return rc;
}

#endif
