/*
 * hitchbench report: the numbers of run directories (computed afresh from
 * their frames) or of the results database, as a table, CSV, JSON or
 * Markdown.
 */
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "interference/interfered.h"
#include "report/report.h"
#include "report/report-html.h"
#include "cmd/report-paired.h"
#include "cmd/reportrows.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char report_usage[] =
	"usage: hitchbench report [--format table|csv|json|markdown|html] [--no-notes] [--stall-ms MS]\n"
	"                         [--percentile nearest-rank|linear] [--metric M]...\n"
	"                         [--stalls] [--interfered FILE] [--include-interfered]\n"
	"                         [--min-frames N] RUNDIR...\n"
	"   or: hitchbench report [--format ...] --db PATH|URL [--machine M] [--game G] [--variant V]\n"
	"   or: hitchbench report [--format ...] --db PATH|URL --batch BATCH\n"
	"\n"
	"  RUNDIR          a run directory, or a directory of them (results/runs)\n"
	"  --format html   one self-contained page: the table and its definitions, provenance,\n"
	"                  noise, verdicts, pictures (gnuplot), stall causes (docs/report-html.md)\n"
	"  --db PATH|URL   report what the database holds instead (as computed when stored):\n"
	"                  an SQLite file or a lab's postgresql://...\n"
	"  --machine M     only the runs of this host name or machine id (needed when the\n"
	"                  database holds several machines' runs)\n"
	"  --batch BATCH   the runs of one batch (its batch_id), in the order they ran (the\n"
	"                  lab's site shows each batch so: hitchbench site)\n"
	"  --format F      table (default), csv (every metric at full precision, a row\n"
	"                  per run and per group statistic), json (format 4, with the\n"
	"                  definitions), markdown (a GitHub table and the definitions)\n"
	"  --no-notes      no '#' notes under the table (no definitions under Markdown)\n"
	"  --metric M      a table column (repeatable; default: frames fps steady_fps\n"
	"                  stalls stall_s longest_ms low1); CSV and JSON carry every metric\n"
	"  --stalls        the table shows why the runs stalled: stall_s, the stall_*_s\n"
	"                  columns, load_disk_s, warm_disk_s and the largest (why)\n"
	"  --interfered FILE  runs known to be disturbed (default results/interfered.txt)\n"
	"  --include-interfered  count runs marked disturbed in the groups (failed runs never)\n"
	"  --min-frames N  a run whose window holds fewer frames is invalid (default 50;\n"
	"                  with --db, the checks made by db import stand)\n"
	"\n"
	"Runs are grouped by game and run name (variant@switches): median, min and max\n"
	"over each group's valid runs and their count n; runs left out are listed after\n"
	"the groups with why: a run that failed, one marked disturbed, and one whose\n"
	"data fails a check (status invalid: a cut frames.bin, a bench.txt number that\n"
	"does not parse, a window outside the frames or with too few of them).\n";

/* --stalls: the stall seconds and their causes. */
static const enum metric_id stall_table[] = {
	M_STALL_S, M_STALL_DISK_S, M_STALL_SWAP_S, M_STALL_RECLAIM_S, M_STALL_GPU_S, M_STALL_CPU_S,
	M_STALL_IO_S, M_STALL_WAIT_S, M_STALL_OTHER_S, M_LOAD_DISK_S, M_WARM_DISK_S,
};

struct report_args {
	struct report_opts ro;
	const char *game, *variant, *batch, *interfered_path;
	enum metric_id cols[M_COUNT];   /* --metric's table columns */
	size_t n_cols;
};

static int parse_options(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "stall-ms", required_argument, NULL, 's' },
		{ "percentile", required_argument, NULL, 'p' },
		{ "game", required_argument, NULL, 'g' },
		{ "variant", required_argument, NULL, 'V' },
		{ "batch", required_argument, NULL, 'b' },
		{ "metric", required_argument, NULL, 'm' },
		{ "interfered", required_argument, NULL, 'i' },
		{ "include-interfered", no_argument, NULL, 'I' },
		{ "stalls", no_argument, NULL, 'S' },
		{ "no-notes", no_argument, NULL, 'N' },
		{ "min-frames", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts *ro = &a->ro;
	int c, id;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			/* every format report_print() has */
			if (format_arg(report_usage, optarg, ~0u, &ro->format) != HB_EXIT_OK)
				return HB_EXIT_USAGE;
			break;
		case 'N':
			ro->no_notes = true;
			break;
		case 's':
			if (safe_atod(optarg, &ro->metric.stall_ms) < 0 || ro->metric.stall_ms <= 0)
				return usage_error(report_usage, "--stall-ms wants milliseconds > 0, not '%s'", optarg);
			break;
		case 'p':
			if (percentile_def_parse(optarg, &ro->metric.pct) < 0)
				return usage_error(report_usage, "unknown percentile definition '%s'", optarg);
			break;
		case 'g':
			a->game = optarg;
			break;
		case 'V':
			a->variant = optarg;
			break;
		case 'b':
			a->batch = optarg;
			break;
		case 'm':
			if (metric_arg(report_usage, optarg, &id) != HB_EXIT_OK)
				return HB_EXIT_USAGE;
			metric_list_add(a->cols, &a->n_cols, optarg);
			break;
		case 'i':
			a->interfered_path = optarg;
			break;
		case 'I':
			ro->include_interfered = true;
			break;
		case 'S':
			ro->stall_why = true;
			break;
		case 'F':
			if (min_frames_parse(optarg, &ro->metric.min_frames) < 0)
				return usage_error(report_usage, "--min-frames wants a whole number, not '%s'", optarg);
			break;
		case 'h':
			fputs(report_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(report_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	return HB_EXIT_OK;
}

/* The table's columns, and what the options and arguments ask of each other. */
static int check_args(int argc, bool db, struct report_args *a)
{
	if (a->ro.stall_why && a->n_cols)
		return usage_error(report_usage, "--stalls chooses the columns: not with --metric");
	if (a->ro.stall_why) {
		a->ro.table_metrics = stall_table;
		a->ro.n_table_metrics = sizeof(stall_table) / sizeof(stall_table[0]);
	}
	if (a->n_cols) {
		a->ro.table_metrics = a->cols;
		a->ro.n_table_metrics = a->n_cols;
	}
	if (db && optind < argc)
		return usage_error(report_usage, "give run directories or --db, not both");
	if (!db && (a->game || a->variant || a->batch))
		return usage_error(report_usage, "--game, --variant and --batch filter the database (--db)");
	if (a->batch && (a->game || a->variant))
		return usage_error(report_usage, "--batch names the runs: not with --game or --variant");
	if (!db && optind >= argc)
		return usage_error(report_usage, "report wants run directories (or --db PATH)");
	return HB_EXIT_OK;
}

/* --format html: the page, and what could not be made said on stderr
 * (exit 1: the page says where). */
static int print_html(int argc, char **argv, bool db, const struct report_rows *rr,
		      const struct report_opts *ro)
{
	struct strbuf problems = STRBUF_INIT;
	char *cmdline = argv_join(argv - 1);
	struct report_html_opts ho = { .report = ro, .command = cmdline, .from_db = db };
	struct report_html_text *paired = NULL;
	size_t n_problems = 0;
	int r;

	if (!db)
		report_paired_tests(argv + optind, argc - optind, &paired, &ho.n_paired);
	ho.paired = paired;
	r = report_html_write(stdout, rr->rows, rr->n, &ho, &problems, &n_problems);
	report_paired_free(paired, ho.n_paired);

	if (r < 0)
		error_msg("cannot write the HTML report: %s", strerror(-r));
	else if (n_problems)
		error_msg("the HTML report lacks %zu part%s:\n%s", n_problems, n_problems > 1 ? "s" : "",
			  problems.buf);
	strbuf_release(&problems);
	free(cmdline);
	return r < 0 || n_problems ? HB_EXIT_FAILURE : HB_EXIT_OK;
}

int cmd_report(int argc, char **argv, struct context *ctx)
{
	struct report_args a = {
		.ro = { .format = REPORT_TABLE, .metric = METRIC_OPTS_DEFAULT,
			.window_note = REPORT_WINDOW_RUNDIR },
	};
	struct report_opts *ro = &a.ro;
	const bool db = ctx->db_given;
	struct interfered_list interfered;
	struct report_rows rr;
	int ret;

	ro->metric.gamedb_dirs = (const char *const *)ctx->gamedb_dirs;
	ret = parse_options(argc, argv, &a);
	if (ret == HB_EXIT_OK)
		ret = check_args(argc, db, &a);
	if (ret == HB_EXIT_OK && a.batch && ctx->machine)
		ret = usage_error(report_usage, "--batch names the runs of one machine already: not with --machine");
	if (ret != HB_EXIT_OK)
		return hb_args_exit(ret);

	interfered_init(&interfered);
	ret = load_interfered(ctx, a.interfered_path, &interfered);
	if (ret != HB_EXIT_OK)
		return ret;
	if (db) {
		ret = report_rows_from_db(&rr, ctx, a.game, a.variant, a.batch,
					  ro->format == REPORT_JSON || ro->format == REPORT_HTML,
					  "a group's median is of one game and run name on one machine");
		ro->window_note = "as stored: frames ending in each run's measured window";
	} else {
		ret = report_rows_from_dirs(&rr, argv + optind, argc - optind, &ro->metric);
	}
	if (ret != HB_EXIT_USAGE && !(db && ret != HB_EXIT_OK)) {
		interfered_mark(&interfered, rr.rows, rr.n);
		if (ro->format == REPORT_HTML) {
			if (print_html(argc, argv, db, &rr, ro) != HB_EXIT_OK)
				ret = HB_EXIT_FAILURE;
		} else if (report_print(stdout, rr.rows, rr.n, ro) < 0) {
			ret = HB_EXIT_FAILURE;
		}
	}
	report_rows_release(&rr);
	interfered_release(&interfered);
	return ret;
}
