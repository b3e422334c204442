// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_soak.c: the soak's pure part: durations, the time series, the busbw
 * drop and memory growth decisions, exit codes, the JSON lines and the
 * summary.  The SVG of busbw over time is sb_soak_svg.c; the loop and
 * the watchdog are sb_soak_run.c.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sb_soak.h"

/**
 * sb_parse_duration - "90", "90s", "10m", "24h" or "2d": whole seconds,
 * minutes, hours or days, 1 s to SB_SOAK_MAX_SECONDS.  Returns 0 and
 * *@seconds, or -1.
 */
int sb_parse_duration(const char *s, double *seconds)
{
	unsigned long long v;
	double mult = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v > (unsigned long long)SB_SOAK_MAX_SECONDS)
		return -1;
	switch (*end) {
	case 'd':
		mult *= 24; /* fall through */
	case 'h':
		mult *= 60; /* fall through */
	case 'm':
		mult *= 60; /* fall through */
	case 's':
		end++;
		break;
	case '\0':
		break;
	default:
		return -1;
	}
	if (*end || !v || v * mult > SB_SOAK_MAX_SECONDS)
		return -1;
	*seconds = v * mult;
	return 0;
}

/**
 * sb_soak_busbw_drop - is @bw (one operation's busbw per window, GB/s)
 * below @fraction x its first window in two windows in a row?  *@at: the
 * first of them.  A first window that did not run (NAN, 0) is no
 * reference: false.
 */
bool sb_soak_busbw_drop(const double *bw, size_t n, double fraction, size_t *at)
{
	double limit;

	if (n < 3 || !isfinite(bw[0]) || bw[0] <= 0)
		return false;
	limit = fraction * bw[0];
	for (size_t k = 1; k + 1 < n; k++) {
		if (bw[k] < limit && bw[k + 1] < limit) {
			*at = k;
			return true;
		}
	}
	return false;
}

/**
 * sb_soak_mem_growth - does @mib (memory per window, MiB) keep growing?
 * From the second window (the first one allocates the buffers) to the
 * last it grew by more than @limit_mib, and it rose in at least half of
 * those steps: a leak, not one step up.  Needs 4 windows; a NAN (not
 * known) in the range: false.
 */
bool sb_soak_mem_growth(const double *mib, size_t n, double limit_mib)
{
	size_t rising = 0;

	if (n < 4)
		return false;
	for (size_t k = 1; k < n; k++) {
		if (!isfinite(mib[k]))
			return false;
		rising += k >= 2 && mib[k] > mib[k - 1];
	}
	return mib[n - 1] - mib[1] > limit_mib && 2 * rising >= n - 2;
}

/**
 * sb_soak_judge - after a window was added to @s: raise the flags its
 * series now show (a flag stays raised; flag_window says when it first
 * did).  Returns the flags raised by this call.
 */
unsigned sb_soak_judge(struct sb_soak_series *s, const bool ops[SB_NOPS],
		       const struct sb_soak_opts *o)
{
	unsigned before = s->flags;
	size_t at;

	for (int op = 0; op < SB_NOPS && !(s->flags & SB_FLAG_BUSBW_DROP);
	     op++) {
		if (ops[op] &&
		    sb_soak_busbw_drop(s->busbw[op], s->n, o->fraction, &at)) {
			s->flags |= SB_FLAG_BUSBW_DROP;
			s->flag_window[0] = (long long)at;
			s->drop_op = op;
		}
	}
	if (!(s->flags & SB_FLAG_MEM_GROWTH) &&
	    (sb_soak_mem_growth(s->host_mib, s->n, o->mem_growth_mib) ||
	     sb_soak_mem_growth(s->dev_mib, s->n, o->mem_growth_mib))) {
		s->flags |= SB_FLAG_MEM_GROWTH;
		s->flag_window[1] = (long long)s->n - 1;
	}
	return s->flags & ~before;
}

/**
 * sb_soak_exit - the exit status of a soak: the first of a hang (6),
 * wrong elements (1), a busbw drop (4), memory growth (5); else 0.
 */
int sb_soak_exit(unsigned flags, long long wrong)
{
	if (flags & SB_FLAG_HANG)
		return SB_EXIT_HANG;
	if (wrong)
		return 1;
	if (flags & SB_FLAG_BUSBW_DROP)
		return SB_EXIT_BUSBW_DROP;
	if (flags & SB_FLAG_MEM_GROWTH)
		return SB_EXIT_MEM_GROWTH;
	return 0;
}

/** sb_soak_flag_name - "busbw_drop", "memory_growth", "hang". */
const char *sb_soak_flag_name(unsigned flag)
{
	switch (flag) {
	case SB_FLAG_BUSBW_DROP:
		return "busbw_drop";
	case SB_FLAG_MEM_GROWTH:
		return "memory_growth";
	case SB_FLAG_HANG:
		return "hang";
	default:
		return "?";
	}
}

static int grow(double **a, size_t cap)
{
	double *p = realloc(*a, cap * sizeof(**a));

	if (!p)
		return -1;
	*a = p;
	return 0;
}

/**
 * sb_soak_series_add - one more window at @t_s, its values NAN until set.
 * Returns its index, or -1 (no memory, or SB_SOAK_MAX_WINDOWS reached).
 */
int sb_soak_series_add(struct sb_soak_series *s, double t_s)
{
	size_t w = s->n;

	if (w >= SB_SOAK_MAX_WINDOWS)
		return -1;
	if (w == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;

		for (int op = 0; op < SB_NOPS; op++)
			if (grow(&s->busbw[op], cap))
				return -1;
		if (grow(&s->t_s, cap) || grow(&s->host_mib, cap) ||
		    grow(&s->dev_mib, cap))
			return -1;
		s->cap = cap;
	}
	if (!w)
		s->flag_window[0] = s->flag_window[1] = s->flag_window[2] = -1;
	s->t_s[w] = t_s;
	for (int op = 0; op < SB_NOPS; op++)
		s->busbw[op][w] = NAN;
	s->host_mib[w] = s->dev_mib[w] = NAN;
	s->n++;
	return (int)w;
}

/** sb_soak_series_free - free the arrays of @s. */
void sb_soak_series_free(struct sb_soak_series *s)
{
	for (int op = 0; op < SB_NOPS; op++)
		free(s->busbw[op]);
	free(s->t_s);
	free(s->host_mib);
	free(s->dev_mib);
	memset(s, 0, sizeof(*s));
}

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

static void json_flags(FILE *f, unsigned flags)
{
	bool first = true;

	fputc('[', f);
	for (unsigned b = SB_FLAG_BUSBW_DROP; b <= SB_FLAG_HANG; b <<= 1) {
		if (!(flags & b))
			continue;
		fprintf(f, "%s\"%s\"", first ? "" : ", ", sb_soak_flag_name(b));
		first = false;
	}
	fputc(']', f);
}

/**
 * sb_soak_write_line - window @w of @s as one JSON line: its start, the
 * busbw (GB/s) of each selected operation at @bytes, memory (MiB) and
 * the flags raised so far.
 */
void sb_soak_write_line(FILE *f, const struct sb_soak_series *s, size_t w,
			const bool ops[SB_NOPS], size_t bytes)
{
	bool first = true;

	fprintf(f,
		"{\"window\": %zu, \"t_s\": %.3f, \"bytes\": %zu, \"busbw_gbps\": {",
		w, s->t_s[w], bytes);
	for (int op = 0; op < SB_NOPS; op++) {
		if (!ops[op])
			continue;
		fprintf(f, "%s\"%s\": ", first ? "" : ", ", sb_op_name(op));
		json_num(f, s->busbw[op][w]);
		first = false;
	}
	fputs("}, \"host_rss_mib\": ", f);
	json_num(f, s->host_mib[w]);
	fputs(", \"device_used_mib\": ", f);
	json_num(f, s->dev_mib[w]);
	fputs(", \"flags\": ", f);
	json_flags(f, s->flags);
	fputs("}\n", f);
	fflush(f);
}

struct stats {
	double first, min, max, last;
};

static struct stats op_stats(const double *v, size_t n)
{
	struct stats st = { NAN, INFINITY, -INFINITY, NAN };

	for (size_t k = 0; k < n; k++) {
		if (!isfinite(v[k]))
			continue;
		if (!isfinite(st.first))
			st.first = v[k];
		st.min = fmin(st.min, v[k]);
		st.max = fmax(st.max, v[k]);
		st.last = v[k];
	}
	return st;
}

static void summary_json(FILE *f, const struct sb_soak_series *s,
			 const bool ops[SB_NOPS], const struct sb_soak_opts *o)
{
	bool first = true;

	fprintf(f,
		"{\"summary\": {\"windows\": %zu, \"duration_s\": %.0f, \"interval_s\": %.0f, \"fraction\": %.4g, \"wrong\": %lld, \"busbw_gbps\": {",
		s->n, o->duration_s, o->interval_s, o->fraction, s->wrong);
	for (int op = 0; op < SB_NOPS; op++) {
		struct stats st;

		if (!ops[op])
			continue;
		st = op_stats(s->busbw[op], s->n);
		fprintf(f, "%s\"%s\": {\"first\": ", first ? "" : ", ",
			sb_op_name(op));
		json_num(f, st.first);
		fputs(", \"min\": ", f);
		json_num(f, st.min);
		fputs(", \"max\": ", f);
		json_num(f, st.max);
		fputs(", \"last\": ", f);
		json_num(f, st.last);
		fputc('}', f);
		first = false;
	}
	fputs("}, \"flags\": ", f);
	json_flags(f, s->flags);
	fprintf(f, ", \"exit\": %d}}\n", sb_soak_exit(s->flags, s->wrong));
}

static void summary_text(FILE *f, const struct sb_soak_series *s,
			 const bool ops[SB_NOPS], const struct sb_soak_opts *o)
{
	double t = s->n ? s->t_s[s->n - 1] : 0;

	fprintf(f,
		"# soak: %zu windows in %.0f s (every %.0f s), %lld wrong elements\n",
		s->n, t, o->interval_s, s->wrong);
	for (int op = 0; op < SB_NOPS; op++) {
		struct stats st;

		if (!ops[op])
			continue;
		st = op_stats(s->busbw[op], s->n);
		fprintf(f,
			"#   %-13s busbw GB/s: first %.3f  min %.3f (%.2f x first)  max %.3f  last %.3f\n",
			sb_op_name(op), st.first, st.min, st.min / st.first,
			st.max, st.last);
	}
	if (s->n)
		fprintf(f, "#   host memory %.1f -> %.1f MiB", s->host_mib[0],
			s->host_mib[s->n - 1]);
	if (s->n && isfinite(s->dev_mib[0]))
		fprintf(f, "; device memory %.1f -> %.1f MiB", s->dev_mib[0],
			s->dev_mib[s->n - 1]);
	if (s->n)
		fprintf(f, "\n");
	if (s->flags & SB_FLAG_BUSBW_DROP)
		fprintf(f,
			"# FLAG busbw_drop: %s below %.2f x its first window from window %lld\n",
			sb_op_name(s->drop_op), o->fraction, s->flag_window[0]);
	if (s->flags & SB_FLAG_MEM_GROWTH)
		fprintf(f,
			"# FLAG memory_growth: more than %.0f MiB since window 1, still rising at window %lld\n",
			o->mem_growth_mib, s->flag_window[1]);
	if (!s->flags)
		fprintf(f, "# no flag raised\n");
	fprintf(f, "# exit %d\n", sb_soak_exit(s->flags, s->wrong));
}

/**
 * sb_soak_write_summary - the end of a soak: per operation first, min,
 * max and last busbw, memory, the flags and the exit status; as text
 * (lines starting with '#') or as one JSON line {"summary": ...}.
 */
void sb_soak_write_summary(FILE *f, const struct sb_soak_series *s,
			   const bool ops[SB_NOPS],
			   const struct sb_soak_opts *o, bool json)
{
	if (json)
		summary_json(f, s, ops, o);
	else
		summary_text(f, s, ops, o);
	fflush(f);
}

/* A number >= 0 up to @sep (':' or '\0'); *@s moves past it. */
static int knob_field(const char **s, double max, double *v)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	*v = strtod(*s, &end);
	if (errno || !isfinite(*v) || *v > max || (*end && *end != ':'))
		return -1;
	*s = *end ? end + 1 : end;
	return 0;
}

/**
 * sb_knob_parse - the test-only knob "RANK:US[:AFTER_S[:LEAK_MIB]]"
 * (SB_KNOB_ENV): RANK up to 65535, US up to 1e9 (1000 s), AFTER_S up to
 * SB_SOAK_MAX_SECONDS, LEAK_MIB up to 4096.  NULL or "": off, 0.
 * Returns 0, or -1 (k->on false) on anything else.
 */
int sb_knob_parse(const char *s, struct sb_knob *k)
{
	double v[4] = { 0, 0, 0, 0 };
	static const double max[4] = { 65535, 1e9, SB_SOAK_MAX_SECONDS, 4096 };
	int i;

	memset(k, 0, sizeof(*k));
	if (!s || !*s)
		return 0;
	for (i = 0; i < 4 && *s; i++)
		if (knob_field(&s, max[i], &v[i]))
			return -1;
	if (i < 2 || *s || v[0] != (int)v[0])
		return -1;
	*k = (struct sb_knob){ .on = true,
			       .rank = (int)v[0],
			       .us = v[1],
			       .after_s = v[2],
			       .leak_mib = v[3] };
	return 0;
}
