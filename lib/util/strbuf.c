/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one growable string (see sn_strbuf.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sn_strbuf.h"

void sn_strbuf_init(struct sn_strbuf *sb, size_t max)
{
	memset(sb, 0, sizeof(*sb));
	sb->max = max;
}

static size_t limit(const struct sn_strbuf *sb)
{
	return sb->max ? sb->max : SN_STRBUF_MAX;
}

int sn_strbuf_fail(struct sn_strbuf *sb, int e)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = 0;
	sb->cap = 0;
	sb->error = e;
	errno = e;
	return -1;
}

/* Room for more bytes of text plus the NUL, doubling; 0 or -1. */
static int reserve(struct sn_strbuf *sb, size_t more)
{
	size_t want, cap;
	char *p;

	if (sb->error) {
		errno = sb->error;
		return -1;
	}
	if (more > limit(sb) - sb->len)
		return sn_strbuf_fail(sb, E2BIG);
	want = sb->len + more + 1;
	if (want <= sb->cap)
		return 0;
	cap = sb->cap ? sb->cap : SN_STRBUF_FIRST;
	while (cap < want)
		cap *= 2;
	if (cap > limit(sb) + 1)
		cap = limit(sb) + 1;
	p = realloc(sb->buf, cap);
	if (!p)
		return sn_strbuf_fail(sb, ENOMEM);
	sb->buf = p;
	sb->cap = cap;
	return 0;
}

int sn_strbuf_appendn(struct sn_strbuf *sb, const char *s, size_t n)
{
	if (reserve(sb, n))
		return -1;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
	return 0;
}

int sn_strbuf_append(struct sn_strbuf *sb, const char *s)
{
	return sn_strbuf_appendn(sb, s, strlen(s));
}

int sn_strbuf_vappendf(struct sn_strbuf *sb, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0)
		return sn_strbuf_fail(sb, E2BIG); /* over INT_MAX */
	if (reserve(sb, (size_t)n))
		return -1;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int sn_strbuf_appendf(struct sn_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = sn_strbuf_vappendf(sb, fmt, ap);
	va_end(ap);
	return rc;
}

const char *sn_strbuf_str(const struct sn_strbuf *sb)
{
	return sb->buf && !sb->error ? sb->buf : "";
}

bool sn_strbuf_failed(const struct sn_strbuf *sb)
{
	return sb->error != 0;
}

char *sn_strbuf_take(struct sn_strbuf *sb, size_t *len)
{
	size_t max = sb->max;
	int e = sb->error;
	char *s = sb->buf;
	size_t n = sb->len;

	sn_strbuf_init(sb, max);
	if (e) {
		errno = e;
		return NULL;
	}
	if (!s && !(s = strdup(""))) {
		errno = ENOMEM;
		return NULL;
	}
	if (len)
		*len = n;
	return s;
}

void sn_strbuf_free(struct sn_strbuf *sb)
{
	if (!sb)
		return;
	free(sb->buf);
	sn_strbuf_init(sb, sb->max);
}
