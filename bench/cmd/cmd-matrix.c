/*
 * hitchbench matrix: each game and run name against each batch or kernel,
 * one CSV per metric (analysis/report/matrix.h has the layout), from the results
 * database or from run directories. make bench-matrix runs the batches
 * recipes/matrix.ini lists and then this.
 */
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "interference/interfered.h"
#include "report/matrix.h"
#include "cmd/reportrows.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char matrix_usage[] =
	"usage: hitchbench matrix [--by batch|kernel] [--metric M]... [--out DIR]\n"
	"                         [--db PATH|URL [--machine M] | RUNDIR...] [--game G]\n"
	"                         [--interfered FILE] [--include-interfered] [--min-frames N]\n"
	"                         [--no-notes]\n"
	"\n"
	"  --by batch      columns are batches, earliest first (the default)\n"
	"  --by kernel     columns are kernel releases, in version order (6.9 before 6.10)\n"
	"  --metric M      a metric to write (repeatable; default: every metric)\n"
	"  --out DIR       where the CSVs go (default results/matrix): DIR/<metric>.csv\n"
	"  --db PATH|URL   the results database (default results/hitchbench.db), or a\n"
	"                  lab's postgresql://...\n"
	"  --machine M     only the runs of this host name or machine id (--by kernel\n"
	"                  wants one machine)\n"
	"  RUNDIR          run directories, or directories of them, instead of the database\n"
	"  --game G        only this game's runs\n"
	"  --interfered FILE  runs known to be disturbed (default results/interfered.txt)\n"
	"  --include-interfered  count runs marked disturbed (failed runs never)\n"
	"  --min-frames N  RUNDIRs: a run whose window holds fewer frames is invalid\n"
	"                  (default 50)\n"
	"  --no-notes      no '# N file(s) ...' line saying what a cell is (the runs left\n"
	"                  out are still listed)\n"
	"\n"
	"Rows are game and run name (variant@switches); a cell is the median, min, max\n"
	"and n of the valid runs of that row in that column. A metric's file is written\n"
	"only when some run has the number. The runs left out are listed with why.\n";

/* Writes DIR/<metric>.csv atomically. 0 or -errno. */
static int write_metric(const struct matrix *m, enum metric_id id, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return -errno;
	r = matrix_write_csv(f, m, id);
	if (fclose(f) != 0 && r == 0)
		r = -EIO;
	if (r == 0)
		r = write_file_atomic(path, buf, len, 0644);
	free(buf);
	return r;
}

static int write_matrix(const struct report_rows *rr, const char *game, enum matrix_by by,
			bool include_interfered, const enum metric_id *ids, size_t n_ids,
			const char *out_dir, bool no_notes)
{
	struct report_row *rows = zalloc(sizeof(*rows) * (rr->n ? rr->n : 1));
	struct matrix m;
	size_t n = 0, written = 0;
	int r, ret = HB_EXIT_OK;

	for (size_t i = 0; i < rr->n; i++)
		if (!game || (rr->rows[i].game && strcmp(rr->rows[i].game, game) == 0))
			rows[n++] = rr->rows[i];
	matrix_build(&m, rows, n, by, include_interfered);
	r = mkdir_p(out_dir, 0755);
	if (r < 0) {
		error_msg("cannot create '%s': %s", out_dir, strerror(-r));
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	for (size_t k = 0; k < n_ids; k++) {
		char *path;

		if (!matrix_has(&m, ids[k]))
			continue;
		path = xasprintf("%s/%s.csv", out_dir, metric_defs[ids[k]].name);
		r = write_metric(&m, ids[k], path);
		if (r < 0) {
			error_msg("cannot write '%s': %s", path, strerror(-r));
			ret = HB_EXIT_FAILURE;
		} else {
			printf("%s\n", path);
			written++;
		}
		free(path);
	}
	if (!no_notes)
		printf("# %zu file(s): %zu row(s) (game, variant@switches) x %zu column(s) (by %s); "
		       "a cell is the median, min, max and n of its %s runs\n",
		       written, m.n_rows, m.n_cols, matrix_by_name(by),
		       include_interfered ? "ok (disturbed included)" : "valid");
	if (m.n_without)
		printf("# %zu run(s) left out: no %s\n", m.n_without,
		       by == MATRIX_BY_KERNEL ? "kernel_release" : "batch_id");
	/* as report lists them: failed, invalid (a check failed), disturbed */
	for (size_t i = 0; i < n; i++)
		report_print_excluded(stdout, "# ", &rows[i], include_interfered);
out:
	matrix_release(&m);
	free(rows);
	return ret;
}

struct matrix_args {
	struct metric_opts metric;
	const char *game, *interfered_path;
	enum matrix_by by;
	enum metric_id ids[M_COUNT];
	size_t n_ids;
	bool include_interfered, no_notes;
	const char *out_dir;            /* NULL: results/matrix */
};

static int parse_options(int argc, char **argv, struct matrix_args *a)
{
	static const struct option opts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "metric", required_argument, NULL, 'm' },
		{ "out", required_argument, NULL, 'o' },
		{ "game", required_argument, NULL, 'g' },
		{ "interfered", required_argument, NULL, 'i' },
		{ "include-interfered", no_argument, NULL, 'I' },
		{ "min-frames", required_argument, NULL, 'F' },
		{ "no-notes", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, id;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (matrix_by_parse(optarg, &a->by) < 0)
				return usage_error(matrix_usage, "--by wants batch or kernel, not '%s'", optarg);
			break;
		case 'm':
			if (metric_arg(matrix_usage, optarg, &id) != HB_EXIT_OK)
				return HB_EXIT_USAGE;
			metric_list_add(a->ids, &a->n_ids, optarg);
			break;
		case 'o':
			a->out_dir = optarg;
			break;
		case 'g':
			a->game = optarg;
			break;
		case 'i':
			a->interfered_path = optarg;
			break;
		case 'N':
			a->no_notes = true;
			break;
		case 'I':
			a->include_interfered = true;
			break;
		case 'F':
			if (min_frames_parse(optarg, &a->metric.min_frames) < 0)
				return usage_error(matrix_usage, "--min-frames wants a whole number, not '%s'", optarg);
			break;
		case 'h':
			fputs(matrix_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(matrix_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	return HB_EXIT_OK;
}

int cmd_matrix(int argc, char **argv, struct context *ctx)
{
	struct matrix_args a = { .metric = METRIC_OPTS_DEFAULT, .by = MATRIX_BY_BATCH };
	struct interfered_list interfered;
	struct report_rows rr;
	char *out_dir;
	int ret;

	a.metric.gamedb_dirs = (const char *const *)ctx->gamedb_dirs;
	ret = parse_options(argc, argv, &a);
	if (ret != HB_EXIT_OK)
		return hb_args_exit(ret);
	if (ctx->db_given && optind < argc)
		return usage_error(matrix_usage, "give run directories or --db, not both");
	if (a.n_ids == 0)
		for (int id = 0; id < M_COUNT; id++)
			a.ids[a.n_ids++] = (enum metric_id)id;
	out_dir = a.out_dir ? xstrdup(a.out_dir) : xasprintf("%s/matrix", ctx->results_dir);

	interfered_init(&interfered);
	ret = load_interfered(ctx, a.interfered_path, &interfered);
	if (ret != HB_EXIT_OK)
		goto out;
	if (optind < argc)
		ret = report_rows_from_dirs(&rr, argv + optind, argc - optind, &a.metric);
	else
		ret = report_rows_from_db(&rr, ctx, a.game, NULL, NULL, 0, a.by == MATRIX_BY_KERNEL ?
					  "a kernel's column is of one machine; --by batch may mix machines, "
					  "a batch being one machine's" : NULL);
	if (ret == HB_EXIT_USAGE || (optind >= argc && ret != HB_EXIT_OK)) {
		report_rows_release(&rr);
		goto out;
	}
	interfered_mark(&interfered, rr.rows, rr.n);
	if (write_matrix(&rr, a.game, a.by, a.include_interfered, a.ids, a.n_ids, out_dir,
			 a.no_notes) != HB_EXIT_OK)
		ret = HB_EXIT_FAILURE;
	report_rows_release(&rr);
out:
	interfered_release(&interfered);
	free(out_dir);
	return ret;
}
