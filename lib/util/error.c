/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/sn_error.h"
#include "util/sn_strbuf.h"

#define CUT_MARK "..."
#define CUT_MARK_LEN (sizeof(CUT_MARK) - 1)

/* A path: starts with '/', or holds a '/' and no space. */
static int is_path(const char *s)
{
	return *s == '/' || (strchr(s, '/') && !strchr(s, ' '));
}

/* Where the trailing path of text starts ("PHRASE: PATH"), or 0. */
static size_t path_start(const char *text)
{
	const char *sep = NULL;

	for (const char *p = strstr(text, ": "); p; p = strstr(p + 1, ": "))
		sep = p;
	return sep && is_path(sep + 2) ? (size_t)(sep + 2 - text) : 0;
}

/* The length of text's path head before the ':' that ends it. */
static size_t lead_path_len(const char *text)
{
	return *text == '/' ? strcspn(text, ": ") : 0;
}

/*
 * out = text[0, head) "..." tail, where tail is the last tail bytes of
 * text moved on to its first '/' when it starts before path_from.
 */
static void put_cut(char *out, const char *text, size_t len, size_t head,
		    size_t tail, size_t path_from, size_t path_end)
{
	const char *t = text + len - tail, *slash;

	if ((size_t)(t - text) >= path_from && (size_t)(t - text) < path_end) {
		slash = memchr(t, '/', path_end - (size_t)(t - text));
		if (slash)
			t = slash;
	}
	memcpy(out, text, head);
	memcpy(out + head, CUT_MARK, CUT_MARK_LEN);
	memcpy(out + head + CUT_MARK_LEN, t, strlen(t) + 1);
}

size_t sn_error_cut(char *out, size_t size, const char *text)
{
	size_t len = strlen(text), room, p, lead;

	if (!size)
		return len;
	if (len < size || size < 8) {
		snprintf(out, size, "%s", text);
		return len;
	}
	room = size - 1 - CUT_MARK_LEN; /* bytes of text kept */
	p = path_start(text);
	lead = lead_path_len(text);
	if (p && p + 1 <= room) /* the phrase whole, the path's tail */
		put_cut(out, text, len, p, room - p, p, len);
	else if (!p && lead > room - room / 3) /* the leading path's tail */
		put_cut(out, text, len, 0, room, 0, lead);
	else if (p) /* head, "...", the path's last third */
		put_cut(out, text, len, room - room / 3, room / 3, p, len);
	else /* the head, "..." */
		put_cut(out, text, len, room, 0, len, len);
	return len;
}

void sn_error_set(struct sn_error *err, const char *fmt, ...)
{
	struct sn_strbuf sb = SN_STRBUF_INIT;
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	if (sn_strbuf_vappendf(&sb, fmt, ap)) {
		va_end(ap);
		va_start(ap, fmt); /* out of memory: cut unmarked */
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	} else {
		sn_error_cut(err->msg, sizeof(err->msg), sn_strbuf_str(&sb));
	}
	va_end(ap);
	sn_strbuf_free(&sb);
}
