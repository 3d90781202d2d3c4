/*
 * hitchbench plot: pictures of runs, matrices and kernel trends (PNG and
 * SVG, drawn by gnuplot through analysis/plot.c). This file only gathers
 * the data (run directories, a matrix CSV, a trend TSV) and names the
 * files; what each picture shows is in docs/plots.md.
 */
#include "cmd.h"
#include "cmdargs.h"
#include "exitcodes.h"
#include "plot.h"
#include "plot-inputs.h"
#include "plot-run.h"
#include "run.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char plot_usage[] =
	"usage: hitchbench plot frames [--stall-ms MS] RUNDIR [--out DIR] [--name NAME]\n"
	"       hitchbench plot percentiles RUNDIR... [--out DIR] [--name NAME] [--title TEXT]\n"
	"       hitchbench plot matrix METRIC.csv [--out DIR] [--name NAME]\n"
	"       hitchbench plot trend METRIC.tsv [--metric NAME] [--out DIR] [--name NAME]\n"
	"\n"
	"  draws NAME.png and NAME.svg into DIR (default results/plots) with gnuplot\n"
	"  and prints the paths written:\n"
	"    frames       a run's frame times over time: stalls marked, warm-up shaded\n"
	"                 (NAME: frames-RUN; --stall-ms: the threshold, default 100)\n"
	"    percentiles  frame-time percentile curves of the runs' measured windows,\n"
	"                 one per run, on a tail-stretching axis (NAME: percentiles)\n"
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
			return HB_EXIT_OK;
		default:
			fputs(plot_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error(plot_usage, "plot wants a kind: frames, percentiles, matrix or trend");
	a->kind = argv[optind++];
	a->inputs = argv + optind;
	a->n_inputs = argc - optind;
	if (a->name && (!*a->name || strchr(a->name, '/')))
		return usage_error(plot_usage, "--name wants a file name without '/', not '%s'", a->name);
	if (!a->out_dir)
		a->out_dir = xasprintf("%s/plots", ctx->results_dir);
	return -1;
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

/* A run with frames to draw: HB_EXIT_OK, or the exit code after saying
 * why not. */
static int load(const char *dir, struct run *run)
{
	int r = rundir_arg_load(dir, run);

	if (r != HB_EXIT_OK)
		return r;
	if (!run->have_frames || run->frames.n < 2) {
		error_msg("'%s' has no frames", run->dir);
		run_release(run);
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}

static const char *run_label(const struct run *run)
{
	const char *name = kvfile_get(&run->bench, "run_name");

	return name ? name : run->variant;
}

static int plot_frames_cmd(struct plot_args *a)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_frames f;
	struct plot_out out = { .dir = a->out_dir };
	char *name = NULL, *title = NULL;
	struct run run;
	int rc;

	if (a->n_inputs != 1)
		return usage_error(plot_usage, "plot frames wants one run directory");
	if ((rc = load(a->inputs[0], &run)) != HB_EXIT_OK)
		return rc;
	title = a->title ? xstrdup(a->title)
			 : xasprintf("%s %s: %s", run.game, run_label(&run), run.name);
	plot_run_frames(&run, a->gamedb_dirs, title, a->stall_ms, &f);
	name = a->name ? xstrdup(a->name) : xasprintf("frames-%s", run.name);
	out.name = name;
	rc = report(&out, plot_frames(&out, &f, &err), &err);
	plot_run_frames_release(&f);
	free(name);
	free(title);
	strbuf_release(&err);
	run_release(&run);
	return rc;
}

static int plot_percentiles_cmd(struct plot_args *a)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_out out = { .dir = a->out_dir, .name = a->name ? a->name : "percentiles" };
	struct argv_list dirs;
	struct plot_series *series;
	struct run *runs;
	size_t n = 0;
	int rc = HB_EXIT_FAILURE;

	if (a->n_inputs < 1)
		return usage_error(plot_usage, "plot percentiles wants run directories");
	argv_init(&dirs);
	rc = rundir_args_expand(a->inputs, a->n_inputs, &dirs);
	if (rc != HB_EXIT_OK) {
		argv_release(&dirs);
		return rc;
	}
	rc = HB_EXIT_FAILURE;
	runs = zalloc((dirs.n + 1) * sizeof(*runs));
	series = zalloc((dirs.n + 1) * sizeof(*series));
	for (size_t d = 0; d < dirs.n; d++) {
		struct run *run = &runs[n];
		double *ms;
		size_t k;

		if ((rc = load(dirs.v[d], run)) != HB_EXIT_OK)
			goto out;
		k = plot_run_window_ms(run, &ms);
		if (k == 0) {
			warn_msg("'%s' has no frames in its window: left out", run->dir);
			free(ms);
			run_release(run);
			continue;
		}
		series[n++] = (struct plot_series){ run->name, ms, k };
	}
	rc = report(&out, plot_percentiles(&out, a->title ? a->title :
					    "frame-time percentiles of each run's measured window",
					    series, n, &err), &err);
out:
	for (size_t i = 0; i < n; i++) {
		free((double *)series[i].ms);
		run_release(&runs[i]);
	}
	free(runs);
	free(series);
	argv_release(&dirs);
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

	if (rc >= 0)
		goto out;
	if (!strcmp(a.kind, "frames"))
		rc = plot_frames_cmd(&a);
	else if (!strcmp(a.kind, "percentiles"))
		rc = plot_percentiles_cmd(&a);
	else if (!strcmp(a.kind, "matrix"))
		rc = plot_matrix_cmd(&a);
	else if (!strcmp(a.kind, "trend"))
		rc = plot_trend_cmd(&a);
	else
		rc = usage_error(plot_usage, "'%s' is not a plot: frames, percentiles, matrix or trend",
				 a.kind);
out:
	free(a.out_dir);
	return rc;
}
