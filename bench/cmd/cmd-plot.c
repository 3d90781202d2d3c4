/*
 * hitchbench plot: pictures of runs, matrices and kernel trends (PNG and
 * SVG, drawn by gnuplot through analysis/plot/plot.c). This file only gathers
 * the data (run directories, a matrix CSV, a trend TSV) and names the
 * files; what each picture shows is in docs/plots.md.
 */
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "plot/plot.h"
#include "plot/plot-inputs.h"
#include "plot/plot-runs.h"
#include "run/run.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char plot_usage[] =
	"usage: hitchbench plot frames RUNDIR... [--stall-ms MS] [--out DIR] [--name NAME] [--title TEXT]\n"
	"       hitchbench plot percentiles RUNDIR... [--stall-ms MS] [--out DIR] [--name NAME] [--title TEXT]\n"
	"       hitchbench plot histogram RUNDIR... [--stall-ms MS] [--out DIR] [--name NAME] [--title TEXT]\n"
	"       hitchbench plot matrix METRIC.csv [--out DIR] [--name NAME]\n"
	"       hitchbench plot trend METRIC.tsv [--metric NAME] [--out DIR] [--name NAME]\n"
	"\n"
	"  draws NAME.png and NAME.svg into DIR (default results/plots) with gnuplot\n"
	"  and prints the paths written:\n"
	"    frames       runs' frame times over time, drawn over each other: stalls\n"
	"                 marked, warm-up shaded, each run's window numbers in the\n"
	"                 legend (NAME: frames-RUN for one run, else frames)\n"
	"    percentiles  frame-time percentile curves of the runs' measured windows,\n"
	"                 one per run, on a tail-stretching axis (NAME: percentiles)\n"
	"    histogram    frame-time histogram of the measured windows, one outline\n"
	"                 per group (game and run name), its runs pooled (NAME: histogram)\n"
	"  a batch directory or results/runs is every run in it; runs of one group\n"
	"  share a colour; --stall-ms: the stall threshold, default 100, as the report's\n"
	"    matrix       a metric's matrix (results/matrix/METRIC.csv): bars of the\n"
	"                 medians, whiskers from min to max (NAME: matrix-METRIC)\n"
	"    trend        a metric over kernel versions ('regress --format tsv'):\n"
	"                 medians, min-max bars, change points (NAME: trend-METRIC;\n"
	"                 the metric is the file's name unless --metric)\n"
	"  $HITCHBENCH_GNUPLOT names another gnuplot program.\n";

struct plot_args {
	const char *kind;
	char *out_dir;
	const char *name;
	const char *title;
	const char *metric;
	double stall_ms;
	char **inputs;
	int n_inputs;
	const char *const *gamedb_dirs;
};

static int parse_args(int argc, char **argv, struct context *ctx, struct plot_args *a)
{
	a->gamedb_dirs = (const char *const *)ctx->gamedb_dirs;
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "name", required_argument, NULL, 'n' },
		{ "title", required_argument, NULL, 't' },
		{ "metric", required_argument, NULL, 'm' },
		{ "stall-ms", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct metric_opts mo = METRIC_OPTS_DEFAULT;
	int c, id;

	memset(a, 0, sizeof(*a));
	a->stall_ms = mo.stall_ms;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			free(a->out_dir);
			a->out_dir = xstrdup(optarg);
			break;
		case 'n':
			a->name = optarg;
			break;
		case 't':
			a->title = optarg;
			break;
		case 'm':
			if (metric_arg(plot_usage, optarg, &id) != HB_EXIT_OK)
				return HB_EXIT_USAGE;
			a->metric = optarg;
			break;
		case 's':
			if (safe_atod(optarg, &a->stall_ms) < 0 || !(a->stall_ms > 0))
				return usage_error(plot_usage, "--stall-ms wants milliseconds over 0, not '%s'",
						   optarg);
			break;
		case 'h':
			fputs(plot_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(plot_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error(plot_usage, "plot wants a kind: frames, percentiles, histogram, matrix or trend");
	a->kind = argv[optind++];
	a->inputs = argv + optind;
	a->n_inputs = argc - optind;
	if (a->name && (!*a->name || strchr(a->name, '/')))
		return usage_error(plot_usage, "--name wants a file name without '/', not '%s'", a->name);
	if (!a->out_dir)
		a->out_dir = xasprintf("%s/plots", ctx->results_dir);
	return HB_EXIT_OK;
}

static int report(const struct plot_out *out, int r, struct strbuf *err)
{
	if (r < 0) {
		error_msg("cannot draw %s: %s", out->name, err->buf ? err->buf : strerror(-r));
		return HB_EXIT_FAILURE;
	}
	printf("%s/%s.png\n%s/%s.svg\n", out->dir, out->name, out->dir, out->name);
	return HB_EXIT_OK;
}

/* Loaded runs and their pictures' data (analysis/plot/plot-runs.h). */
struct loaded_runs {
	struct argv_list dirs;
	struct run *runs;
	const struct run **ptrs;
	size_t n;
	struct plot_runs pr;
	bool filled;
};

static void loaded_release(struct loaded_runs *l)
{
	if (l->filled)
		plot_runs_release(&l->pr);
	for (size_t i = 0; i < l->n; i++)
		run_release(&l->runs[i]);
	free(l->runs);
	free(l->ptrs);
	argv_release(&l->dirs);
}

/* The run directories given (a batch directory or results/runs: every run
 * in it), loaded, and their pictures' data: HB_EXIT_OK, or the exit code
 * after saying why not (a run without frames: 1). */
static int load_runs(struct plot_args *a, struct loaded_runs *l)
{
	struct metric_opts mo = METRIC_OPTS_DEFAULT;
	struct strbuf err = STRBUF_INIT;
	int rc;

	memset(l, 0, sizeof(*l));
	argv_init(&l->dirs);
	rc = rundir_args_expand(a->inputs, a->n_inputs, &l->dirs);
	if (rc != HB_EXIT_OK)
		return rc;
	l->runs = zalloc((l->dirs.n + 1) * sizeof(*l->runs));
	l->ptrs = zalloc((l->dirs.n + 1) * sizeof(*l->ptrs));
	for (size_t d = 0; d < l->dirs.n; d++) {
		if ((rc = rundir_arg_load(l->dirs.v[d], &l->runs[l->n])) != HB_EXIT_OK)
			return rc;
		l->ptrs[l->n] = &l->runs[l->n];
		l->n++;
	}
	mo.stall_ms = a->stall_ms;
	mo.gamedb_dirs = a->gamedb_dirs;
	if (plot_runs_fill(&l->pr, l->ptrs, l->n, &mo, &err) < 0) {
		error_msg("%s", err.buf);
		strbuf_release(&err);
		return HB_EXIT_FAILURE;
	}
	l->filled = true;
	return HB_EXIT_OK;
}

/* plot frames RUNDIR...: the runs over each other */
static int plot_frames_cmd(struct plot_args *a)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_out out = { .dir = a->out_dir };
	struct loaded_runs l;
	struct plot_frames f;
	char *name = NULL, *title = NULL;
	int rc;

	if (a->n_inputs < 1)
		return usage_error(plot_usage, "plot frames wants run directories");
	rc = load_runs(a, &l);
	if (rc == HB_EXIT_OK) {
		title = a->title ? xstrdup(a->title) : plot_runs_title(l.ptrs, l.n, "frame times");
		f = (struct plot_frames){ .title = title, .runs = l.pr.frames, .n_runs = l.n,
					  .stall_ms = a->stall_ms };
		name = a->name ? xstrdup(a->name)
			       : l.n == 1 ? xasprintf("frames-%s", l.runs[0].name) : xstrdup("frames");
		out.name = name;
		rc = report(&out, plot_frames(&out, &f, &err), &err);
	}
	loaded_release(&l);
	free(name);
	free(title);
	strbuf_release(&err);
	return rc;
}

/* plot percentiles RUNDIR...: a curve per run; plot histogram RUNDIR...:
 * an outline per group, its runs' window frames pooled */
static int plot_series_cmd(struct plot_args *a, bool histogram)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_out out = { .dir = a->out_dir };
	struct loaded_runs l;
	char *title = NULL;
	int rc;

	if (a->n_inputs < 1)
		return usage_error(plot_usage, "plot %s wants run directories", a->kind);
	out.name = a->name ? a->name : histogram ? "histogram" : "percentiles";
	rc = load_runs(a, &l);
	if (rc == HB_EXIT_OK) {
		title = a->title ? xstrdup(a->title)
				 : plot_runs_title(l.ptrs, l.n, histogram ? "frame-time histogram of each group's "
						   "measured windows" : "frame-time percentiles of each run's measured window");
		const struct plot_series *all = histogram ? l.pr.groups : l.pr.runs;
		size_t n_all = histogram ? l.pr.n_groups : l.n, n = 0;
		struct plot_series *some = zalloc((n_all + 1) * sizeof(*some));

		for (size_t i = 0; i < n_all; i++)
			if (all[i].n)
				some[n++] = all[i];
			else
				warn_msg("%s: no frames in the measured window: left out", all[i].label);
		if (histogram)
			rc = report(&out, plot_histogram(&out, title, some, n, a->stall_ms, &err), &err);
		else
			rc = report(&out, plot_percentiles(&out, title, some, n, a->stall_ms, &err), &err);
		free(some);
	}
	loaded_release(&l);
	free(title);
	strbuf_release(&err);
	return rc;
}

/* HB_EXIT_OK with the file in *buf, or the exit code after saying why not
 * (a missing file is the user's: 2). */
static int read_input(const char *path, char **buf)
{
	size_t len;
	int r = input_arg_check(path);

	if (r != HB_EXIT_OK)
		return r;
	r = read_file(path, buf, &len);
	if (r < 0) {
		error_msg("cannot read '%s': %s", path, strerror(-r));
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}

static int plot_matrix_cmd(struct plot_args *a)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_out out = { .dir = a->out_dir };
	struct plot_matrix m;
	char *buf = NULL, *name;
	int rc;

	if (a->n_inputs != 1)
		return usage_error(plot_usage, "plot matrix wants one matrix CSV");
	if ((rc = read_input(a->inputs[0], &buf)) != HB_EXIT_OK)
		return rc;
	if (plot_matrix_parse(a->inputs[0], buf, &m, &err) < 0) {
		error_msg("%s", err.buf);
		free(buf);
		strbuf_release(&err);
		return HB_EXIT_USAGE;
	}
	free(buf);
	if (a->metric) {
		free(m.metric);
		m.metric = xstrdup(a->metric);
	}
	name = a->name ? xstrdup(a->name) : xasprintf("matrix-%s", m.metric);
	out.name = name;
	rc = report(&out, plot_matrix(&out, &m, &err), &err);
	free(name);
	plot_matrix_release(&m);
	strbuf_release(&err);
	return rc;
}

static int plot_trend_cmd(struct plot_args *a)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_out out = { .dir = a->out_dir };
	struct plot_trend_point *pts;
	char *buf = NULL, *name, *metric;
	size_t n;
	int rc;

	if (a->n_inputs != 1)
		return usage_error(plot_usage, "plot trend wants one TSV ('hitchbench regress --format tsv')");
	if ((rc = read_input(a->inputs[0], &buf)) != HB_EXIT_OK)
		return rc;
	if (plot_trend_parse(a->inputs[0], buf, &pts, &n, &err) < 0) {
		error_msg("%s", err.buf);
		free(buf);
		strbuf_release(&err);
		return HB_EXIT_USAGE;
	}
	free(buf);
	metric = a->metric ? xstrdup(a->metric) : plot_metric_of(a->inputs[0], ".tsv");
	name = a->name ? xstrdup(a->name) : xasprintf("trend-%s", metric);
	out.name = name;
	rc = report(&out, plot_trend(&out, metric, pts, n, &err), &err);
	free(name);
	free(metric);
	plot_trend_release(pts, n);
	strbuf_release(&err);
	return rc;
}

int cmd_plot(int argc, char **argv, struct context *ctx)
{
	struct plot_args a;
	int rc = parse_args(argc, argv, ctx, &a);

	if (rc != HB_EXIT_OK) {
		rc = hb_args_exit(rc);
		goto out;
	}
	if (!strcmp(a.kind, "frames"))
		rc = plot_frames_cmd(&a);
	else if (!strcmp(a.kind, "percentiles"))
		rc = plot_series_cmd(&a, false);
	else if (!strcmp(a.kind, "histogram"))
		rc = plot_series_cmd(&a, true);
	else if (!strcmp(a.kind, "matrix"))
		rc = plot_matrix_cmd(&a);
	else if (!strcmp(a.kind, "trend"))
		rc = plot_trend_cmd(&a);
	else
		rc = usage_error(plot_usage, "'%s' is not a plot: frames, percentiles, histogram, matrix or trend",
				 a.kind);
out:
	free(a.out_dir);
	return rc;
}
