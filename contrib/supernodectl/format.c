/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How report tables print times, durations, byte counts and rates. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "snctl.h"

void snctl_fmt_time(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || !localtime_r(&tt, &tm) ||
	    !strftime(buf, size, "%Y-%m-%dT%H:%M:%S%z", &tm))
		snprintf(buf, size, "?");
}

void snctl_fmt_duration(int64_t s, char *buf, size_t size)
{
	if (s < 0) {
		snprintf(buf, size, "?");
		return;
	}
	if (s >= 3600)
		snprintf(buf, size, "%" PRId64 "h%02" PRId64 "m%02" PRId64 "s",
			 s / 3600, s / 60 % 60, s % 60);
	else if (s >= 60)
		snprintf(buf, size, "%" PRId64 "m%02" PRId64 "s", s / 60,
			 s % 60);
	else
		snprintf(buf, size, "%" PRId64 "s", s);
}

/* Decimal units (kB = 1000 B), one decimal; "?" for null or absent. */
void snctl_fmt_bytes(json_object *v, char *buf, size_t size)
{
	static const char *const unit[] = { "B",  "kB", "MB", "GB",
					    "TB", "PB", "EB" };
	double x;
	int u = 0;

	if (!v || !json_object_is_type(v, json_type_int)) {
		snprintf(buf, size, "?");
		return;
	}
	x = (double)json_object_get_uint64(v);
	while (x >= 1000.0 && u < 6) {
		x /= 1000.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%.0f B", x);
	else
		snprintf(buf, size, "%.1f %s", x, unit[u]);
}

void snctl_fmt_rate(json_object *v, char *buf, size_t size)
{
	if (!v || !(json_object_is_type(v, json_type_double) ||
		    json_object_is_type(v, json_type_int))) {
		snprintf(buf, size, "?");
		return;
	}
	snprintf(buf, size, "%.1f", json_object_get_double(v));
}

void snctl_json_print(json_object *o)
{
	puts(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
}
