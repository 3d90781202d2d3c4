/*
 * Writing runs and batches into the results database (resultsdb_import,
 * resultsdb_import_batch): a run's row, metrics and provenance replaced in
 * one transaction, so importing a run again changes nothing.
 */
#include "db/resultsdb-internal.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A run's field as run_load set it, or straight from bench.txt for a run
 * put together by other means. */
static const char *run_field(const struct run *run, const char *field, const char *key)
{
	return field ? field : kvfile_get(&run->bench, key);
}

/*
 * The upsert: text parameters first (?1..?17, bound in a loop), then
 * format (?18) and stall_ms (?19), then schema 3's check_failed (?20,
 * text), then schema 4's machine columns (?21..?23, text). On a run_uuid
 * already present every column is updated but id and imported_utc; the
 * row's id comes back either way.
 */
enum run_text_param {
	RP_UUID, RP_NAME, RP_PATH, RP_GAME, RP_VARIANT, RP_RECIPE, RP_RECIPE_SHA256,
	RP_STATUS, RP_STARTED, RP_ENDED, RP_KERNEL_RELEASE, RP_KERNEL_VERSION,
	RP_BOOT_ID, RP_HOST, RP_HARNESS_VERSION, RP_PERCENTILE, RP_IMPORTED,
	RP_TEXT_COUNT
};
#define RP_FORMAT (RP_TEXT_COUNT + 1)
#define RP_STALL_MS (RP_TEXT_COUNT + 2)
#define RP_CHECK_FAILED (RP_TEXT_COUNT + 3)
#define RP_MACHINE_ID (RP_TEXT_COUNT + 4)
#define RP_CPU_MODEL (RP_TEXT_COUNT + 5)
#define RP_GPU (RP_TEXT_COUNT + 6)
#define RP_API (RP_TEXT_COUNT + 7)

static const char upsert_run_sql[] =
	"INSERT INTO runs (run_uuid, name, path, format, game, variant, recipe,"
	" recipe_sha256, status, started_utc, ended_utc, kernel_release,"
	" kernel_version, boot_id, host, harness_version, stall_ms, percentile,"
	" imported_utc, check_failed, machine_id, cpu_model, gpu, api)"
	" VALUES (?1, ?2, ?3, ?18, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
	" ?14, ?15, ?19, ?16, ?17, ?20, ?21, ?22, ?23, ?24)"
	" ON CONFLICT (run_uuid) DO UPDATE SET"
	" name = excluded.name, path = excluded.path, format = excluded.format,"
	" game = excluded.game, variant = excluded.variant,"
	" recipe = excluded.recipe, recipe_sha256 = excluded.recipe_sha256,"
	" status = excluded.status, started_utc = excluded.started_utc,"
	" ended_utc = excluded.ended_utc, kernel_release = excluded.kernel_release,"
	" kernel_version = excluded.kernel_version, boot_id = excluded.boot_id,"
	" host = excluded.host, harness_version = excluded.harness_version,"
	" stall_ms = excluded.stall_ms, percentile = excluded.percentile,"
	" check_failed = excluded.check_failed, machine_id = excluded.machine_id,"
	" cpu_model = excluded.cpu_model, gpu = excluded.gpu, api = excluded.api"
	" RETURNING id";

/* Binds text, or NULL for an absent value, from ?1 on. */
static void bind_texts(struct sqldb_stmt *st, const char *const *v, int n)
{
	for (int i = 0; i < n; i++)
		sqldb_bind_text(st, i + 1, v[i]);
}

/* Prepares sql, binds the n texts v from ?1 on, runs it. */
static int run_texts(struct resultsdb *db, const char *sql, const char *const *v, int n,
		     struct strbuf *err, const char *what)
{
	struct sqldb_stmt *st = NULL;
	int ret = sqldb_prepare(resultsdb_sqldb(db), sql, &st, err, what);

	if (ret < 0)
		return ret;
	bind_texts(st, v, n);
	ret = sqldb_step_done(st, err, what);
	sqldb_finalize(st);
	return ret;
}

/* The columns schema 2 added: the run's batch (a row for it is made if the
 * batch itself was not imported yet), round, position, name, switches. */
static int set_batch_columns(struct resultsdb *db, int64_t id, const struct kvfile *kf,
			     struct strbuf *err, const char *what)
{
	const char *v[] = {
		kvfile_get(kf, "batch_id"), kvfile_get(kf, "batch_round"),
		kvfile_get(kf, "batch_position"), kvfile_get(kf, "run_name"),
		kvfile_get(kf, "switches"), kvfile_get(kf, "invalid"),
	};
	struct sqldb_stmt *st = NULL;
	char now[32];
	int ret;

	utc_iso8601(time(NULL), now, sizeof(now));
	if (v[0]) {
		const char *b[] = { v[0], now };

		ret = run_texts(db, "INSERT INTO batches (batch_uuid, imported_utc) VALUES (?1, ?2)"
				" ON CONFLICT (batch_uuid) DO NOTHING", b, 2, err, what);
		if (ret < 0)
			return ret;
	}
	ret = sqldb_prepare(resultsdb_sqldb(db), "UPDATE runs SET batch_uuid = ?1,"
			    " batch_round = CAST(?2 AS INTEGER), batch_position = CAST(?3 AS INTEGER),"
			    " run_name = ?4, switches = ?5, invalid = CAST(?6 AS INTEGER) WHERE id = ?7",
			    &st, err, what);
	if (ret < 0)
		return ret;
	bind_texts(st, v, (int)ARRAY_SIZE(v));
	sqldb_bind_int64(st, 7, id);
	ret = sqldb_step_done(st, err, what);
	sqldb_finalize(st);
	return ret;
}

static const char upsert_batch_sql[] =
	"INSERT INTO batches (batch_uuid, path, game, variants, tokens, rounds, order_kind, seed,"
	" status, started_utc, ended_utc, boot_id, host, kernel_release, kernel_version,"
	" harness_version, harness_command, machine_id, imported_utc)"
	" VALUES (?1, ?2, ?3, ?4, ?5, CAST(?6 AS INTEGER), ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
	" ?15, ?16, ?17, ?18, ?19)"
	" ON CONFLICT (batch_uuid) DO UPDATE SET path = excluded.path, game = excluded.game,"
	" variants = excluded.variants, tokens = excluded.tokens, rounds = excluded.rounds,"
	" order_kind = excluded.order_kind, seed = excluded.seed, status = excluded.status,"
	" started_utc = excluded.started_utc, ended_utc = excluded.ended_utc,"
	" boot_id = excluded.boot_id, host = excluded.host,"
	" kernel_release = excluded.kernel_release, kernel_version = excluded.kernel_version,"
	" harness_version = excluded.harness_version, harness_command = excluded.harness_command,"
	" machine_id = excluded.machine_id";

/* The batch.txt keys in upsert_batch_sql's order (NULL: the path), then
 * the import time. */
static const char *const batch_keys[] = {
	"batch_id", NULL, "game", "variants", "tokens", "rounds", "order", "seed", "status",
	"started_utc", "ended_utc", "boot_id", "host", "kernel_release", "kernel_version",
	"harness_version", "harness_command", "machine_id",
};

struct batch_args {
	const char *v[ARRAY_SIZE(batch_keys) + 1];
	const char *what;
};

static int import_batch_body(struct resultsdb *db, void *arg, struct strbuf *err)
{
	struct batch_args *a = arg;

	return run_texts(db, upsert_batch_sql, a->v, (int)ARRAY_SIZE(a->v), err, a->what);
}

int resultsdb_import_batch(struct resultsdb *db, const struct kvfile *info, const char *dir,
			   struct strbuf *err)
{
	struct batch_args a;
	char *path = realpath(dir, NULL), *what = NULL, now[32];
	int ret;

	if (!path) {
		ret = -errno;
		strbuf_addf(err, "cannot resolve '%s': %s", dir, strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < ARRAY_SIZE(batch_keys); i++)
		a.v[i] = batch_keys[i] ? kvfile_get(info, batch_keys[i]) : path;
	utc_iso8601(time(NULL), now, sizeof(now));
	a.v[ARRAY_SIZE(batch_keys)] = now;
	what = xasprintf("cannot import batch '%s' into", a.v[0] ? a.v[0] : dir);
	a.what = what;
	if (!a.v[0]) {
		strbuf_addf(err, "%s/batch.txt: no batch_id", dir);
		ret = -EINVAL;
		goto out;
	}
	ret = resultsdb_transaction(db, import_batch_body, &a, err, what);
out:
	free(what);
	free(path);
	return ret;
}

/* Checks what the schema requires before a transaction is opened. */
static int check_run(const struct run *run, const struct metrics *m, const char *name,
		     int *format, struct strbuf *err)
{
	const char *id = run_field(run, run->id, "run_id");
	const char *f = kvfile_get(&run->bench, "format");

	if (!id || !*id) {
		strbuf_addf(err, "run '%s': bench.txt has no run_id", name);
		return -EINVAL;
	}
	if (!f || safe_atoi(f, format) < 0) {
		strbuf_addf(err, "run '%s': bench.txt has no valid format", name);
		return -EINVAL;
	}
	if (!run_field(run, run->status, "status")) {
		strbuf_addf(err, "run '%s': bench.txt has no status", name);
		return -EINVAL;
	}
	for (int i = 0; m && i < M_COUNT; i++) {
		if (m->have[i] && isnan(m->v[i])) {
			strbuf_addf(err, "run '%s': metric %s is not a number", name, metric_defs[i].name);
			return -EINVAL;
		}
	}
	return 0;
}

struct run_args {
	const struct run *run;
	const char *name, *path, *what;
	int format;
	const struct metrics *m;
	const struct metric_opts *opts;
	char now[32];
};

/* The run's GPU as bench.txt says it: the DRM cards' PCI ids and drivers
 * (gpu=), else the GL renderer the run drew with. */
static const char *run_gpu(const struct kvfile *kf)
{
	const char *gpu = kvfile_get(kf, "gpu");

	return gpu ? gpu : kvfile_get(kf, "gl_renderer");
}

static void bind_run(struct sqldb_stmt *st, const struct run_args *a)
{
	const struct run *run = a->run;
	char *api;
	const char *text[RP_TEXT_COUNT] = {
		[RP_UUID] = run_field(run, run->id, "run_id"),
		[RP_NAME] = a->name,
		[RP_PATH] = a->path,
		[RP_GAME] = run_field(run, run->game, "game"),
		[RP_VARIANT] = run_field(run, run->variant, "variant"),
		[RP_RECIPE] = kvfile_get(&run->bench, "recipe"),
		[RP_RECIPE_SHA256] = kvfile_get(&run->bench, "recipe_sha256"),
		[RP_STATUS] = run_field(run, run->status, "status"),
		[RP_STARTED] = kvfile_get(&run->bench, "started_utc"),
		[RP_ENDED] = kvfile_get(&run->bench, "ended_utc"),
		[RP_KERNEL_RELEASE] = kvfile_get(&run->bench, "kernel_release"),
		[RP_KERNEL_VERSION] = kvfile_get(&run->bench, "kernel_version"),
		[RP_BOOT_ID] = kvfile_get(&run->bench, "boot_id"),
		[RP_HOST] = kvfile_get(&run->bench, "host"),
		[RP_HARNESS_VERSION] = kvfile_get(&run->bench, "harness_version"),
		[RP_PERCENTILE] = a->m ? percentile_def_name(a->opts->pct) : NULL,
		[RP_IMPORTED] = a->now,
	};

	/* A NULL text binds SQL NULL. */
	bind_texts(st, text, RP_TEXT_COUNT);
	sqldb_bind_int64(st, RP_FORMAT, a->format);
	if (a->m)
		sqldb_bind_double(st, RP_STALL_MS, a->opts->stall_ms);
	else
		sqldb_bind_null(st, RP_STALL_MS);
	/* run_validate() decided; the status it set went in with the rest */
	sqldb_bind_text(st, RP_CHECK_FAILED, run->invalid);
	sqldb_bind_text(st, RP_MACHINE_ID, kvfile_get(&run->bench, "machine_id"));
	sqldb_bind_text(st, RP_CPU_MODEL, kvfile_get(&run->bench, "cpu_model"));
	sqldb_bind_text(st, RP_GPU, run_gpu(&run->bench));
	/* the report's api column, computed as the report computes it */
	api = run_window_api(run);
	sqldb_bind_text(st, RP_API, api);
	free(api);
}

/*
 * A run's rows in a child table (metrics, provenance) are replaced whole:
 * its old rows deleted, then the statement that inserts the new ones
 * prepared (*ins, the caller's to finalize). The table name is ours, never
 * input.
 */
static int replace_rows_begin(struct resultsdb *db, const char *table, const char *insert_sql,
			      int64_t id, struct sqldb_stmt **ins, struct strbuf *err, const char *what)
{
	char *sql = xasprintf("DELETE FROM %s WHERE run_id = ?1", table);
	struct sqldb_stmt *del = NULL;
	int ret;

	*ins = NULL;
	ret = sqldb_prepare(resultsdb_sqldb(db), sql, &del, err, what);
	if (ret < 0)
		goto out;
	sqldb_bind_int64(del, 1, id);
	ret = sqldb_step_done(del, err, what);
	if (ret < 0)
		goto out;
	ret = sqldb_prepare(resultsdb_sqldb(db), insert_sql, ins, err, what);
out:
	sqldb_finalize(del);
	free(sql);
	return ret;
}

static int replace_metrics(struct resultsdb *db, int64_t id, const struct metrics *m,
			   struct strbuf *err, const char *what)
{
	struct sqldb_stmt *ins;
	int ret;

	ret = replace_rows_begin(db, "metrics", "INSERT INTO metrics (run_id, name, value) VALUES (?1, ?2, ?3)",
				 id, &ins, err, what);
	for (int i = 0; ret == 0 && m && i < M_COUNT; i++) {
		if (!m->have[i])
			continue;
		sqldb_bind_int64(ins, 1, id);
		sqldb_bind_text(ins, 2, metric_defs[i].name);
		sqldb_bind_double(ins, 3, m->v[i]);
		ret = sqldb_step_done(ins, err, what);
	}
	sqldb_finalize(ins);
	return ret;
}

static int replace_provenance(struct resultsdb *db, int64_t id, const struct kvfile *kf,
			      struct strbuf *err, const char *what)
{
	struct sqldb_stmt *ins;
	int ret;

	ret = replace_rows_begin(db, "provenance", "INSERT INTO provenance (run_id, seq, key, value)"
				 " VALUES (?1, ?2, ?3, ?4)", id, &ins, err, what);
	for (size_t i = 0; ret == 0 && i < kf->n; i++) {
		sqldb_bind_int64(ins, 1, id);
		sqldb_bind_int64(ins, 2, (int64_t)i);
		sqldb_bind_text(ins, 3, kf->items[i].key);
		sqldb_bind_text(ins, 4, kf->items[i].value ? kf->items[i].value : "");
		ret = sqldb_step_done(ins, err, what);
	}
	sqldb_finalize(ins);
	return ret;
}

/* The run's rows: the upsert, its metrics and provenance replaced, its
 * batch columns; and whatever a push sent of it forgotten, since it may
 * have changed. */
static int import_run_body(struct resultsdb *db, void *arg, struct strbuf *err)
{
	struct run_args *a = arg;
	struct sqldb_stmt *st = NULL;
	const char *uuid = run_field(a->run, a->run->id, "run_id");
	int64_t id = 0;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(db), upsert_run_sql, &st, err, a->what);
	if (ret < 0)
		goto out;
	bind_run(st, a);
	ret = sqldb_step(st, err, a->what);
	if (ret == 0)
		ret = -EIO;     /* RETURNING gave no row */
	if (ret < 0)
		goto out;
	id = sqldb_column_int64(st, 0);
	sqldb_finalize(st);
	st = NULL;
	ret = replace_metrics(db, id, a->m, err, a->what);
	if (ret == 0)
		ret = replace_provenance(db, id, &a->run->bench, err, a->what);
	if (ret == 0)
		ret = set_batch_columns(db, id, &a->run->bench, err, a->what);
	if (ret == 0)
		ret = run_texts(db, "DELETE FROM pushes WHERE item = ?1", &uuid, 1, err, a->what);
out:
	sqldb_finalize(st);
	return ret;
}

int resultsdb_import(struct resultsdb *db, const struct run *run, const struct metrics *m,
		     const struct metric_opts *opts, struct strbuf *err)
{
	static const struct metric_opts default_opts = METRIC_OPTS_DEFAULT;
	struct run_args a = { .run = run, .m = m, .opts = opts ? opts : &default_opts };
	char *path = NULL, *what = NULL;
	int ret;

	if (!run->dir) {
		strbuf_addf(err, "run '%s': no directory", run->name ? run->name : "?");
		return -EINVAL;
	}
	path = realpath(run->dir, NULL);
	if (!path) {
		ret = -errno;
		strbuf_addf(err, "cannot resolve '%s': %s", run->dir, strerror(-ret));
		return ret;
	}
	a.path = path;
	a.name = run->name;
	if (!a.name) {
		a.name = strrchr(path, '/');
		a.name = a.name && a.name[1] ? a.name + 1 : path;
	}
	ret = check_run(run, m, a.name, &a.format, err);
	if (ret < 0)
		goto out;
	utc_iso8601(time(NULL), a.now, sizeof(a.now));
	what = xasprintf("cannot import run '%s' into", a.name);
	a.what = what;
	ret = resultsdb_transaction(db, import_run_body, &a, err, what);
out:
	free(what);
	free(path);
	return ret;
}
