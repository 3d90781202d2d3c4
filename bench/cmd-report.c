/*
 * hitchbench report: the numbers of run directories (computed afresh from
 * their frames) or of the results database, as a table, CSV or JSON.
 */
#include "cmd.h"
#include "exitcodes.h"
#include "report.h"
#include "resultsdb.h"
#include "run.h"
#include "rundirs.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char report_usage[] =
	"usage: hitchbench report [--format table|csv|json] [--stall-ms MS]\n"
	"                         [--percentile nearest-rank|linear] RUNDIR...\n"
	"   or: hitchbench report [--format ...] --db PATH [--game G] [--variant V]\n"
	"\n"
	"  RUNDIR          a run directory, or a directory of them (results/runs)\n"
	"  --db PATH       report what the database holds instead (as computed when stored)\n";

/* A bad analysis.ini (or game.log) is the user's to fix, not a run
 * without play numbers: refused with its file and line. */
static int report_check_reload(const struct run *run, const struct report_opts *ro,
			       struct strbuf *err)
{
	struct run_reload rr;
	int e = run_reload_find(run, ro->metric.gamedb_dirs, &rr, err);

	if (e == 0)
		run_reload_release(&rr);
	return e == -EINVAL ? e : 0;
}

static int report_dirs(char **dirs, int n, struct report_opts *ro)
{
	struct argv_list list;
	struct strbuf err = STRBUF_INIT;
	struct report_row *rows;
	struct run *runs;
	size_t n_rows = 0;
	int ret = HB_EXIT_OK;

	argv_init(&list);
	for (int i = 0; i < n; i++) {
		if (rundirs_expand(dirs[i], &list) < 0) {
			error_msg("'%s' is not a run directory nor a directory of them", dirs[i]);
			argv_release(&list);
			return HB_EXIT_USAGE;
		}
	}
	rows = zalloc(sizeof(*rows) * list.n);
	runs = zalloc(sizeof(*runs) * list.n);
	for (size_t i = 0; i < list.n; i++) {
		strbuf_reset(&err);
		if (run_load(list.v[i], &runs[n_rows], &err) < 0) {
			error_msg("%s", err.buf);
			ret = HB_EXIT_FAILURE;
			continue;
		}
		if (report_check_reload(&runs[n_rows], ro, &err) < 0) {
			error_msg("%s", err.buf);
			run_release(&runs[n_rows]);
			ret = HB_EXIT_USAGE;
			break;
		}
		run_report_row(&runs[n_rows], &ro->metric, &rows[n_rows]);
		/* the numbers are taken: a long run's frames need not stay */
		hb_frames_release(&runs[n_rows].frames);
		n_rows++;
	}
	if (ret != HB_EXIT_USAGE && report_print(stdout, rows, n_rows, ro) < 0)
		ret = HB_EXIT_FAILURE;
	for (size_t i = 0; i < n_rows; i++)
		run_release(&runs[i]);
	free(runs);
	free(rows);
	argv_release(&list);
	strbuf_release(&err);
	return ret;
}

static int report_db(const char *path, const char *game, const char *variant,
		     struct report_opts *ro)
{
	struct resultsdb *db = NULL;
	struct resultsdb_run *runs = NULL;
	struct report_row *rows;
	size_t n = 0;
	char *err = NULL;
	int ret = HB_EXIT_OK;

	if (resultsdb_open(path, &db, &err) < 0 || resultsdb_list(db, game, variant, &runs, &n, &err) < 0) {
		error_msg("cannot read the results database '%s': %s", path, err);
		free(err);
		resultsdb_close(db);
		return HB_EXIT_FAILURE;
	}
	rows = zalloc(sizeof(*rows) * (n ? n : 1));
	for (size_t i = 0; i < n; i++) {
		rows[i].run = runs[i].name;
		rows[i].game = runs[i].game;
		rows[i].variant = runs[i].variant;
		rows[i].status = runs[i].status;
		rows[i].m = runs[i].m;
	}
	ro->window_note = "as stored: frames ending in each run's measured window";
	if (report_print(stdout, rows, n, ro) < 0)
		ret = HB_EXIT_FAILURE;
	free(rows);
	resultsdb_runs_free(runs, n);
	resultsdb_close(db);
	return ret;
}

int cmd_report(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "stall-ms", required_argument, NULL, 's' },
		{ "percentile", required_argument, NULL, 'p' },
		{ "db", required_argument, NULL, 'd' },
		{ "game", required_argument, NULL, 'g' },
		{ "variant", required_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts ro = {
		.format = REPORT_TABLE, .metric = METRIC_OPTS_DEFAULT, .window_note = REPORT_WINDOW_RUNDIR,
	};
	const char *db = NULL, *game = NULL, *variant = NULL;
	int c;

	ro.metric.gamedb_dirs = (const char *const *)ctx->gamedb_dirs;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (report_format_parse(optarg, &ro.format) < 0)
				return usage_error(report_usage, "unknown format '%s'", optarg);
			break;
		case 's':
			if (safe_atod(optarg, &ro.metric.stall_ms) < 0 || ro.metric.stall_ms <= 0)
				return usage_error(report_usage, "--stall-ms wants milliseconds > 0, not '%s'", optarg);
			break;
		case 'p':
			if (percentile_def_parse(optarg, &ro.metric.pct) < 0)
				return usage_error(report_usage, "unknown percentile definition '%s'", optarg);
			break;
		case 'd':
			db = optarg;
			break;
		case 'g':
			game = optarg;
			break;
		case 'V':
			variant = optarg;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(report_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (db) {
		if (optind < argc)
			return usage_error(report_usage, "give run directories or --db, not both");
		return report_db(db, game, variant, &ro);
	}
	if (game || variant)
		return usage_error(report_usage, "--game and --variant filter the database (--db)");
	if (optind >= argc)
		return usage_error(report_usage, "report wants run directories (or --db PATH)");
	return report_dirs(argv + optind, argc - optind, &ro);
}
