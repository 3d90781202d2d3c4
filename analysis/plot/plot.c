/*
 * Pictures drawn by gnuplot (see plot.h): a script and data files in a
 * temporary directory, gnuplot run there as a child, a PNG and an SVG out.
 * gnuplot draws; everything computed (percentile curves, stall marks,
 * positions of count labels) is computed in C, where tests reach it. This
 * file: what every picture shares, the matrix and the trend; the
 * frame-time pictures are analysis/plot/plot-frames.c's.
 */
#include "plot/plot.h"
#include "plot/plot-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *plot_metric_unit(const char *metric)
{
	size_t len = strlen(metric);

	if (len > 3 && !strcmp(metric + len - 3, "_ms"))
		return "ms";
	if (len > 2 && !strcmp(metric + len - 2, "_s"))
		return "s";
	if (strstr(metric, "fps") || str_startswith(metric, "low"))
		return "frames/s";
	if (!strcmp(metric, "frames") || !strcmp(metric, "stalls"))
		return "count";
	return "";
}

void plot_add_str(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_addch(sb, '\\');
		if (*s == '\n') {
			strbuf_addstr(sb, "\\n");
			continue;
		}
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

/* A string field of a data file: double-quoted, no quote or line break
 * inside (gnuplot's data files have no escapes). */
static void add_field(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++)
		strbuf_addch(sb, *s == '"' ? '\'' : (*s == '\n' || *s == '\t') ? ' ' : *s);
	strbuf_addch(sb, '"');
}

static char *axis_label(const char *metric)
{
	const char *unit = plot_metric_unit(metric);

	return *unit ? xasprintf("%s (%s)", metric, unit) : xstrdup(metric);
}

int plot_write_text(const char *dir, const char *name, const char *suffix, const struct strbuf *sb)
{
	char *path = xasprintf("%s/%s%s", dir, name, suffix);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int r;

	free(path);
	if (fd < 0)
		return -errno;
	r = write_all(fd, sb->buf ? sb->buf : "", sb->len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

void plot_script_begin(struct strbuf *gp, const struct plot_out *out, int width, int height)
{
	strbuf_addf(gp, "# hitchbench plot: %s (gnuplot 5)\n", out->name);
	strbuf_addstr(gp, "set encoding utf8\n");
	strbuf_addf(gp, "set terminal pngcairo size %d,%d font '%s' noenhanced\n", width, height, PLOT_FONT);
	strbuf_addstr(gp, "set output ");
	{
		char *png = xasprintf("%s/%s.png", out->dir, out->name);

		plot_add_str(gp, png);
		free(png);
	}
	strbuf_addstr(gp, "\nset grid ytics lc rgb '#dddddd'\n"
			  "set border 3\nset tics nomirror\n"
			  "set key opaque box lc rgb '#bbbbbb' Left reverse\n");
}

/* gnuplot's svg terminal without "mouse" writes no <script> (mouse would
 * link gnuplot_svg.js, a file beside gnuplot, not in the picture). */
void plot_script_end(struct strbuf *gp, const struct plot_out *out, int width, int height)
{
	plot_script_end_with(gp, out, width, height, "replot");
}

void plot_script_end_with(struct strbuf *gp, const struct plot_out *out, int width, int height,
			  const char *again)
{
	char *svg = xasprintf("%s/%s.svg", out->dir, out->name);

	strbuf_addf(gp, "set terminal svg size %d,%d font '%s' noenhanced background '#ffffff'\n",
		    width, height, PLOT_FONT);
	strbuf_addstr(gp, "set output ");
	plot_add_str(gp, svg);
	strbuf_addf(gp, "\n%s\nset output\n", again);
	free(svg);
}

/* ---- a metric's matrix ---- */

#define MATRIX_GAP 1 /* gnuplot's histogram gap, in bar widths */

/* The bars' data (a row per game / run: each column's median, min, max
 * and n) into dat, and the count labels over them into lab, with the
 * x gnuplot puts each bar at. */
static void matrix_data(const struct plot_matrix *m, double width, struct strbuf *dat,
			struct strbuf *lab)
{
	strbuf_addstr(dat, "# row");
	for (size_t c = 0; c < m->n_cols; c++)
		strbuf_addf(dat, "\t%s: median min max n", m->cols[c]);
	strbuf_addstr(dat, "\n");
	strbuf_addstr(lab, "# x\ty (the max)\tn\n");
	for (size_t i = 0; i < m->n_rows; i++) {
		char *row = xasprintf("%s / %s", m->games[i], m->runs[i]);

		add_field(dat, row);
		free(row);
		for (size_t c = 0; c < m->n_cols; c++) {
			const struct plot_matrix_cell *cell = &m->cells[i * m->n_cols + c];
			/* gnuplot centres row i's cluster on x = i, its bars
			 * 1/(cols + gap) wide side by side */
			double x = (double)i + ((double)c - (double)(m->n_cols - 1) / 2.0) * width;

			if (cell->n == 0) {
				strbuf_addstr(dat, "\t?\t?\t?\t0");
				strbuf_addf(lab, "%.4f\t0\t\"no runs\"\n", x);
				continue;
			}
			strbuf_addf(dat, "\t%.6g\t%.6g\t%.6g\t%d", cell->median, cell->min, cell->max, cell->n);
			strbuf_addf(lab, "%.4f\t%.6g\t\"n=%d\"\n", x, cell->max, cell->n);
		}
		strbuf_addch(dat, '\n');
	}
}

int plot_matrix_write(const struct plot_out *out, const char *workdir, const struct plot_matrix *m)
{
	struct strbuf gp = STRBUF_INIT, dat = STRBUF_INIT, lab = STRBUF_INIT;
	static const char *const colours[] = { "#4c8bd0", "#e8804a", "#5fb35f", "#c36bc3",
					       "#d4b340", "#5ec4c4", "#a0a0a0", "#e06060" };
	double width = 1.0 / (double)(m->n_cols + MATRIX_GAP);
	char *ylabel;
	int r;

	if (m->n_rows == 0 || m->n_cols == 0)
		return -EINVAL;
	matrix_data(m, width, &dat, &lab);

	ylabel = axis_label(m->metric);
	plot_script_begin(&gp, out, PLOT_WIDTH, PLOT_HEIGHT);
	strbuf_addstr(&gp, "set title ");
	{
		char *t = xasprintf("%s: median of each cell's runs, whiskers from min to max, n = runs",
				    m->metric);

		plot_add_str(&gp, t);
		free(t);
	}
	strbuf_addstr(&gp, "\nset ylabel ");
	plot_add_str(&gp, ylabel);
	strbuf_addstr(&gp, "\nset xlabel 'game / run'\n"
			   "set style data histograms\n");
	strbuf_addf(&gp, "set style histogram errorbars gap %d lw 1.5\n", MATRIX_GAP);
	strbuf_addstr(&gp, "set style fill solid 0.8 border -1\n"
			   "set datafile missing '?'\n"
			   "set yrange [0:*]\n"
			   "set offsets 0, 0, graph 0.08, 0\n"
			   "set key outside bottom center horizontal title 'column (batch or kernel)'\n");
	strbuf_addf(&gp, "set xrange [-0.5:%zu.5]\n", m->n_rows - 1);
	if (m->n_rows > 4)
		strbuf_addstr(&gp, "set xtics rotate by -25\n");
	/* room under the axis label for the legend (and turned tic labels) */
	strbuf_addf(&gp, "set bmargin %zu\n", (m->n_rows > 4 ? 9 : 6) + (m->n_cols + 2) / 3);
	strbuf_addstr(&gp, "plot ");
	for (size_t c = 0; c < m->n_cols; c++) {
		strbuf_addf(&gp, "%s'%s-matrix.dat' using %zu:%zu:%zu%s lc rgb '%s' title ",
			    c ? ", \\\n     " : "", out->name, 2 + 4 * c, 3 + 4 * c, 4 + 4 * c,
			    c ? "" : ":xtic(1)", colours[c % ARRAY_SIZE(colours)]);
		plot_add_str(&gp, m->cols[c]);
	}
	strbuf_addf(&gp, ", \\\n     '%s-labels.dat' using 1:2:3 with labels offset 0,0.7 "
		    "font ',9' notitle\n", out->name);
	plot_script_end(&gp, out, PLOT_WIDTH, PLOT_HEIGHT);
	r = plot_write_text(workdir, out->name, ".gp", &gp);
	if (r == 0)
		r = plot_write_text(workdir, out->name, "-matrix.dat", &dat);
	if (r == 0)
		r = plot_write_text(workdir, out->name, "-labels.dat", &lab);
	free(ylabel);
	strbuf_release(&gp);
	strbuf_release(&dat);
	strbuf_release(&lab);
	return r;
}

/* ---- a metric over kernel versions ---- */

int plot_trend_write(const struct plot_out *out, const char *workdir, const char *metric,
		     const struct plot_trend_point *pts, size_t n)
{
	struct strbuf gp = STRBUF_INIT, dat = STRBUF_INIT;
	const char *unit = plot_metric_unit(metric);
	char *ylabel;
	size_t changes = 0;
	int r;

	if (n == 0)
		return -EINVAL;
	strbuf_addstr(&dat, "# i\tkernel\tmedian\tmin\tmax\tn\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(&dat, "%zu\t", i);
		add_field(&dat, pts[i].kernel);
		strbuf_addf(&dat, "\t%.6g\t%.6g\t%.6g\t%d\n", pts[i].median, pts[i].min, pts[i].max,
			    pts[i].n);
	}

	ylabel = axis_label(metric);
	plot_script_begin(&gp, out, PLOT_WIDTH, PLOT_HEIGHT);
	strbuf_addstr(&gp, "set title ");
	{
		char *t = xasprintf("%s over kernel versions: median of the runs, bars from min to max",
				    metric);

		plot_add_str(&gp, t);
		free(t);
	}
	strbuf_addstr(&gp, "\nset ylabel ");
	plot_add_str(&gp, ylabel);
	strbuf_addstr(&gp, "\nset xlabel 'kernel (in the order given)'\n");
	strbuf_addf(&gp, "set xrange [-0.5:%zu.5]\n", n - 1);
	strbuf_addstr(&gp, "set offsets 0, 0, graph 0.2, graph 0.05\n"
			   "set key outside bottom center horizontal\n");
	if (n > 5)
		strbuf_addstr(&gp, "set xtics rotate by -25\n");
	strbuf_addf(&gp, "set bmargin %d\nset rmargin %d\n", n > 5 ? 9 : 6, n > 5 ? 8 : 4);
	for (size_t i = 0; i < n; i++) {
		char *text;

		if (!pts[i].change || i == 0)
			continue;
		changes++;
		/* the change happened between the previous kernel and this one */
		strbuf_addf(&gp, "set arrow %zu from %zu.5, graph 0 to %zu.5, graph 1 nohead "
			    "dt 2 lw 2 lc rgb '#d62728' front\n", changes, i - 1, i - 1);
		text = xasprintf("%+.3g%s%s\np = %.2g", pts[i].magnitude, *unit ? " " : "", unit, pts[i].p);
		strbuf_addf(&gp, "set label %zu ", changes);
		plot_add_str(&gp, text);
		strbuf_addf(&gp, " at %zu.5, graph 0.97 left offset 0.5,0 tc rgb '#d62728' front\n", i - 1);
		free(text);
	}
	strbuf_addf(&gp, "plot '%s-trend.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.3 lw 1.5 "
		    "lc rgb '#1f5fa8' title 'median (bars: min to max)', \\\n"
		    "     '' using 1:3 with lines lw 1 lc rgb '#1f5fa8' notitle, \\\n"
		    "     '' using 1:5:(sprintf('n=%%d', $6)) with labels offset 0,0.8 font ',9' notitle",
		    out->name);
	if (changes)
		strbuf_addstr(&gp, ", \\\n     keyentry with lines dt 2 lw 2 lc rgb '#d62728' "
				   "title 'change point (change of the median, p-value)'");
	strbuf_addch(&gp, '\n');
	plot_script_end(&gp, out, PLOT_WIDTH, PLOT_HEIGHT);
	r = plot_write_text(workdir, out->name, ".gp", &gp);
	if (r == 0)
		r = plot_write_text(workdir, out->name, "-trend.dat", &dat);
	free(ylabel);
	strbuf_release(&gp);
	strbuf_release(&dat);
	return r;
}

/* ---- running gnuplot ---- */

/* Runs GNUPLOT NAME.gp in workdir, its output into workdir/gnuplot.log.
 * 0, or -errno of the exec (-ENOENT: no gnuplot), or -EIO when it failed
 * (its log in err). */
static int run_gnuplot(const struct plot_out *out, const char *workdir, struct strbuf *err)
{
	const char *prog = out->gnuplot;
	char *script = xasprintf("%s.gp", out->name);
	char *log = xasprintf("%s/gnuplot.log", workdir);
	int pfd[2], status, e = 0, r = 0;
	ssize_t got;
	pid_t pid;

	if (!prog)
		prog = getenv("HITCHBENCH_GNUPLOT");
	if (!prog || !*prog)
		prog = "gnuplot";
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		r = -errno;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(pfd[0]);
		close(pfd[1]);
		goto out;
	}
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int null = open("/dev/null", O_RDONLY);

		if (fd < 0 || null < 0 || chdir(workdir) < 0 || dup2(null, 0) < 0 ||
		    dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			e = errno;
		else
			execlp(prog, prog, script, (char *)NULL);
		if (!e)
			e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	do {
		got = read(pfd[0], &e, sizeof(e));
	} while (got < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got == (ssize_t)sizeof(e)) {
		strbuf_addf(err, "cannot run '%s': %s", prog, strerror(e));
		r = -e;
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char *text = NULL;
		size_t len;

		strbuf_addf(err, "'%s' failed on %s", prog, script);
		if (read_file(log, &text, &len) == 0 && len)
			strbuf_addf(err, ":\n%s", str_strip(text));
		free(text);
		r = -EIO;
	}
out:
	free(script);
	free(log);
	return r;
}

static bool nonempty(const char *dir, const char *name, const char *ext)
{
	char *path = xasprintf("%s/%s.%s", dir, name, ext);
	struct stat st;
	bool ok = stat(path, &st) == 0 && st.st_size > 0;

	free(path);
	return ok;
}

/* Makes the output directory and a work directory, writes, draws, and
 * checks that both pictures came out. */
int plot_draw(const struct plot_out *given, plot_writer write, const void *arg, struct strbuf *err)
{
	const char *tmp = getenv("TMPDIR");
	char abs[PATH_MAX];
	char *work = xasprintf("%s/hitchbench-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	struct plot_out out = *given;
	int r;

	if (!out.name || !*out.name || strchr(out.name, '/')) {
		strbuf_addf(err, "bad picture name '%s'", out.name ? out.name : "");
		free(work);
		return -EINVAL;
	}
	r = mkdir_p(out.dir, 0755);
	if (r < 0) {
		strbuf_addf(err, "cannot create '%s': %s", out.dir, strerror(-r));
		free(work);
		return r;
	}
	if (!realpath(out.dir, abs)) {
		r = -errno;
		strbuf_addf(err, "cannot resolve '%s': %s", out.dir, strerror(errno));
		free(work);
		return r;
	}
	out.dir = abs;
	if (!mkdtemp(work)) {
		r = -errno;
		strbuf_addf(err, "cannot create a work directory '%s': %s", work, strerror(errno));
		free(work);
		return r;
	}
	r = write(&out, work, arg);
	if (r == -EINVAL)
		strbuf_addstr(err, "nothing to plot");
	else if (r < 0)
		strbuf_addf(err, "cannot write the gnuplot script in '%s': %s", work, strerror(-r));
	if (r == 0)
		r = run_gnuplot(&out, work, err);
	if (r == 0 && (!nonempty(abs, out.name, "png") || !nonempty(abs, out.name, "svg"))) {
		strbuf_addf(err, "gnuplot wrote no %s/%s.png or .svg", abs, out.name);
		r = -EIO;
	}
	remove_tree(work);
	free(work);
	return r;
}

static int write_matrix_cb(const struct plot_out *out, const char *workdir, const void *arg)
{
	return plot_matrix_write(out, workdir, arg);
}

int plot_matrix(const struct plot_out *out, const struct plot_matrix *m, struct strbuf *err)
{
	return plot_draw(out, write_matrix_cb, m, err);
}

struct trend_args {
	const char *metric;
	const struct plot_trend_point *pts;
	size_t n;
};

static int write_trend_cb(const struct plot_out *out, const char *workdir, const void *arg)
{
	const struct trend_args *a = arg;

	return plot_trend_write(out, workdir, a->metric, a->pts, a->n);
}

int plot_trend(const struct plot_out *out, const char *metric,
	       const struct plot_trend_point *pts, size_t n, struct strbuf *err)
{
	struct trend_args a = { metric, pts, n };

	return plot_draw(out, write_trend_cb, &a, err);
}
