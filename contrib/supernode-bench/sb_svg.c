// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_svg.c: --plot: bus bandwidth (GB/s, best of out-of-place and
 * in-place) against message size (bytes, log scale), one line per
 * operation and group.  Plain SVG 1.1, no script, no external resource.
 */
#include <math.h>

#include "sb.h"

#define W 800
#define H 480
#define ML 70 /* margins, px */
#define MR 170
#define MT 40
#define MB 50

static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

struct axes {
	double xmin, xmax; /* log2(bytes) */
	double ymax;	   /* GB/s */
};

static void find_axes(const struct sb_result *res, size_t nres, struct axes *a)
{
	a->xmin = INFINITY;
	a->xmax = -INFINITY;
	a->ymax = 0;
	for (size_t k = 0; k < nres; k++) {
		for (size_t i = 0; i < res[k].nrows; i++) {
			const struct sb_row *r = &res[k].rows[i];
			double x = log2((double)r->bytes);

			if (!(r->ran[0] || r->ran[1]))
				continue;
			a->xmin = fmin(a->xmin, x);
			a->xmax = fmax(a->xmax, x);
			a->ymax = fmax(a->ymax, sb_row_busbw(r));
		}
	}
	if (!isfinite(a->xmin)) {
		a->xmin = 0;
		a->xmax = 1;
	}
	if (a->xmax <= a->xmin)
		a->xmax = a->xmin + 1;
	/* round the top up to 1, 2 or 5 times a power of ten */
	double p = a->ymax > 0 ? pow(10, floor(log10(a->ymax))) : 1;

	a->ymax = a->ymax <= p	   ? p :
		  a->ymax <= 2 * p ? 2 * p :
		  a->ymax <= 5 * p ? 5 * p :
				     10 * p;
}

static double px(const struct axes *a, double log2b)
{
	return ML + (log2b - a->xmin) / (a->xmax - a->xmin) * (W - ML - MR);
}

static double py(const struct axes *a, double gbps)
{
	return H - MB - gbps / a->ymax * (H - MT - MB);
}

/* Size label: 1K, 4M, 8G; exact powers of 1024 only. */
static void size_label(double log2b, char *out, size_t len)
{
	static const char units[] = " KMGTP";
	int e = (int)lround(log2b);
	int u = e / 10;

	if (u > 5)
		u = 5;
	if (u == 0)
		snprintf(out, len, "%lld", 1LL << e);
	else
		snprintf(out, len, "%lld%c", 1LL << (e - 10 * u), units[u]);
}

static void write_grid(FILE *f, const struct axes *a)
{
	int step = a->xmax - a->xmin > 16 ? 4 : a->xmax - a->xmin > 8 ? 2 : 1;
	char lbl[32];

	for (int e = (int)ceil(a->xmin); e <= (int)floor(a->xmax); e += step) {
		double x = px(a, e);

		size_label(e, lbl, sizeof(lbl));
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n",
			x, MT, x, H - MB);
		fprintf(f,
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, H - MB + 18, lbl);
	}
	for (int k = 0; k <= 5; k++) {
		double v = a->ymax * k / 5, y = py(a, v);

		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			ML, y, W - MR, y);
		fprintf(f,
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			ML - 6, y + 4, v);
	}
	fprintf(f,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n",
		ML, MT, W - ML - MR, H - MT - MB);
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">message size (bytes)</text>\n",
		(W - MR + ML) / 2, H - 12);
	fprintf(f,
		"<text x=\"16\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">bus bandwidth (GB/s)</text>\n",
		(H - MB + MT) / 2, (H - MB + MT) / 2);
}

static void write_series(FILE *f, const struct axes *a,
			 const struct sb_result *r, int idx)
{
	const char *col =
		colours[idx % (int)(sizeof(colours) / sizeof(*colours))];

	fprintf(f,
		"<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		col);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct sb_row *row = &r->rows[i];

		if (row->ran[0] || row->ran[1])
			fprintf(f, "%.1f,%.1f ",
				px(a, log2((double)row->bytes)),
				py(a, sb_row_busbw(row)));
	}
	fputs("\"/>\n", f);
	fprintf(f,
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>\n",
		W - MR + 10, MT + 10 + 18 * idx, W - MR + 30,
		MT + 10 + 18 * idx, col);
	fprintf(f, "<text x=\"%d\" y=\"%d\">%s (%s, %d)</text>\n", W - MR + 36,
		MT + 14 + 18 * idx, sb_op_name(r->op), r->group, r->nranks);
}

/**
 * sb_write_svg - the chart of @res under @title (ASCII, no markup).
 * Returns 0, or -1 on a write error.
 */
int sb_write_svg(FILE *f, const struct sb_result *res, size_t nres,
		 const char *title)
{
	struct axes a;

	find_axes(res, nres, &a);
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		W, H, W, H);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, H);
	fprintf(f,
		"<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">",
		(W - MR + ML) / 2);
	for (const char *s = title; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
	fputs("</text>\n", f);
	write_grid(f, &a);
	for (size_t k = 0; k < nres; k++)
		write_series(f, &a, &res[k], (int)k);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}
