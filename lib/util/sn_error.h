/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_ERROR_H
#define SN_ERROR_H

/*
 * struct sn_error - one human-readable error message, owned by the caller.
 *
 * Every lib/ function that can fail takes a struct sn_error * (which may be
 * NULL) and fills msg with a single line that names what failed: for config
 * errors "FILE:LINE:COLUMN: KEY: problem", for option errors the option and
 * the allowed range.  The message is truncated to fit; it is never
 * allocated.
 */
struct sn_error {
	char msg[1024];
};

/* sn_error_set - format into err->msg (printf style); err may be NULL. */
void sn_error_set(struct sn_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
