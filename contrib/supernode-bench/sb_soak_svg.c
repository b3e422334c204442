// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_soak_svg.c: a soak's --plot: busbw of the largest size (GB/s)
 * against time since the start (s, or h past 3 hours), one line per
 * operation, and dashed at fraction x its first window: the busbw drop
 * flag's threshold.  Plain SVG 1.1, no script, no external resource.
 */
#include <math.h>

#include "sb_soak.h"

#define W 800
#define H 480
#define ML 70 /* margins, px */
#define MR 150
#define MT 40
#define MB 50

static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c",
				       "#ff7f0e", "#9467bd", "#8c564b" };

struct frame {
	double tmax, ymax, tdiv; /* tdiv: 1 (s) or 3600 (h) */
};

static double nice_top(double v)
{
	double p = v > 0 ? pow(10, floor(log10(v))) : 1;

	return v <= p ? p : v <= 2 * p ? 2 * p : v <= 5 * p ? 5 * p : 10 * p;
}

static void find_frame(const struct sb_soak_series *s, const bool *ops,
		       struct frame *fr)
{
	fr->tmax = s->n ? s->t_s[s->n - 1] : 1;
	fr->ymax = 0;
	for (int op = 0; op < SB_NOPS; op++)
		for (size_t k = 0; ops[op] && k < s->n; k++)
			if (isfinite(s->busbw[op][k]))
				fr->ymax = fmax(fr->ymax, s->busbw[op][k]);
	fr->tdiv = fr->tmax > 3 * 3600 ? 3600 : 1;
	fr->tmax = nice_top(fmax(fr->tmax / fr->tdiv, 1e-9));
	fr->ymax = nice_top(fr->ymax);
}

static double px(const struct frame *fr, double t_s)
{
	return ML + t_s / fr->tdiv / fr->tmax * (W - ML - MR);
}

static double py(const struct frame *fr, double gbps)
{
	return H - MB - gbps / fr->ymax * (H - MT - MB);
}

static void write_grid(FILE *f, const struct frame *fr)
{
	for (int k = 0; k <= 5; k++) {
		double t = fr->tmax * k / 5, v = fr->ymax * k / 5;
		double x = px(fr, t * fr->tdiv), y = py(fr, v);

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
			x, MT, x, H - MB, x, H - MB + 18, t);
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			ML, y, W - MR, y, ML - 6, y + 4, v);
	}
	fprintf(f,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n"
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since start (%s)</text>\n"
		"<text x=\"16\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">bus bandwidth (GB/s)</text>\n",
		ML, MT, W - ML - MR, H - MT - MB, (W - MR + ML) / 2, H - 12,
		fr->tdiv > 1 ? "h" : "s", (H - MB + MT) / 2, (H - MB + MT) / 2);
}

static void write_series(FILE *f, const struct frame *fr,
			 const struct sb_soak_series *s, int op, int idx,
			 double fraction)
{
	const char *col = colours[idx % 6];
	const double *bw = s->busbw[op];

	fprintf(f,
		"<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		col);
	for (size_t k = 0; k < s->n; k++)
		if (isfinite(bw[k]))
			fprintf(f, "%.1f,%.1f ", px(fr, s->t_s[k]),
				py(fr, bw[k]));
	fputs("\"/>\n", f);
	if (s->n && isfinite(bw[0]))
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"6 4\"/>\n",
			ML, py(fr, fraction * bw[0]), W - MR,
			py(fr, fraction * bw[0]), col);
	fprintf(f,
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>\n"
		"<text x=\"%d\" y=\"%d\">%s</text>\n",
		W - MR + 10, MT + 10 + 18 * idx, W - MR + 30,
		MT + 10 + 18 * idx, col, W - MR + 36, MT + 14 + 18 * idx,
		sb_op_name(op));
}

/**
 * sb_soak_write_svg - the busbw of each selected operation in @s over
 * time, with its drop threshold (@fraction x first window) dashed.
 * Returns 0, or -1 on a write error.
 */
int sb_soak_write_svg(FILE *f, const struct sb_soak_series *s,
		      const bool ops[SB_NOPS], double fraction)
{
	struct frame fr;
	int idx = 0;

	find_frame(s, ops, &fr);
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">supernode-bench soak: bus bandwidth over time (dashed: %.2f x first window)</text>\n",
		W, H, W, H, W, H, (W - MR + ML) / 2, fraction);
	write_grid(f, &fr);
	for (int op = 0; op < SB_NOPS; op++)
		if (ops[op])
			write_series(f, &fr, s, op, idx++, fraction);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}
