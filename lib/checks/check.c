/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/sn_check.h"

/*
 * One line of printable ASCII: control characters become spaces (as in a
 * drain reason, sn_reason_clean), other bytes outside ASCII '?'.
 */
static void copy_printable(char *dst, size_t size, const char *src)
{
	size_t i = 0;

	for (; src && src[i] && i + 1 < size; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = c < 0x20 || c == 0x7f ? ' ' : c > 0x7e ? '?' : (char)c;
	}
	dst[i] = '\0';
}

int sn_results_add(struct sn_results *r, enum sn_grade grade,
		   const char *check, const char *code, const char *device,
		   const char *expected, const char *found_fmt, ...)
{
	struct sn_result *res;
	char found[SN_VALUE_MAX];
	va_list ap;

	if (r->count >= SN_RESULTS_MAX)
		return -1;
	if (r->count == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct sn_result *items = realloc(r->items, cap * sizeof(*items));

		if (!items)
			return -1;
		r->items = items;
		r->cap = cap;
	}
	res = &r->items[r->count++];
	memset(res, 0, sizeof(*res));
	res->grade = grade;
	va_start(ap, found_fmt);
	vsnprintf(found, sizeof(found), found_fmt, ap);
	va_end(ap);
	copy_printable(res->check, sizeof(res->check), check);
	copy_printable(res->code, sizeof(res->code), code);
	copy_printable(res->device, sizeof(res->device), device);
	copy_printable(res->expected, sizeof(res->expected), expected);
	copy_printable(res->found, sizeof(res->found), found);
	return 0;
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
