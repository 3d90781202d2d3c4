/*
 * The HTML report's pictures: every call into the plot library (plot.h)
 * the report makes is here, so that a change of that library's API is a
 * change of this file alone. Each picture is drawn by gnuplot into the
 * page's temporary directory and its SVG put into the page inline
 * (html_svg_inline()), with its caption.
 */
#include "report-html-internal.h"
#include "plot.h"
#include "plot-run.h"

#include <errno.h>
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

int html_figure_frames(struct html_page *p, const struct run *run, const char *caption,
		       struct strbuf *err)
{
	const char *run_name = kvfile_get(&run->bench, "run_name");
	char name[32];
	struct plot_out out = figure_out(p, name, sizeof(name));
	char *title = xasprintf("%s %s: %s", run->game ? run->game : "-",
				run_name ? run_name : run->variant ? run->variant : "-", run->name);
	struct plot_frames f;
	int r = plot_run_frames(run, p->ro->metric.gamedb_dirs, title, p->ro->metric.stall_ms, &f);

	if (r < 0)
		strbuf_addstr(err, "fewer than two frames to draw");
	else
		r = plot_frames(&out, &f, err);
	if (r == 0)
		r = figure_write(p, &out, caption, err);
	if (f.t_s)
		plot_run_frames_release(&f);
	free(title);
	return r;
}

int html_figure_percentiles(struct html_page *p, const char *title, const struct html_curve *c,
			    size_t n, const char *caption, struct strbuf *err)
{
	struct plot_series *s = zalloc((n ? n : 1) * sizeof(*s));
	char name[32];
	struct plot_out out = figure_out(p, name, sizeof(name));
	int r;

	for (size_t i = 0; i < n; i++)
		s[i] = (struct plot_series){ c[i].label, c[i].ms, c[i].n };
	r = plot_percentiles(&out, title, s, n, err);
	if (r == 0)
		r = figure_write(p, &out, caption, err);
	free(s);
	return r;
}

/*
 * WAITING FOR plot_histogram(): plot.h has no histogram yet; the change
 * that adds it (issue 22's "plots that compare") is merged with this one,
 * and this function then pools the curves' frame times, calls it and
 * writes the figure as the two above do. Until then nothing is drawn and
 * the page says so; no picture is made up.
 */
int html_figure_histogram(struct html_page *p, const char *title, const struct html_curve *c,
			  size_t n, const char *caption, struct strbuf *err)
{
	(void)p, (void)title, (void)c, (void)n, (void)caption;
	strbuf_addstr(err, "this build's plot library has no histogram (plot_histogram() is to come)");
	return -ENOSYS;
}
