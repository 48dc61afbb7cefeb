// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: an SVG picture: the nesting depth over time on each CPU (all
 * its stacks together, the maximum per time slice), and the histogram of
 * hold times in powers of two.
 */
#include <math.h>
#include <stdio.h>

#include "report.h"

#define W 1000
#define LEFT 70
#define RIGHT 20
#define LANE 70
#define PLOT (W - LEFT - RIGHT)
#define HIST_H 220
#define POW2 41

static void fmt_ns(char *buf, size_t n, double ns)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	int k = ns >= 1e9 ? 3 : ns >= 1e6 ? 2 : ns >= 1e3 ? 1 : 0;

	snprintf(buf, n, k ? "%.3g%s" : "%.0f%s", ns / pow(1e3, k), unit[k]);
}

static void timeline(FILE *out, struct stats *st, int y0)
{
	int used = st->tl_used ? st->tl_used : 1;
	double span = (double)used * (double)st->tl_width;
	int lane = 0;
	char buf[32];

	fmt_ns(buf, sizeof(buf), (double)st->tl_width);
	fprintf(out,
		"<text x=\"%d\" y=\"%d\" class=\"title\">Nesting depth "
		"over time, per CPU (red: max, green: mean, per slice of %s)</text>\n",
		LEFT, y0 - 10, buf);
	for (int c = 0; c < st->ncpus; c++) {
		const struct cpu_stats *cs = &st->cpus[c];
		int top = y0 + lane * LANE,
		    maxd = cs->max_total ? cs->max_total : 1;
		double sx = (double)PLOT / used,
		       sy = (double)(LANE - 20) / maxd;

		if (!cs->tl)
			continue;
		fprintf(out,
			"<g class=\"cpu\" id=\"cpu%d\">\n"
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"lane\"/>\n"
			"<text x=\"%d\" y=\"%d\" class=\"label\">CPU %d</text>\n"
			"<text x=\"%d\" y=\"%d\" class=\"small\">%d</text>\n"
			"<polyline class=\"depth\" points=\"",
			c, LEFT, top, PLOT, LANE - 10, 5, top + LANE / 2, c,
			LEFT - 20, top + 12, maxd);
		for (int b = 0; b < used; b++) {
			double x0 = LEFT + b * sx, x1 = LEFT + (b + 1) * sx;
			double y = top + LANE - 10 - cs->tl[b].max * sy;

			fprintf(out, "%.1f,%.1f %.1f,%.1f ", x0, y, x1, y);
		}
		fprintf(out, "\"/>\n<polyline class=\"mean\" points=\"");
		for (int b = 0; b < used; b++) {
			double y = top + LANE - 10;

			if (cs->tl[b].n)
				y -= (double)cs->tl[b].sum / cs->tl[b].n * sy;
			fprintf(out, "%.1f,%.1f ", LEFT + (b + 0.5) * sx, y);
		}
		fprintf(out, "\"/>\n</g>\n");
		lane++;
	}
	fmt_ns(buf, sizeof(buf), span);
	fprintf(out,
		"<text x=\"%d\" y=\"%d\" class=\"small\">0</text>\n"
		"<text x=\"%d\" y=\"%d\" class=\"small\" text-anchor=\"end\">+%s</text>\n",
		LEFT, y0 + lane * LANE + 5, LEFT + PLOT, y0 + lane * LANE + 5,
		buf);
}

/* bar p holds the durations in [2^(p-1), 2^p) ns; bar 0 the zeros */
static void holds(FILE *out, struct stats *st, int y0)
{
	unsigned long long bins[POW2] = { 0 }, maxc = 1;
	int lo = POW2, hi = -1, n, step;
	double bw;
	char buf[32];

	fprintf(out,
		"<text x=\"%d\" y=\"%d\" class=\"title\">Hold times "
		"(%llu holds; bars: powers of two, height: log count)</text>\n",
		LEFT, y0 - 10, (unsigned long long)st->holds.count);
	for (int i = 0; st->holds.b && i < HIST_BUCKETS; i++) {
		unsigned long long v = hist_bucket_lo(i);
		int p = v ? 64 - __builtin_clzll(v) : 0;

		bins[p < POW2 ? p : POW2 - 1] += st->holds.b[i];
	}
	for (int p = 0; p < POW2; p++) {
		if (!bins[p])
			continue;
		lo = p < lo ? p : lo;
		hi = p;
		maxc = bins[p] > maxc ? bins[p] : maxc;
	}
	if (hi < 0)
		lo = hi = 10;
	/* a little room on both sides, at least 12 bars */
	lo = lo > 0 ? lo - 1 : 0;
	hi = hi < POW2 - 1 ? hi + 1 : hi;
	while (hi - lo + 1 < 12) {
		if (lo > 0)
			lo--;
		if (hi - lo + 1 < 12 && hi < POW2 - 1)
			hi++;
	}
	n = hi - lo + 1;
	bw = (double)PLOT / n;
	step = (n + 11) / 12;
	fprintf(out,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"lane\"/>\n",
		LEFT, y0, PLOT, HIST_H);
	for (int p = lo; p <= hi; p++) {
		double x = LEFT + (p - lo) * bw, h;

		if ((p - lo) % step == 0) {
			fmt_ns(buf, sizeof(buf), p ? ldexp(1.0, p - 1) : 0);
			fprintf(out,
				"<text x=\"%.1f\" y=\"%d\" class=\"small\">%s</text>\n",
				x, y0 + HIST_H + 15, buf);
		}
		if (!bins[p])
			continue;
		h = (HIST_H - 10) * log1p((double)bins[p]) /
		    log1p((double)maxc);
		fprintf(out,
			"<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\"><title>%llu holds of 2^%d to 2^%d ns</title></rect>\n",
			x + 1, y0 + HIST_H - h, bw - 2, h, bins[p],
			p ? p - 1 : 0, p);
	}
}

void report_svg(FILE *out, struct report_ctx *rc)
{
	struct stats *st = rc->st;
	int ncpu = 0, h, y1;

	for (int c = 0; c < st->ncpus; c++)
		ncpu += st->cpus[c].tl != NULL;
	y1 = 50 + ncpu * LANE + 60;
	h = y1 + HIST_H + 40;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		"<style>.title{font:bold 14px sans-serif}"
		".label{font:12px sans-serif}.small{font:10px sans-serif}"
		".lane{fill:#f4f4f4;stroke:#ccc}.depth{fill:none;stroke:#c03;stroke-width:1}"
		".mean{fill:none;stroke:#393;stroke-width:1}.bar{fill:#36c}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, h, W, h);
	timeline(out, st, 50);
	holds(out, st, y1);
	fprintf(out, "</svg>\n");
}
