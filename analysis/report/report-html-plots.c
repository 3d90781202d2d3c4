/*
 * The HTML report's pictures: every call into the plot library (plot.h)
 * the report makes is here, so that a change of that library's API is a
 * change of this file alone. Each picture is drawn by gnuplot into the
 * page's temporary directory and its SVG put into the page inline
 * (html_svg_inline()), with its caption.
 */
#include "report/report-html-internal.h"
#include "plot/plot.h"
#include "plot/plot-runs.h"
#include "run/runflip.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A picture's output: FIG (ids fN-) in the work directory. */
static struct plot_out figure_out(struct html_page *p, char *name, size_t size)
{
	snprintf(name, size, "f%u", ++p->figures);
	return (struct plot_out){ .dir = p->workdir, .name = name, .gnuplot = p->o->gnuplot };
}

/* The drawn picture into the page (and its files out of the way). */
static int figure_write(struct html_page *p, const struct plot_out *out, const char *caption,
			struct strbuf *err)
{
	char *svg_path = xasprintf("%s/%s.svg", out->dir, out->name);
	char *png_path = xasprintf("%s/%s.png", out->dir, out->name);
	char *prefix = xasprintf("%s-", out->name), *svg = NULL, *inl = NULL;
	size_t len;
	int r = read_file(svg_path, &svg, &len);

	if (r < 0) {
		strbuf_addf(err, "cannot read the picture '%s': %s", svg_path, strerror(-r));
		goto out;
	}
	inl = html_svg_inline(svg, prefix);
	if (!inl) {
		strbuf_addf(err, "'%s' holds no <svg> element", svg_path);
		r = -EINVAL;
		goto out;
	}
	fprintf(p->out, "<figure id=\"%s\">\n%s\n<figcaption>", out->name, inl);
	html_escape(p->out, caption);
	fputs("</figcaption>\n</figure>\n", p->out);
out:
	unlink(svg_path);
	unlink(png_path);
	free(svg_path);
	free(png_path);
	free(prefix);
	free(svg);
	free(inl);
	return r;
}

/* The runs' pictures' data (plot-runs.h, the same as `hitchbench plot`'s:
 * labels, the report's numbers in the legends, group colours). */
static int fill(struct html_page *p, const struct run *const *runs, size_t n, unsigned group,
		struct plot_runs *pr, struct strbuf *err)
{
	int r = plot_runs_fill(pr, runs, n, &p->ro->metric, err);

	/* the page's group, so that a group has one hue in every picture */
	for (size_t i = 0; r == 0 && i < pr->n_runs; i++)
		pr->frames[i].style.group = pr->runs[i].style.group = group;
	for (size_t g = 0; r == 0 && g < pr->n_groups; g++)
		pr->groups[g].style.group = group;
	return r;
}

int html_figure_frames(struct html_page *p, const struct run *run, unsigned group,
		       const char *caption, struct strbuf *err)
{
	char name[32];
	struct plot_out out = figure_out(p, name, sizeof(name));
	struct plot_runs pr;
	char *title = plot_runs_title(&run, 1, "frame times");
	int r = fill(p, &run, 1, group, &pr, err);

	if (r == 0) {
		struct plot_frames f = { .title = title, .runs = pr.frames, .n_runs = 1,
					 .stall_ms = p->ro->metric.stall_ms };

		r = plot_frames(&out, &f, err);
		plot_runs_release(&pr);
	}
	if (r == 0)
		r = figure_write(p, &out, caption, err);
	free(title);
	return r;
}

int html_figure_flip(struct html_page *p, const struct run *run, const struct run_flip *f,
		     const char *caption, struct strbuf *err)
{
	char name[32], *la = xasprintf("A: %s", f->rec.a), *lb = xasprintf("B: %s", f->rec.b);
	char *title = xasprintf("%s: flip of %s, segment fps and the running estimate", run->name,
				f->rec.switch_name);
	struct plot_out out = figure_out(p, name, sizeof(name));
	struct plot_flip_seg *segs = zalloc(sizeof(*segs) * (f->n_segs ? f->n_segs : 1));
	size_t nb = f->n_blocks ? f->n_blocks : 1, n = 0;
	double *est = zalloc(sizeof(double) * nb), *lo = zalloc(sizeof(double) * nb);
	double *hi = zalloc(sizeof(double) * nb), sum = 0, sumsq = 0;
	uint64_t t0 = run->frames.t_ns[0];
	int r;

	for (size_t i = 0; i < f->n_segs; i++)
		if (f->segs[i].counted)
			segs[n++] = (struct plot_flip_seg){ (double)(f->rec.ev[i].applied_ns - t0) / 1e9,
							    1000.0 / exp(f->segs[i].log_ft), f->segs[i].side };
	/* after block k: the mean so far and mean +- 1.96 x sd / sqrt(k) */
	for (size_t k = 0; k < f->n_blocks; k++) {
		double m, v;

		sum += f->blocks[k];
		sumsq += f->blocks[k] * f->blocks[k];
		m = sum / (double)(k + 1);
		est[k] = (exp(m) - 1) * 100;
		lo[k] = hi[k] = NAN;
		if (k > 0) {
			v = (sumsq - (double)(k + 1) * m * m) / (double)k;
			v = v > 0 ? sqrt(v / (double)(k + 1)) : 0;
			lo[k] = (exp(m - 1.96 * v) - 1) * 100;
			hi[k] = (exp(m + 1.96 * v) - 1) * 100;
		}
	}
	if (!n) {
		strbuf_addstr(err, "no counted segment");
		r = -ENODATA;
	} else {
		struct plot_flip pf = { .title = title, .label_a = la, .label_b = lb, .segs = segs, .n_segs = n,
					.est_pct = est, .lo_pct = lo, .hi_pct = hi, .n_est = f->n_blocks };

		r = plot_flip(&out, &pf, err);
	}
	if (r == 0)
		r = figure_write(p, &out, caption, err);
	free(segs);
	free(est);
	free(lo);
	free(hi);
	free(title);
	free(la);
	free(lb);
	return r;
}

/* A picture of series: a group's runs' windows (percentiles: a curve
 * each) or their frames pooled (histogram). */
static int figure_series(struct html_page *p, const struct run *const *runs, size_t n,
			 unsigned group, bool histogram, const char *caption, struct strbuf *err)
{
	char name[32];
	struct plot_out out = figure_out(p, name, sizeof(name));
	struct plot_runs pr;
	char *title = plot_runs_title(runs, n, histogram ? "frame-time histogram of the measured windows"
							 : "frame-time percentiles of each run's measured window");
	int r = fill(p, runs, n, group, &pr, err);
	const struct plot_series *all = histogram ? pr.groups : pr.runs;
	size_t n_all = r < 0 ? 0 : histogram ? pr.n_groups : pr.n_runs, k = 0;
	struct plot_series *some = zalloc((n_all + 1) * sizeof(*some));

	/* a series without frames in its window is left out, as plot does */
	for (size_t i = 0; i < n_all; i++)
		if (all[i].n)
			some[k++] = all[i];
	if (r == 0 && !k) {
		strbuf_addstr(err, "no frames in the measured windows");
		r = -ENODATA;
	}
	if (r == 0 && histogram)
		r = plot_histogram(&out, title, some, k, p->ro->metric.stall_ms, err);
	else if (r == 0)
		r = plot_percentiles(&out, title, some, k, p->ro->metric.stall_ms, err);
	/* (plot_runs_fill() zeroes pr first: released whatever it returned) */
	plot_runs_release(&pr);
	free(some);
	if (r == 0)
		r = figure_write(p, &out, caption, err);
	free(title);
	return r;
}

int html_figure_percentiles(struct html_page *p, const struct run *const *runs, size_t n,
			    unsigned group, const char *caption, struct strbuf *err)
{
	return figure_series(p, runs, n, group, false, caption, err);
}

int html_figure_histogram(struct html_page *p, const struct run *const *runs, size_t n,
			  unsigned group, const char *caption, struct strbuf *err)
{
	return figure_series(p, runs, n, group, true, caption, err);
}
