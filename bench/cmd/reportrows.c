/*
 * Loading the rows of report and matrix (see reportrows.h).
 */
#include "cmd/reportrows.h"
#include "db/resultsdb-site.h"
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "cmd/rundirs.h"
#include "batch/batch.h"
#include "base/exitcodes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A bad reload rule (bench.txt's reload.* keys, an older run's
 * analysis.ini) or game.log is the user's to fix, not a run without play
 * numbers: refused with its file and line. */
static int check_reload(const struct run *run, const struct metric_opts *opts, struct strbuf *err)
{
	struct run_reload rr;
	int e = run_reload_find(run, opts->gamedb_dirs, &rr, err);

	if (e == 0)
		run_reload_release(&rr);
	return e == -EINVAL ? e : 0;
}

int report_rows_from_dirs(struct report_rows *rr, char **dirs, int n,
			  const struct metric_opts *opts)
{
	struct argv_list list;
	struct strbuf err = STRBUF_INIT;
	int ret = HB_EXIT_OK;

	memset(rr, 0, sizeof(*rr));
	argv_init(&list);
	ret = rundir_args_expand(dirs, n, &list);
	if (ret != HB_EXIT_OK) {
		argv_release(&list);
		return ret;
	}
	rr->rows = zalloc(sizeof(*rr->rows) * (list.n ? list.n : 1));
	rr->runs = zalloc(sizeof(*rr->runs) * (list.n ? list.n : 1));
	for (size_t i = 0; i < list.n; i++) {
		strbuf_reset(&err);
		int lr = run_load(list.v[i], &rr->runs[rr->n], &err);

		if (lr == -EINVAL) {
			/* a file that does not read one way (file:line said):
			 * bad input, and no table that would leave it out */
			error_msg("%s", err.buf);
			ret = HB_EXIT_USAGE;
			break;
		}
		if (lr < 0) {
			error_msg("%s", err.buf);
			ret = HB_EXIT_FAILURE;
			continue;
		}
		if (check_reload(&rr->runs[rr->n], opts, &err) < 0) {
			error_msg("%s", err.buf);
			run_release(&rr->runs[rr->n]);
			ret = HB_EXIT_USAGE;
			break;
		}
		run_report_row(&rr->runs[rr->n], opts, &rr->rows[rr->n]);
		/* the numbers are taken: a long run's frames need not stay */
		hb_frames_release(&rr->runs[rr->n].frames);
		rr->n++;
	}
	argv_release(&list);
	strbuf_release(&err);
	return ret;
}

static const char *run_machine(const struct resultsdb_run *r)
{
	return r->machine_id ? r->machine_id : r->host ? r->host : "(unknown)";
}

/* Refuses runs of more than one machine, naming two of them. */
static int check_one_machine(const struct resultsdb_run *runs, size_t n, const char *path,
			     const char *why)
{
	for (size_t i = 1; i < n; i++) {
		if (strcmp(run_machine(&runs[i]), run_machine(&runs[0])) == 0)
			continue;
		error_msg("'%s' holds the runs of more than one machine (%s, %s, ...): name one with "
			  "--machine HOST (%s)", path, runs[0].host ? runs[0].host : run_machine(&runs[0]),
			  runs[i].host ? runs[i].host : run_machine(&runs[i]), why);
		return HB_EXIT_USAGE;
	}
	return HB_EXIT_OK;
}

int report_rows_from_db(struct report_rows *rr, struct context *ctx, const char *game,
			const char *variant, const char *batch, int with_provenance, const char *one_machine)
{
	const char *path;
	struct resultsdb *db;
	struct strbuf err = STRBUF_INIT;
	int ret;

	memset(rr, 0, sizeof(*rr));
	ret = cmd_db_open(ctx, &db);
	if (ret != HB_EXIT_OK)
		return ret;
	path = resultsdb_name(db);
	if (batch ? resultsdb_list_batch(db, batch, NULL, NULL, &rr->db_runs, &rr->n_db_runs, &err) < 0 :
		    (resultsdb_list(db, game, variant, ctx->machine, &rr->db_runs, &rr->n_db_runs, &err) < 0 ||
		     (with_provenance && resultsdb_load_provenance(db, rr->db_runs, rr->n_db_runs, &err) < 0))) {
		error_msg("cannot read the results database '%s': %s", path, err.buf);
		strbuf_release(&err);
		return HB_EXIT_FAILURE;
	}
	if (one_machine && check_one_machine(rr->db_runs, rr->n_db_runs, path, one_machine) != HB_EXIT_OK)
		return HB_EXIT_USAGE;
	rr->rows = zalloc(sizeof(*rr->rows) * (rr->n_db_runs ? rr->n_db_runs : 1));
	for (size_t i = 0; i < rr->n_db_runs; i++)
		resultsdb_run_report_row(&rr->db_runs[i], &rr->rows[i]);
	rr->n = rr->n_db_runs;
	return HB_EXIT_OK;
}

int load_interfered(const struct context *ctx, const char *path, struct interfered_list *list)
{
	struct strbuf err = STRBUF_INIT;
	char *def;
	int r;

	/* --interfered FILE must be there; the default file need not */
	if (path && (r = input_arg_check(path)) != HB_EXIT_OK)
		return r;
	def = xasprintf("%s/interfered.txt", ctx->results_dir);
	r = interfered_read(list, path ? path : def, !path, &err);
	if (r < 0)
		error_msg("%s", err.buf);
	strbuf_release(&err);
	free(def);
	if (r < 0)
		interfered_release(list);
	return r == -EINVAL ? HB_EXIT_USAGE : r < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
}

void report_rows_release(struct report_rows *rr)
{
	if (!rr)
		return;
	for (size_t i = 0; rr->runs && i < rr->n; i++)
		run_release(&rr->runs[i]);
	free(rr->runs);
	resultsdb_runs_free(rr->db_runs, rr->n_db_runs);
	free(rr->rows);
	memset(rr, 0, sizeof(*rr));
}

int metric_list_add(enum metric_id *ids, size_t *n, const char *name)
{
	int id = metric_lookup(name);

	if (id < 0)
		return -EINVAL;
	for (size_t i = 0; i < *n; i++)
		if ((int)ids[i] == id)
			return 0;
	ids[(*n)++] = (enum metric_id)id;
	return 0;
}

int batch_print_report(const struct batch *b, const struct metric_opts *metric, FILE *out)
{
	struct report_opts ro = { .format = REPORT_TABLE, .metric = *metric,
				  .window_note = REPORT_WINDOW_RUNDIR };
	struct strbuf err = STRBUF_INIT;
	struct argv_list dirs;
	struct report_row *rows;
	struct run *runs;
	size_t n = 0;
	int r = 0;

	/* every run of the batch, invalid ones too (listed, never counted) */
	argv_init(&dirs);
	rundirs_expand(b->dir, &dirs);
	rows = zalloc(sizeof(*rows) * (dirs.n + 1));
	runs = zalloc(sizeof(*runs) * (dirs.n + 1));
	for (size_t i = 0; i < dirs.n; i++) {
		strbuf_reset(&err);
		if (run_load(dirs.v[i], &runs[n], &err) == 0) {
			run_report_row(&runs[n], metric, &rows[n]);
			hb_frames_release(&runs[n].frames); /* the numbers are taken */
			n++;
		} else {
			error_msg("%s", err.buf);
		}
	}
	if (n > 0)
		r = report_print(out, rows, n, &ro);
	for (size_t i = 0; i < n; i++)
		run_release(&runs[i]);
	free(rows);
	free(runs);
	argv_release(&dirs);
	strbuf_release(&err);
	return r;
}
