/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_STRBUF_H
#define SN_STRBUF_H

/*
 * struct sn_strbuf - the one growable string of lib/ and the adapters:
 * text of unbounded length (messages, node lists, reasons, rendered files)
 * is built here, never in a fixed array.
 *
 * Growth is bounded: a string never holds more than max bytes (without the
 * NUL; SN_STRBUF_MAX when max is 0).  The first failure (out of memory, or
 * the cap reached) is sticky: the buffer is freed, every later append does
 * nothing and returns -1, and sn_strbuf_take() returns NULL with errno
 * ENOMEM or E2BIG.  A caller may thus append a whole document and check
 * once at the end.  Zero-initialised ({ 0 } or SN_STRBUF_INIT) is an empty
 * string with the default cap.  Not thread-safe; the caller owns it and
 * releases it with sn_strbuf_free() or sn_strbuf_take().
 */
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>

#define SN_STRBUF_MAX (64u << 20) /* default cap: 64 MiB of text */
#define SN_STRBUF_FIRST 256	  /* first allocation, bytes */

struct sn_strbuf {
	char *buf;  /* NUL-terminated text, or NULL while empty */
	size_t len; /* bytes of text, without the NUL */
	size_t cap; /* bytes allocated */
	size_t max; /* most bytes of text; 0: SN_STRBUF_MAX */
	int error;  /* 0, or the sticky ENOMEM / E2BIG */
};

#define SN_STRBUF_INIT \
	{              \
		0      \
	}

/* sn_strbuf_init - an empty string of at most max bytes (0: the default). */
void sn_strbuf_init(struct sn_strbuf *sb, size_t max);

/*
 * sn_strbuf_append - append the NUL-terminated s; sn_strbuf_appendn - the
 * first n bytes of s (which need no NUL); sn_strbuf_appendf - printf style.
 * Returns 0, or -1 (nothing appended, the string failed: see above).
 */
int sn_strbuf_append(struct sn_strbuf *sb, const char *s);
int sn_strbuf_appendn(struct sn_strbuf *sb, const char *s, size_t n);
int sn_strbuf_appendf(struct sn_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int sn_strbuf_vappendf(struct sn_strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * sn_strbuf_fail - mark sb failed with e (ENOMEM when the caller's own
 * allocation for the text failed), as a failed append would: the text is
 * dropped, later appends do nothing.  Returns -1.
 */
int sn_strbuf_fail(struct sn_strbuf *sb, int e);

/* sn_strbuf_str - the text so far ("" while empty or failed); borrowed. */
const char *sn_strbuf_str(const struct sn_strbuf *sb);

/* sn_strbuf_failed - true once an append failed (see above). */
bool sn_strbuf_failed(const struct sn_strbuf *sb);

/*
 * sn_strbuf_take - hand the text to the caller (free() it) and leave sb
 * empty with the same cap.  An empty string gives "" (allocated).  Returns
 * NULL with errno ENOMEM or E2BIG when the string failed (sb is then
 * reset, so it may be used again).  *len (may be NULL) gets the length.
 */
char *sn_strbuf_take(struct sn_strbuf *sb, size_t *len);

/* sn_strbuf_free - release the text and reset sb to empty; NULL-safe. */
void sn_strbuf_free(struct sn_strbuf *sb);

#endif
