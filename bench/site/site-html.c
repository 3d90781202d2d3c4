/*
 * The site's HTML parts: every page's head and foot (the report's style
 * sheet, report-html.h, and the site's few additions), and its pictures,
 * drawn here as SVG rather than by gnuplot because each point is a link
 * (an SVG <a>), which a picture gnuplot draws cannot hold. Everything from
 * the database goes through html_escape(); file names through
 * site_file_name().
 */
#include "site/site-internal.h"
#include "report/report-html.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char site_style[] =
	"svg.trend{width:100%;max-width:1000px;height:auto;display:block;border:1px solid #e0e0e8}\n"
	"svg.trend text{font:11px sans-serif;fill:#333}\n"
	"svg.trend a:hover circle{r:6}\n"
	".new{color:#9a1c1c;font-weight:bold}.worse{color:#9a1c1c}.better{color:#17602a}\n"
	"footer{margin-top:3em;font-size:.85em;color:#555}\n";

const char *site_root(int depth)
{
	static const char ups[] = "../../../../../../../../";

	if (depth <= 0)
		return "";
	if (depth > 8)
		depth = 8;
	return ups + sizeof(ups) - 1 - 3 * (size_t)depth;
}

void site_html_head(FILE *f, const char *title, const char *root, const struct site_opts *o)
{
	(void)o;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
	html_escape(f, title);
	fputs("</title>\n<style>\n", f);
	fputs(report_html_style, f);
	fputs(site_style, f);
	fprintf(f, "</style>\n</head>\n<body>\n<nav><a href=\"%sindex.html\">hitchbench lab: index</a></nav>\n<h1>",
		root);
	html_escape(f, title);
	fputs("</h1>\n", f);
}

void site_html_foot(FILE *f, const struct site_opts *o)
{
	fputs("<footer>Made by ", f);
	html_escape(f, o->generator);
	fputs(" (hitchbench site) from the results database; plain HTML and SVG, no script, nothing "
	      "fetched from elsewhere. docs/site.md says how each number is computed.</footer>\n"
	      "</body>\n</html>\n", f);
}

void site_html_number(FILE *f, double v, int decimals)
{
	if (!isfinite(v))
		fputs("-", f);
	else
		fprintf(f, "%.*f", decimals, v);
}

/* The picture's frame. */
#define SVG_W 960.0
#define SVG_H 300.0
#define SVG_L 72.0
#define SVG_R 16.0
#define SVG_T 18.0
#define SVG_B 64.0

struct axis {
	double lo, hi;
	size_t n;               /* points across */
};

static double ax_x(const struct axis *a, size_t i)
{
	return SVG_L + ((double)i + 0.5) * (SVG_W - SVG_L - SVG_R) / (double)(a->n ? a->n : 1);
}

static double ax_y(const struct axis *a, double v)
{
	return SVG_T + (a->hi - v) / (a->hi - a->lo) * (SVG_H - SVG_T - SVG_B);
}

static void axis_fit(struct axis *a)
{
	double pad;

	if (!isfinite(a->lo) || !isfinite(a->hi)) {
		a->lo = 0, a->hi = 1;
		return;
	}
	pad = (a->hi - a->lo) * 0.08;
	if (pad <= 0)
		pad = fabs(a->hi) > 0 ? fabs(a->hi) * 0.05 : 1.0;
	a->lo -= pad;
	a->hi += pad;
}

/* The value axis: five labels and their grid lines. */
static void draw_y_axis(FILE *f, const struct axis *a, int decimals, const char *name)
{
	for (int k = 0; k <= 4; k++) {
		double v = a->lo + (a->hi - a->lo) * k / 4.0, y = ax_y(a, v);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>", SVG_L, y,
			SVG_W - SVG_R, y);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", SVG_L - 6, y + 4);
		site_html_number(f, v, decimals);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 14 %.1f)\" text-anchor=\"middle\">",
		(SVG_H - SVG_B + SVG_T) / 2, (SVG_H - SVG_B + SVG_T) / 2);
	html_escape(f, name);
	fputs("</text>\n", f);
}

/* A kernel's first point: a boundary line and the kernel's name, unless
 * the last name is too near. */
static void draw_kernels(FILE *f, const struct axis *a, const struct site_series *s)
{
	double last_label = -1e9;

	for (size_t i = 0; i < s->n_points; i++) {
		double x = ax_x(a, i) - (SVG_W - SVG_L - SVG_R) / (double)a->n / 2;

		if (i > 0 && !strcmp(s->points[i].kernel, s->points[i - 1].kernel))
			continue;
		if (i > 0)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#bbb\" "
				   "stroke-dasharray=\"2,3\"/>", x, SVG_T, x, SVG_H - SVG_B);
		if (x - last_label < 64)
			continue;
		last_label = x;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(30 %.1f %.1f)\">", x + 2,
			SVG_H - SVG_B + 14, x + 2, SVG_H - SVG_B + 14);
		html_escape(f, s->points[i].kernel);
		fputs("</text>\n", f);
	}
}

void site_svg_trend(FILE *f, const struct site_model *m, const struct site_series *s,
		    const struct site_point_stats *ps, size_t v, const struct site_change *changes,
		    size_t n_changes, const char *root)
{
	const int decimals = metric_defs[metric_lookup(m->metric_names[v])].decimals + 1;
	struct axis a = { INFINITY, -INFINITY, s->n_points };
	size_t seg_from = 0;

	for (size_t i = 0; i < s->n_points; i++) {
		if (ps[i].n) {
			a.lo = fmin(a.lo, ps[i].min);
			a.hi = fmax(a.hi, ps[i].max);
		}
	}
	axis_fit(&a);
	fprintf(f, "<svg class=\"trend\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
		   "role=\"img\">\n", SVG_W, SVG_H);
	draw_y_axis(f, &a, decimals, m->metric_names[v]);
	draw_kernels(f, &a, s);
	/* the change points, and the median of each segment between them */
	for (size_t i = 0; i <= s->n_points; i++) {
		const struct site_change *c = NULL;

		for (size_t k = 0; i < s->n_points && k < n_changes; k++)
			if (!strcmp(changes[k].batch_after, s->points[i].href_from_root))
				c = &changes[k];
		if (!c && i < s->n_points)
			continue;
		if (i > seg_from) {
			double *x = zalloc(sizeof(*x) * (i - seg_from)), med;
			size_t n = 0;

			for (size_t k = seg_from; k < i; k++)
				if (ps[k].n)
					x[n++] = ps[k].median;
			if (n) {
				med = stats_median(x, n);
				fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#5a7fd6\" "
					   "stroke-width=\"2\" opacity=\"0.6\"/>\n", ax_x(&a, seg_from) - 4,
					ax_y(&a, med), ax_x(&a, i - 1) + 4, ax_y(&a, med));
			}
			free(x);
		}
		seg_from = i;
		if (c) {
			double x = ax_x(&a, i) - (SVG_W - SVG_L - SVG_R) / (double)a.n / 2;

			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c33\" "
				   "stroke-width=\"2\"/>", x, SVG_T, x, SVG_H - SVG_B);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c33\" style=\"fill:#c33\">", x + 3, SVG_T + 10);
			if (isfinite(c->percent))
				fprintf(f, "%+.1f%%", c->percent);
			else
				fputs("change", f);
			fputs("</text>\n", f);
		}
	}
	for (size_t i = 0; i < s->n_points; i++) {
		const struct site_point *p = &s->points[i];
		double x = ax_x(&a, i);

		if (!ps[i].n)
			continue;
		fprintf(f, "<a href=\"%s%s\"><title>", root, p->href_from_root);
		html_escape(f, p->batch ? p->batch : "runs of no batch");
		fputs(", kernel ", f);
		html_escape(f, p->kernel);
		fputs(": median ", f);
		site_html_number(f, ps[i].median, decimals);
		fputs(" (min ", f);
		site_html_number(f, ps[i].min, decimals);
		fputs(", max ", f);
		site_html_number(f, ps[i].max, decimals);
		fprintf(f, ", %zu run%s)</title>", ps[i].n, ps[i].n == 1 ? "" : "s");
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#223\" "
			   "stroke-width=\"1.5\"/>", x, ax_y(&a, ps[i].min), x, ax_y(&a, ps[i].max));
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#223\"/></a>\n", x,
			ax_y(&a, ps[i].median));
	}
	fputs("</svg>\n", f);
}

/* A batch's median of value v over all its runs that have it (noise is
 * the machine's, whether or not the run counts). NAN when none has. */
static double batch_median(const struct site_model *m, const struct site_batch *b, size_t v)
{
	double *x = zalloc(sizeof(*x) * (b->n_runs + 1)), med = NAN;
	size_t n = 0;

	for (size_t i = 0; i < b->n_runs; i++)
		if (m->runs[b->runs[i]].have[v])
			x[n++] = m->runs[b->runs[i]].v[v];
	if (n)
		med = stats_median(x, n);
	free(x);
	return med;
}

static int cmp_batch_started(const void *x, const void *y)
{
	const struct site_batch *a = *(const struct site_batch *const *)x, *b = *(const struct site_batch *const *)y;

	if (!a->started || !b->started)
		return !!a->started - !!b->started;
	return strcmp(a->started, b->started);
}

void site_svg_noise(FILE *f, const struct site_model *m, const struct site_machine *mach,
		    const char *root)
{
	static const char *const colour[SITE_NOISE_METRICS] = { "#c05a00", "#2a6fb0" };
	const struct site_batch **bs = zalloc(sizeof(*bs) * (m->n_batches + 1));
	struct axis a = { 0, -INFINITY, 0 };
	size_t n = 0, drawn = 0;
	double *med;                    /* [i * SITE_NOISE_METRICS + k] */

	for (size_t i = 0; i < m->n_batches; i++)
		if (m->batches[i].machine && !strcmp(m->batches[i].machine, mach->key))
			bs[n++] = &m->batches[i];
	if (n)
		qsort(bs, n, sizeof(*bs), cmp_batch_started);
	a.n = n;
	med = zalloc(sizeof(*med) * (n * SITE_NOISE_METRICS + 1));
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < SITE_NOISE_METRICS; k++) {
			double v = batch_median(m, bs[i], m->o->n_metrics + k);

			med[i * SITE_NOISE_METRICS + k] = v;
			if (isfinite(v)) {
				a.hi = fmax(a.hi, v);
				drawn++;
			}
		}
	if (!drawn) {
		fputs("<p class=\"note\">No run of this machine says its host's noise (bench.txt "
		      "noise.steal_pct, noise.foreign_cpu_pct: runs made before hitchbench sampled it).</p>\n", f);
		free(med);
		free(bs);
		return;
	}
	if (a.hi <= 0)
		a.hi = 1;
	a.hi *= 1.08;
	fprintf(f, "<svg class=\"trend\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
		   "role=\"img\">\n", SVG_W, SVG_H);
	draw_y_axis(f, &a, 1, "% of CPU time");
	for (size_t k = 0; k < SITE_NOISE_METRICS; k++) {
		const char *name = m->metric_names[m->o->n_metrics + k];

		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" style=\"fill:%s\">", SVG_L + 8 + 180.0 * (double)k,
			SVG_H - 8, colour[k]);
		html_escape(f, name);
		fputs(" (batch median)</text>\n", f);
		for (size_t i = 0; i < n; i++) {
			double v = med[i * SITE_NOISE_METRICS + k];

			if (!isfinite(v))
				continue;
			fprintf(f, "<a href=\"%s%s\"><title>", root, bs[i]->href_from_root);
			html_escape(f, bs[i]->b ? bs[i]->b->uuid : "runs of no batch");
			fputs(": ", f);
			html_escape(f, name);
			fputs(" ", f);
			site_html_number(f, v, 2);
			fprintf(f, "</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/></a>\n", ax_x(&a, i),
				ax_y(&a, v), colour[k]);
		}
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">batches in start order: ", SVG_W - SVG_R,
		SVG_H - 8);
	html_escape(f, bs[0]->started ? bs[0]->started : "-");
	fputs(" .. ", f);
	html_escape(f, bs[n - 1]->started ? bs[n - 1]->started : "-");
	fputs("</text>\n</svg>\n", f);
	free(med);
	free(bs);
}
