/*
 * Writing runs and batches into the results database (resultsdb_import,
 * resultsdb_import_batch): a run's row, metrics and provenance replaced in
 * one transaction, so importing a run again changes nothing.
 */
#include "resultsdb-internal.h"
#include "timeutil.h"
#include "util.h"

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
 * text). On a run_uuid already present every column is updated but id and
 * imported_utc.
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

static const char upsert_run_sql[] =
	"INSERT INTO runs (run_uuid, name, path, format, game, variant, recipe,"
	" recipe_sha256, status, started_utc, ended_utc, kernel_release,"
	" kernel_version, boot_id, host, harness_version, stall_ms, percentile,"
	" imported_utc, check_failed)"
	" VALUES (?1, ?2, ?3, ?18, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
	" ?14, ?15, ?19, ?16, ?17, ?20)"
	" ON CONFLICT (run_uuid) DO UPDATE SET"
	" name = excluded.name, path = excluded.path, format = excluded.format,"
	" game = excluded.game, variant = excluded.variant,"
	" recipe = excluded.recipe, recipe_sha256 = excluded.recipe_sha256,"
	" status = excluded.status, started_utc = excluded.started_utc,"
	" ended_utc = excluded.ended_utc, kernel_release = excluded.kernel_release,"
	" kernel_version = excluded.kernel_version, boot_id = excluded.boot_id,"
	" host = excluded.host, harness_version = excluded.harness_version,"
	" stall_ms = excluded.stall_ms, percentile = excluded.percentile,"
	" check_failed = excluded.check_failed";

/* Binds text, or NULL for an absent value. */
static int bind_texts(sqlite3_stmt *st, const char *const *v, int n)
{
	int rc = SQLITE_OK;

	for (int i = 0; rc == SQLITE_OK && i < n; i++)
		rc = sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_STATIC);
	return rc;
}

/* The columns schema 2 added: the run's batch (a row for it is made if the
 * batch itself was not imported yet), round, position, name, switches. */
static int set_batch_columns(struct resultsdb *db, sqlite3_int64 id, const struct kvfile *kf,
			     char **err, const char *what)
{
	const char *v[] = {
		kvfile_get(kf, "batch_id"), kvfile_get(kf, "batch_round"),
		kvfile_get(kf, "batch_position"), kvfile_get(kf, "run_name"),
		kvfile_get(kf, "switches"), kvfile_get(kf, "invalid"),
	};
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;
	char now[32];

	utc_iso8601(time(NULL), now, sizeof(now));
	if (v[0]) {
		ret = resultsdb_prepare(db, "INSERT OR IGNORE INTO batches (batch_uuid, imported_utc) VALUES (?1, ?2)",
			      &st, err, what);
		if (ret < 0)
			return ret;
		rc = sqlite3_bind_text(st, 1, v[0], -1, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
		ret = rc == SQLITE_OK ? resultsdb_step_done(db, st, err, what) : resultsdb_fail(db, rc, err, what);
		sqlite3_finalize(st);
		st = NULL;
		if (ret < 0)
			return ret;
	}
	ret = resultsdb_prepare(db, "UPDATE runs SET batch_uuid = ?1, batch_round = CAST(?2 AS INTEGER),"
		      " batch_position = CAST(?3 AS INTEGER), run_name = ?4, switches = ?5,"
		      " invalid = CAST(?6 AS INTEGER) WHERE id = ?7", &st, err, what);
	if (ret < 0)
		return ret;
	rc = bind_texts(st, v, (int)ARRAY_SIZE(v));
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 7, id);
	ret = rc == SQLITE_OK ? resultsdb_step_done(db, st, err, what) : resultsdb_fail(db, rc, err, what);
	sqlite3_finalize(st);
	return ret;
}

static const char upsert_batch_sql[] =
	"INSERT INTO batches (batch_uuid, path, game, variants, tokens, rounds, order_kind, seed,"
	" status, started_utc, ended_utc, boot_id, host, kernel_release, kernel_version,"
	" harness_version, harness_command, imported_utc)"
	" VALUES (?1, ?2, ?3, ?4, ?5, CAST(?6 AS INTEGER), ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
	" ?15, ?16, ?17, ?18)"
	" ON CONFLICT (batch_uuid) DO UPDATE SET path = excluded.path, game = excluded.game,"
	" variants = excluded.variants, tokens = excluded.tokens, rounds = excluded.rounds,"
	" order_kind = excluded.order_kind, seed = excluded.seed, status = excluded.status,"
	" started_utc = excluded.started_utc, ended_utc = excluded.ended_utc,"
	" boot_id = excluded.boot_id, host = excluded.host,"
	" kernel_release = excluded.kernel_release, kernel_version = excluded.kernel_version,"
	" harness_version = excluded.harness_version, harness_command = excluded.harness_command";

int resultsdb_import_batch(struct resultsdb *db, const struct kvfile *info, const char *dir,
			   char **err)
{
	static const char *const keys[] = {
		"batch_id", NULL, "game", "variants", "tokens", "rounds", "order", "seed", "status",
		"started_utc", "ended_utc", "boot_id", "host", "kernel_release", "kernel_version",
		"harness_version", "harness_command",
	};
	const char *v[ARRAY_SIZE(keys) + 1];
	sqlite3_stmt *st = NULL;
	char *path = realpath(dir, NULL), *what = NULL, now[32];
	int rc, ret;

	if (!path) {
		ret = -errno;
		resultsdb_set_err(err, "cannot resolve '%s': %s", dir, strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		v[i] = keys[i] ? kvfile_get(info, keys[i]) : path;
	utc_iso8601(time(NULL), now, sizeof(now));
	v[ARRAY_SIZE(keys)] = now;
	what = xasprintf("cannot import batch '%s' into", v[0] ? v[0] : dir);
	if (!v[0]) {
		resultsdb_set_err(err, "%s/batch.txt: no batch_id", dir);
		ret = -EINVAL;
		goto out;
	}
	ret = resultsdb_prepare(db, upsert_batch_sql, &st, err, what);
	if (ret < 0)
		goto out;
	rc = bind_texts(st, v, (int)ARRAY_SIZE(v));
	ret = rc == SQLITE_OK ? resultsdb_step_done(db, st, err, what) : resultsdb_fail(db, rc, err, what);
out:
	sqlite3_finalize(st);
	free(what);
	free(path);
	return ret;
}

/* Checks what the schema requires before a transaction is opened. */
static int check_run(const struct run *run, const struct metrics *m, const char *name,
		     int *format, char **err)
{
	const char *id = run_field(run, run->id, "run_id");
	const char *f = kvfile_get(&run->bench, "format");

	if (!id || !*id) {
		resultsdb_set_err(err, "run '%s': bench.txt has no run_id", name);
		return -EINVAL;
	}
	if (!f || safe_atoi(f, format) < 0) {
		resultsdb_set_err(err, "run '%s': bench.txt has no valid format", name);
		return -EINVAL;
	}
	if (!run_field(run, run->status, "status")) {
		resultsdb_set_err(err, "run '%s': bench.txt has no status", name);
		return -EINVAL;
	}
	for (int i = 0; m && i < M_COUNT; i++) {
		if (m->have[i] && isnan(m->v[i])) {
			resultsdb_set_err(err, "run '%s': metric %s is not a number", name,
				metric_defs[i].name);
			return -EINVAL;
		}
	}
	return 0;
}

static int bind_run(sqlite3_stmt *st, const struct run *run, const char *name,
		    const char *path, int format, const struct metrics *m,
		    const struct metric_opts *opts, const char *now)
{
	const char *text[RP_TEXT_COUNT] = {
		[RP_UUID] = run_field(run, run->id, "run_id"),
		[RP_NAME] = name,
		[RP_PATH] = path,
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
		[RP_PERCENTILE] = m ? percentile_def_name(opts->pct) : NULL,
		[RP_IMPORTED] = now,
	};
	int rc = SQLITE_OK;

	/* A NULL text binds SQL NULL. */
	for (int i = 0; rc == SQLITE_OK && i < RP_TEXT_COUNT; i++)
		rc = sqlite3_bind_text(st, i + 1, text[i], -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int(st, RP_FORMAT, format);
	if (rc == SQLITE_OK)
		rc = m ? sqlite3_bind_double(st, RP_STALL_MS, opts->stall_ms) :
			 sqlite3_bind_null(st, RP_STALL_MS);
	/* run_validate() decided; the status it set went in with the rest */
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, RP_CHECK_FAILED, run->invalid, -1, SQLITE_STATIC);
	return rc;
}

/* The run's row id, after the upsert. */
static int run_row_id(struct resultsdb *db, const char *uuid, sqlite3_int64 *id, char **err,
		      const char *what)
{
	sqlite3_stmt *st = NULL;
	int rc, ret;

	ret = resultsdb_prepare(db, "SELECT id FROM runs WHERE run_uuid = ?1", &st, err, what);
	if (ret < 0)
		goto out;
	rc = sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ret = resultsdb_fail(db, rc, err, what);
		goto out;
	}
	*id = sqlite3_column_int64(st, 0);
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

/*
 * A run's rows in a child table (metrics, provenance) are replaced whole:
 * its old rows deleted, then the statement that inserts the new ones
 * prepared (*ins, the caller's to finalize). The table name is ours, never
 * input.
 */
static int replace_rows_begin(struct resultsdb *db, const char *table, const char *insert_sql,
			      sqlite3_int64 id, sqlite3_stmt **ins, char **err, const char *what)
{
	char *sql = xasprintf("DELETE FROM %s WHERE run_id = ?1", table);
	sqlite3_stmt *del = NULL;
	int rc, ret;

	*ins = NULL;
	ret = resultsdb_prepare(db, sql, &del, err, what);
	if (ret < 0)
		goto out;
	rc = sqlite3_bind_int64(del, 1, id);
	if (rc != SQLITE_OK) {
		ret = resultsdb_fail(db, rc, err, what);
		goto out;
	}
	ret = resultsdb_step_done(db, del, err, what);
	if (ret < 0)
		goto out;
	ret = resultsdb_prepare(db, insert_sql, ins, err, what);
out:
	sqlite3_finalize(del);
	free(sql);
	return ret;
}

static int replace_metrics(struct resultsdb *db, sqlite3_int64 id, const struct metrics *m,
			   char **err, const char *what)
{
	sqlite3_stmt *ins;
	int rc, ret;

	ret = replace_rows_begin(db, "metrics", "INSERT INTO metrics (run_id, name, value) VALUES (?1, ?2, ?3)",
				 id, &ins, err, what);
	for (int i = 0; ret == 0 && m && i < M_COUNT; i++) {
		if (!m->have[i])
			continue;
		rc = sqlite3_bind_int64(ins, 1, id);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(ins, 2, metric_defs[i].name, -1, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_double(ins, 3, m->v[i]);
		ret = rc == SQLITE_OK ? resultsdb_step_done(db, ins, err, what) : resultsdb_fail(db, rc, err, what);
	}
	sqlite3_finalize(ins);
	return ret;
}

static int replace_provenance(struct resultsdb *db, sqlite3_int64 id, const struct kvfile *kf,
			      char **err, const char *what)
{
	sqlite3_stmt *ins;
	int rc, ret;

	ret = replace_rows_begin(db, "provenance", "INSERT INTO provenance (run_id, seq, key, value)"
				 " VALUES (?1, ?2, ?3, ?4)", id, &ins, err, what);
	for (size_t i = 0; ret == 0 && i < kf->n; i++) {
		rc = sqlite3_bind_int64(ins, 1, id);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(ins, 2, (sqlite3_int64)i);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(ins, 3, kf->items[i].key, -1, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(ins, 4, kf->items[i].value ? kf->items[i].value : "",
					       -1, SQLITE_STATIC);
		ret = rc == SQLITE_OK ? resultsdb_step_done(db, ins, err, what) : resultsdb_fail(db, rc, err, what);
	}
	sqlite3_finalize(ins);
	return ret;
}

int resultsdb_import(struct resultsdb *db, const struct run *run, const struct metrics *m,
		     const struct metric_opts *opts, char **err)
{
	static const struct metric_opts default_opts = METRIC_OPTS_DEFAULT;
	sqlite3_stmt *st = NULL;
	char *path = NULL, *what = NULL, now[32];
	const char *name;
	sqlite3_int64 id = 0;
	int format, rc, ret;

	if (!run->dir) {
		resultsdb_set_err(err, "run '%s': no directory", run->name ? run->name : "?");
		ret = -EINVAL;
		goto out;
	}
	path = realpath(run->dir, NULL);
	if (!path) {
		ret = -errno;
		resultsdb_set_err(err, "cannot resolve '%s': %s", run->dir, strerror(-ret));
		goto out;
	}
	name = run->name;
	if (!name) {
		name = strrchr(path, '/');
		name = name && name[1] ? name + 1 : path;
	}
	ret = check_run(run, m, name, &format, err);
	if (ret < 0)
		goto out;
	if (!opts)
		opts = &default_opts;
	utc_iso8601(time(NULL), now, sizeof(now));
	what = xasprintf("cannot import run '%s' into", name);

	ret = resultsdb_exec(db, "BEGIN IMMEDIATE", err, what);
	if (ret < 0)
		goto out;
	ret = resultsdb_prepare(db, upsert_run_sql, &st, err, what);
	if (ret < 0)
		goto out;
	rc = bind_run(st, run, name, path, format, m, opts, now);
	if (rc != SQLITE_OK) {
		ret = resultsdb_fail(db, rc, err, what);
		goto out;
	}
	ret = resultsdb_step_done(db, st, err, what);
	if (ret < 0)
		goto out;
	ret = run_row_id(db, run_field(run, run->id, "run_id"), &id, err, what);
	if (ret < 0)
		goto out;
	ret = replace_metrics(db, id, m, err, what);
	if (ret < 0)
		goto out;
	ret = replace_provenance(db, id, &run->bench, err, what);
	if (ret < 0)
		goto out;
	ret = set_batch_columns(db, id, &run->bench, err, what);
	if (ret < 0)
		goto out;
	ret = resultsdb_exec(db, "COMMIT", err, what);
out:
	if (ret < 0)
		resultsdb_rollback(db);
	sqlite3_finalize(st);
	free(what);
	free(path);
	return ret;
}
