// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_report.c: the nccl-tests-like table, the JSON document, the side by
 * side group table and the SVG chart.  Writers only: no measuring here.
 */
#include <math.h>
#include <string.h>

#include "sb.h"

static const char *op_redop(enum sb_op op)
{
	return op == SB_ALLREDUCE || op == SB_REDUCESCATTER ? "sum" : "none";
}

static int op_root(enum sb_op op)
{
	return op == SB_BROADCAST ? 0 : -1;
}

/**
 * sb_fmt_float - @v right-aligned in @width characters (@out holds
 * width+1): two decimals, fewer when it does not fit, then an exponent,
 * as nccl-tests' columns do.
 */
void sb_fmt_float(double v, int width, char *out)
{
	if (snprintf(out, width + 1, "%*.2f", width, v) <= width)
		return;
	if (snprintf(out, width + 1, "%*.1f", width, v) <= width)
		return;
	if (snprintf(out, width + 1, "%*.0f", width, v) <= width)
		return;
	snprintf(out, width + 1, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

/** sb_write_table_header - the three '#' header lines of nccl-tests. */
void sb_write_table_header(FILE *f, enum sb_op op)
{
	(void)op;
	fprintf(f,
		"# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n",
		"", "", "", "", "");
	fprintf(f,
		"# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
		"size", "count", "type", "redop", "root", "time", "algbw",
		"busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
	fprintf(f,
		"# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
		"(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
		"(us)", "(GB/s)", "(GB/s)", "");
}

static void write_half(FILE *f, const struct sb_row *row, int p)
{
	char t[8], a[7], b[7];

	if (!row->ran[p]) {
		fprintf(f, "  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
		return;
	}
	sb_fmt_float(row->time_us[p], 7, t);
	sb_fmt_float(row->algbw[p], 6, a);
	sb_fmt_float(row->busbw[p], 6, b);
	if (row->wrong[p] < 0)
		fprintf(f, "  %7s  %6s  %6s    N/A", t, a, b);
	else
		fprintf(f, "  %7s  %6s  %6s  %6lld", t, a, b,
			(long long)row->wrong[p]);
}

/** sb_write_row - one line of the table, columns as nccl-tests. */
void sb_write_row(FILE *f, enum sb_op op, const struct sb_row *row)
{
	fprintf(f, "%12zu  %12zu  %8s  %6s  %6d", row->bytes, row->count,
		"float", op_redop(op), op_root(op));
	write_half(f, row, 0);
	write_half(f, row, 1);
	fputc('\n', f);
}

/**
 * sb_write_footer - nccl-tests' footer (wrong elements, average busbw)
 * and our summary line: largest size's busbw against @min_busbw (GB/s,
 * 0 for none).
 */
void sb_write_footer(FILE *f, const struct sb_result *r, double min_busbw)
{
	int64_t wrong = sb_total_wrong(r);
	double peak = r->nrows ? sb_row_busbw(&r->rows[r->nrows - 1]) : 0;

	fprintf(f, "# %-20s : %lld %s\n", "Out of bounds values",
		(long long)wrong, wrong ? "FAILED" : "OK");
	fprintf(f, "# %-20s : %g\n", "Avg bus bandwidth", sb_avg_busbw(r));
	fprintf(f, "# %-20s : %.2f GB/s at %zu B", "Largest size busbw", peak,
		r->nrows ? r->rows[r->nrows - 1].bytes : 0);
	if (min_busbw > 0)
		fprintf(f, " (min %.2f: %s)", min_busbw,
			peak >= min_busbw ? "OK" : "FAILED");
	fputc('\n', f);
}

/* JSON string: our strings are ASCII names, but escape anyway. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A double as JSON: never nan or inf. */
static void json_num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

static void json_half(FILE *f, const struct sb_row *row, int p)
{
	if (!row->ran[p]) {
		fputs("null", f);
		return;
	}
	fputs("{\"time_us\": ", f);
	json_num(f, row->time_us[p]);
	fputs(", \"algbw_gbps\": ", f);
	json_num(f, row->algbw[p]);
	fputs(", \"busbw_gbps\": ", f);
	json_num(f, row->busbw[p]);
	if (row->wrong[p] < 0)
		fputs(", \"wrong\": null}", f);
	else
		fprintf(f, ", \"wrong\": %lld}", (long long)row->wrong[p]);
}

static void json_result(FILE *f, const struct sb_result *r)
{
	fputs("    {\"op\": ", f);
	json_str(f, sb_op_name(r->op));
	fputs(", \"group\": ", f);
	json_str(f, r->group);
	fprintf(f, ", \"nranks\": %d, \"avg_busbw_gbps\": ", r->nranks);
	json_num(f, sb_avg_busbw(r));
	fprintf(f, ", \"wrong\": %lld,\n     \"rows\": [",
		(long long)sb_total_wrong(r));
	for (size_t i = 0; i < r->nrows; i++) {
		const struct sb_row *row = &r->rows[i];

		fprintf(f,
			"%s\n      {\"bytes\": %zu, \"count\": %zu, "
			"\"out_of_place\": ",
			i ? "," : "", row->bytes, row->count);
		json_half(f, row, 0);
		fputs(", \"in_place\": ", f);
		json_half(f, row, 1);
		fputc('}', f);
	}
	fputs("]}", f);
}

/**
 * sb_write_json - the whole run as one JSON object: backend, units, pass,
 * and per operation and group every row.  Returns 0, or -1 on a write
 * error.
 */
int sb_write_json(FILE *f, const struct sb_result *res, size_t nres,
		  const char *backend, double min_busbw, bool pass)
{
	fputs("{\"tool\": \"supernode-bench\", \"backend\": ", f);
	json_str(f, backend);
	fputs(", \"units\": {\"time\": \"us\", \"bandwidth\": \"GB/s (1e9 B/s)\"},\n"
	      " \"min_busbw_gbps\": ",
	      f);
	if (min_busbw > 0)
		json_num(f, min_busbw);
	else
		fputs("null", f);
	fprintf(f, ", \"pass\": %s,\n \"results\": [\n",
		pass ? "true" : "false");
	for (size_t i = 0; i < nres; i++) {
		json_result(f, &res[i]);
		fputs(i + 1 < nres ? ",\n" : "\n", f);
	}
	fputs(" ]}\n", f);
	return ferror(f) ? -1 : 0;
}

/* The result of @op in @group, or NULL. */
static const struct sb_result *find(const struct sb_result *res, size_t nres,
				    enum sb_op op, const char *group)
{
	for (size_t i = 0; i < nres; i++)
		if (res[i].op == op && !strcmp(res[i].group, group))
			return &res[i];
	return NULL;
}

static void group_cell(FILE *f, const struct sb_result *r, size_t i)
{
	char b[9];

	if (!r || i >= r->nrows || !(r->rows[i].ran[0] || r->rows[i].ran[1])) {
		fprintf(f, "  %8s", "-");
		return;
	}
	sb_fmt_float(sb_row_busbw(&r->rows[i]), 8, b);
	fprintf(f, "  %8s", b);
}

/**
 * sb_write_groups - busbw (GB/s, best of out-of-place and in-place) inside
 * a supernode ("intra": the first process's supernode), across supernodes and
 * over all ranks, side by side per operation and size.
 */
void sb_write_groups(FILE *f, const struct sb_result *res, size_t nres)
{
	static const char *const groups[] = { "intra", "across", "all" };

	for (int op = 0; op < SB_NOPS; op++) {
		const struct sb_result *g[3];
		const struct sb_result *any = NULL;

		for (int k = 0; k < 3; k++) {
			g[k] = find(res, nres, op, groups[k]);
			if (g[k] && (!any || g[k]->nrows > any->nrows))
				any = g[k];
		}
		if (!any)
			continue;
		fprintf(f,
			"# %s busbw (GB/s) by group: intra = inside each supernode, across = one rank per supernode\n",
			sb_op_name(op));
		fprintf(f, "# %10s  %8s  %8s  %8s\n", "size (B)", "intra",
			"across", "all");
		for (size_t i = 0; i < any->nrows; i++) {
			fprintf(f, "%12zu", any->rows[i].bytes);
			for (int k = 0; k < 3; k++)
				group_cell(f, g[k], i);
			fputc('\n', f);
		}
	}
}
