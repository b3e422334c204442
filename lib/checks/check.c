/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/sn_check.h"
#include "util/sn_error.h"
#include "util/sn_strbuf.h"

/*
 * One line of printable ASCII, in place: control characters become spaces
 * (as in a drain reason, sn_reason_clean), other bytes outside ASCII '?'.
 */
static void make_printable(char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		*s = c < 0x20 || c == 0x7f ? ' ' : c > 0x7e ? '?' : (char)c;
	}
}

/* src into a field of size bytes: cut by sn_error_cut, made printable. */
static void put_field(char *dst, size_t size, const char *src)
{
	sn_error_cut(dst, size, src ? src : "");
	make_printable(dst);
}

int sn_results_vadd(struct sn_results *r, enum sn_grade grade,
		    const char *check, const char *code, const char *device,
		    const char *expected, const char *found_fmt, va_list ap)
{
	struct sn_strbuf found = SN_STRBUF_INIT;
	struct sn_result *res;

	if (r->count >= SN_RESULTS_MAX)
		return -1;
	if (r->count == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct sn_result *items =
			realloc(r->items, cap * sizeof(*items));

		if (!items)
			return -1;
		r->items = items;
		r->cap = cap;
	}
	if (sn_strbuf_vappendf(&found, found_fmt, ap))
		return -1;
	res = &r->items[r->count++];
	memset(res, 0, sizeof(*res));
	res->grade = grade;
	put_field(res->check, sizeof(res->check), check);
	put_field(res->code, sizeof(res->code), code);
	put_field(res->device, sizeof(res->device), device);
	put_field(res->expected, sizeof(res->expected), expected);
	put_field(res->found, sizeof(res->found), sn_strbuf_str(&found));
	sn_strbuf_free(&found);
	return 0;
}

int sn_results_add(struct sn_results *r, enum sn_grade grade, const char *check,
		   const char *code, const char *device, const char *expected,
		   const char *found_fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, found_fmt);
	rc = sn_results_vadd(r, grade, check, code, device, expected, found_fmt,
			     ap);
	va_end(ap);
	return rc;
}

void sn_results_free(struct sn_results *r)
{
	if (!r)
		return;
	free(r->items);
	r->items = NULL;
	r->count = 0;
	r->cap = 0;
}

enum sn_grade sn_results_worst(const struct sn_results *r)
{
	enum sn_grade worst = SN_OK;

	for (size_t i = 0; i < r->count; i++)
		worst = sn_grade_worse(worst, r->items[i].grade);
	return worst;
}
