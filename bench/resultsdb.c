/*
 * The results database (see resultsdb.h): SQLite behind the few operations
 * the commands need, so that no command writes SQL of its own and the
 * schema (bench/schema/NNNN-*.sql, compiled in as schema_migrations[])
 * is applied the same way by every program that opens a database.
 *
 * Journal mode: the default rollback journal, not WAL. A results database
 * is often kept beside the run directories on a shared or synced directory
 * (NFS, SMB, a laptop's sync folder), and WAL needs a shared-memory index
 * that only works for processes on one host; it also leaves -wal and -shm
 * files that a copy can separate from the database. Writes here are rare
 * and short (one transaction per imported run), so WAL's concurrency buys
 * nothing. A database a user has switched to WAL stays in WAL: the mode is
 * persistent and is not touched here.
 */
#include "resultsdb.h"
#include "resultsdb-internal.h"
#include "timeutil.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* How long to wait for another process's lock before failing with -EBUSY. */
#define BUSY_TIMEOUT_MS 5000

struct resultsdb {
	sqlite3 *sql;
	char *path;
	int version;            /* PRAGMA user_version once migrated */
};

static void set_err(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_err(char **err, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	*err = strbuf_detach(&sb);
}

/* An SQLite result code as -errno, for callers that pick an exit code or
 * retry on -EBUSY; the message carries SQLite's own words. */
static int sqlite_errno(sqlite3 *sql, int rc)
{
	int sys;

	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_TOOBIG:
	case SQLITE_RANGE:
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -EINVAL;
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR:
		sys = sql ? sqlite3_system_errno(sql) : 0;
		return sys > 0 ? -sys : -EIO;
	default:
		return -EIO;
	}
}

static int fail(struct resultsdb *db, int rc, char **err, const char *what)
{
	set_err(err, "%s '%s': %s", what, db->path, sqlite3_errmsg(db->sql));
	return sqlite_errno(db->sql, rc);
}

static int exec(struct resultsdb *db, const char *sql, char **err, const char *what)
{
	int rc = sqlite3_exec(db->sql, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : fail(db, rc, err, what);
}

/* Rolls back what a failed operation left open. SQLite rolls back by itself
 * on some errors (full disk, I/O), hence the check. */
static void rollback(struct resultsdb *db)
{
	if (!sqlite3_get_autocommit(db->sql))
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}

static int prepare(struct resultsdb *db, const char *sql, sqlite3_stmt **st, char **err,
		   const char *what)
{
	int rc = sqlite3_prepare_v2(db->sql, sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0 : fail(db, rc, err, what);
}

/* Runs a statement that returns no rows and readies it for new bindings. */
static int step_done(struct resultsdb *db, sqlite3_stmt *st, char **err, const char *what)
{
	int rc = sqlite3_step(st);
	int ret = rc == SQLITE_DONE ? 0 : fail(db, rc, err, what);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

static int read_user_version(struct resultsdb *db, int *out, char **err)
{
	sqlite3_stmt *st = NULL;
	int rc, ret;

	ret = prepare(db, "PRAGMA user_version", &st, err, "cannot read the schema version of");
	if (ret < 0)
		goto out;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ret = fail(db, rc, err, "cannot read the schema version of");
		goto out;
	}
	*out = sqlite3_column_int(st, 0);
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

static int newest_version(void)
{
	return schema_migration_count ? schema_migrations[schema_migration_count - 1].version : 0;
}

static int refuse_newer(struct resultsdb *db, int version, char **err)
{
	set_err(err, "database '%s' has schema version %d, newer than this hitchbench knows (%d): "
		"use a newer hitchbench", db->path, version, newest_version());
	return -ENOTSUP;
}

/* Applies one migration unless another process got there first: the
 * version is read again under the write lock BEGIN IMMEDIATE takes. */
static int apply_migration(struct resultsdb *db, const struct schema_migration *mig, char **err)
{
	char *what = xasprintf("cannot apply migration %s to", mig->name);
	char *set = NULL;
	int version, ret;

	ret = exec(db, "BEGIN IMMEDIATE", err, what);
	if (ret < 0)
		goto out;
	ret = read_user_version(db, &version, err);
	if (ret < 0)
		goto out;
	if (version > newest_version()) {
		ret = refuse_newer(db, version, err);
		goto out;
	}
	if (version < mig->version) {
		ret = exec(db, mig->sql, err, what);
		if (ret < 0)
			goto out;
		set = xasprintf("PRAGMA user_version = %d", mig->version);
		ret = exec(db, set, err, what);
		if (ret < 0)
			goto out;
	}
	ret = exec(db, "COMMIT", err, what);
out:
	if (ret < 0)
		rollback(db);
	free(set);
	free(what);
	return ret;
}

static int migrate(struct resultsdb *db, char **err)
{
	int version, ret;

	ret = read_user_version(db, &version, err);
	if (ret < 0)
		return ret;
	if (version > newest_version())
		return refuse_newer(db, version, err);
	for (size_t i = 0; i < schema_migration_count; i++) {
		if (schema_migrations[i].version <= version)
			continue;
		ret = apply_migration(db, &schema_migrations[i], err);
		if (ret < 0)
			return ret;
	}
	return read_user_version(db, &db->version, err);
}

/* A reader takes the schema as it is: the queries are the newest
 * schema's, and upgrading is a write. */
static int check_readable(struct resultsdb *db, char **err)
{
	int ret = read_user_version(db, &db->version, err);

	if (ret < 0)
		return ret;
	if (db->version > newest_version())
		return refuse_newer(db, db->version, err);
	if (db->version == 0) {
		set_err(err, "'%s' holds no results database (schema version 0): an empty file, or "
			"another program's database", db->path);
		return -ENOTSUP;
	}
	if (db->version < newest_version()) {
		set_err(err, "database '%s' has schema version %d, older than this hitchbench reads (%d): "
			"'hitchbench db upgrade --db %s' upgrades it (a read never does)", db->path,
			db->version, newest_version(), db->path);
		return -ENOTSUP;
	}
	return 0;
}

/* SQLite's read-only URI of a path, "file:PATH?mode=ro": every byte but
 * the unreserved ones and '/' percent-encoded, so a '?', '#' or '%' in a
 * file name stays part of the name. */
static char *readonly_uri(const char *path)
{
	static const char keep[] = "/-._~";
	struct strbuf sb = STRBUF_INIT;

	/* file:///abs (an empty authority) or file:rel */
	strbuf_addstr(&sb, *path == '/' ? "file://" : "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr(keep, *p))
			strbuf_addch(&sb, (char)*p);
		else
			strbuf_addf(&sb, "%%%02X", *p);
	}
	strbuf_addstr(&sb, "?mode=ro");
	return strbuf_detach(&sb);
}

/* Only a writer may make the database, and the directory it goes in. */
static int open_existing(const char *path, char **err)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		int e = errno;

		if (e == ENOENT || e == ENOTDIR)
			set_err(err, "no such database: %s", path);
		else
			set_err(err, "cannot open database '%s': %s", path, strerror(e));
		return e == ENOTDIR ? -ENOENT : -e;
	}
	if (S_ISDIR(st.st_mode)) {
		set_err(err, "cannot open database '%s': it is a directory", path);
		return -EISDIR;
	}
	return 0;
}

int resultsdb_open_mode(const char *path, enum resultsdb_mode mode, struct resultsdb **out,
			char **err)
{
	struct resultsdb *db;
	char *uri = NULL;
	int rc, ret;

	if (mode != RESULTSDB_WRITE && (ret = open_existing(path, err)) < 0)
		return ret;
	db = zalloc(sizeof(*db));
	db->path = xstrdup(path);
	if (mode == RESULTSDB_WRITE && strrchr(path, '/')) {
		/* a new database may live in a directory not made yet */
		char *dir = strndup(path, (size_t)(strrchr(path, '/') - path));

		if (dir && *dir)
			mkdir_p(dir, 0755);
		free(dir);
	}
	if (mode == RESULTSDB_READ) {
		uri = readonly_uri(path);
		rc = sqlite3_open_v2(uri, &db->sql, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	} else {
		rc = sqlite3_open_v2(path, &db->sql, SQLITE_OPEN_READWRITE |
				     (mode == RESULTSDB_WRITE ? SQLITE_OPEN_CREATE : 0), NULL);
	}
	if (rc != SQLITE_OK) {
		if (!db->sql) {
			set_err(err, "cannot open database '%s': %s", path, sqlite3_errstr(rc));
			ret = -ENOMEM;
			goto out;
		}
		ret = fail(db, rc, err, "cannot open database");
		goto out;
	}
	sqlite3_busy_timeout(db->sql, BUSY_TIMEOUT_MS);
	/* Per connection, and only outside a transaction: before anything else. */
	ret = exec(db, "PRAGMA foreign_keys = ON", err, "cannot enable foreign keys in");
	if (ret < 0)
		goto out;
	ret = mode == RESULTSDB_READ ? check_readable(db, err) : migrate(db, err);
	if (ret < 0)
		goto out;
	*out = db;
	db = NULL;
out:
	free(uri);
	resultsdb_close(db);
	return ret;
}

int resultsdb_open(const char *path, struct resultsdb **out, char **err)
{
	return resultsdb_open_mode(path, RESULTSDB_WRITE, out, err);
}

void resultsdb_close(struct resultsdb *db)
{
	if (!db)
		return;
	/* Every statement is finalized where it was prepared. */
	sqlite3_close(db->sql);
	free(db->path);
	free(db);
}

int resultsdb_schema_version(struct resultsdb *db)
{
	return db->version;
}

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
		ret = prepare(db, "INSERT OR IGNORE INTO batches (batch_uuid, imported_utc) VALUES (?1, ?2)",
			      &st, err, what);
		if (ret < 0)
			return ret;
		rc = sqlite3_bind_text(st, 1, v[0], -1, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
		ret = rc == SQLITE_OK ? step_done(db, st, err, what) : fail(db, rc, err, what);
		sqlite3_finalize(st);
		st = NULL;
		if (ret < 0)
			return ret;
	}
	ret = prepare(db, "UPDATE runs SET batch_uuid = ?1, batch_round = CAST(?2 AS INTEGER),"
		      " batch_position = CAST(?3 AS INTEGER), run_name = ?4, switches = ?5,"
		      " invalid = CAST(?6 AS INTEGER) WHERE id = ?7", &st, err, what);
	if (ret < 0)
		return ret;
	rc = bind_texts(st, v, (int)ARRAY_SIZE(v));
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 7, id);
	ret = rc == SQLITE_OK ? step_done(db, st, err, what) : fail(db, rc, err, what);
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
		set_err(err, "cannot resolve '%s': %s", dir, strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		v[i] = keys[i] ? kvfile_get(info, keys[i]) : path;
	utc_iso8601(time(NULL), now, sizeof(now));
	v[ARRAY_SIZE(keys)] = now;
	what = xasprintf("cannot import batch '%s' into", v[0] ? v[0] : dir);
	if (!v[0]) {
		set_err(err, "%s/batch.txt: no batch_id", dir);
		ret = -EINVAL;
		goto out;
	}
	ret = prepare(db, upsert_batch_sql, &st, err, what);
	if (ret < 0)
		goto out;
	rc = bind_texts(st, v, (int)ARRAY_SIZE(v));
	ret = rc == SQLITE_OK ? step_done(db, st, err, what) : fail(db, rc, err, what);
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
		set_err(err, "run '%s': bench.txt has no run_id", name);
		return -EINVAL;
	}
	if (!f || safe_atoi(f, format) < 0) {
		set_err(err, "run '%s': bench.txt has no valid format", name);
		return -EINVAL;
	}
	if (!run_field(run, run->status, "status")) {
		set_err(err, "run '%s': bench.txt has no status", name);
		return -EINVAL;
	}
	for (int i = 0; m && i < M_COUNT; i++) {
		if (m->have[i] && isnan(m->v[i])) {
			set_err(err, "run '%s': metric %s is not a number", name,
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

	ret = prepare(db, "SELECT id FROM runs WHERE run_uuid = ?1", &st, err, what);
	if (ret < 0)
		goto out;
	rc = sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ret = fail(db, rc, err, what);
		goto out;
	}
	*id = sqlite3_column_int64(st, 0);
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

static int replace_metrics(struct resultsdb *db, sqlite3_int64 id, const struct metrics *m,
			   char **err, const char *what)
{
	sqlite3_stmt *del = NULL, *ins = NULL;
	int rc, ret;

	ret = prepare(db, "DELETE FROM metrics WHERE run_id = ?1", &del, err, what);
	if (ret < 0)
		goto out;
	ret = prepare(db, "INSERT INTO metrics (run_id, name, value) VALUES (?1, ?2, ?3)",
		      &ins, err, what);
	if (ret < 0)
		goto out;
	rc = sqlite3_bind_int64(del, 1, id);
	if (rc != SQLITE_OK) {
		ret = fail(db, rc, err, what);
		goto out;
	}
	ret = step_done(db, del, err, what);
	if (ret < 0)
		goto out;
	for (int i = 0; m && i < M_COUNT; i++) {
		if (!m->have[i])
			continue;
		rc = sqlite3_bind_int64(ins, 1, id);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(ins, 2, metric_defs[i].name, -1, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_double(ins, 3, m->v[i]);
		if (rc != SQLITE_OK) {
			ret = fail(db, rc, err, what);
			goto out;
		}
		ret = step_done(db, ins, err, what);
		if (ret < 0)
			goto out;
	}
out:
	sqlite3_finalize(del);
	sqlite3_finalize(ins);
	return ret;
}

static int replace_provenance(struct resultsdb *db, sqlite3_int64 id, const struct kvfile *kf,
			      char **err, const char *what)
{
	sqlite3_stmt *del = NULL, *ins = NULL;
	int rc, ret;

	ret = prepare(db, "DELETE FROM provenance WHERE run_id = ?1", &del, err, what);
	if (ret < 0)
		goto out;
	ret = prepare(db, "INSERT INTO provenance (run_id, seq, key, value)"
		      " VALUES (?1, ?2, ?3, ?4)", &ins, err, what);
	if (ret < 0)
		goto out;
	rc = sqlite3_bind_int64(del, 1, id);
	if (rc != SQLITE_OK) {
		ret = fail(db, rc, err, what);
		goto out;
	}
	ret = step_done(db, del, err, what);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < kf->n; i++) {
		rc = sqlite3_bind_int64(ins, 1, id);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(ins, 2, (sqlite3_int64)i);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(ins, 3, kf->items[i].key, -1, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(ins, 4, kf->items[i].value ? kf->items[i].value : "",
					       -1, SQLITE_STATIC);
		if (rc != SQLITE_OK) {
			ret = fail(db, rc, err, what);
			goto out;
		}
		ret = step_done(db, ins, err, what);
		if (ret < 0)
			goto out;
	}
out:
	sqlite3_finalize(del);
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
		set_err(err, "run '%s': no directory", run->name ? run->name : "?");
		ret = -EINVAL;
		goto out;
	}
	path = realpath(run->dir, NULL);
	if (!path) {
		ret = -errno;
		set_err(err, "cannot resolve '%s': %s", run->dir, strerror(-ret));
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

	ret = exec(db, "BEGIN IMMEDIATE", err, what);
	if (ret < 0)
		goto out;
	ret = prepare(db, upsert_run_sql, &st, err, what);
	if (ret < 0)
		goto out;
	rc = bind_run(st, run, name, path, format, m, opts, now);
	if (rc != SQLITE_OK) {
		ret = fail(db, rc, err, what);
		goto out;
	}
	ret = step_done(db, st, err, what);
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
	ret = exec(db, "COMMIT", err, what);
out:
	if (ret < 0)
		rollback(db);
	sqlite3_finalize(st);
	free(what);
	free(path);
	return ret;
}

/* Runs and their metrics, one row per metric (or one row with NULL metric
 * columns for a run without any), the rows of one run together. */
#define PROVENANCE_OF(key) \
	" (SELECT value FROM provenance AS p WHERE p.run_id = r.id AND p.key = '" key "'" \
	" ORDER BY seq LIMIT 1)"
static const char list_sql[] =
	"SELECT r.id, r.run_uuid, r.name, r.path, r.status, r.game, r.variant,"
	" r.started_utc, m.name, m.value, r.run_name, r.batch_uuid, r.kernel_release,"
	" r.invalid," PROVENANCE_OF("invalid_reason") "," PROVENANCE_OF("interfered") ","
	PROVENANCE_OF("interfered_reason") ", r.check_failed," PROVENANCE_OF("frame_source_kind")
	" FROM runs AS r LEFT JOIN metrics AS m ON m.run_id = r.id"
	" WHERE (?1 IS NULL OR r.game = ?1) AND (?2 IS NULL OR r.variant = ?2)"
	" ORDER BY r.started_utc, r.name, r.id";

static char *column_strdup(sqlite3_stmt *st, int col)
{
	return xstrdup((const char *)sqlite3_column_text(st, col));
}

/* As run.c says it of a run directory: invalid=1 or interfered=1, from the
 * invalid column, the invalid_reason, interfered, interfered_reason
 * provenance columns starting at col. */
static char *row_disturbed(sqlite3_stmt *st, int col)
{
	const char *interfered = (const char *)sqlite3_column_text(st, col + 2);
	const char *why;

	if (sqlite3_column_type(st, col) != SQLITE_NULL && sqlite3_column_int(st, col) == 1) {
		why = (const char *)sqlite3_column_text(st, col + 1);
		return why ? xasprintf("invalid=1 (%s)", why) : xstrdup("invalid=1");
	}
	if (interfered && strcmp(interfered, "1") == 0) {
		why = (const char *)sqlite3_column_text(st, col + 3);
		return why ? xasprintf("interfered=1 (%s)", why) : xstrdup("interfered=1");
	}
	return NULL;
}

int resultsdb_list(struct resultsdb *db, const char *game, const char *variant,
		   struct resultsdb_run **out, size_t *n, char **err)
{
	static const char what[] = "cannot list runs in";
	struct resultsdb_run *runs = NULL;
	size_t nruns = 0, alloc = 0;
	sqlite3_int64 last_id = 0;
	sqlite3_stmt *st = NULL;
	int rc, ret;

	ret = prepare(db, list_sql, &st, err, what);
	if (ret < 0)
		goto out;
	rc = sqlite3_bind_text(st, 1, game, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 2, variant, -1, SQLITE_STATIC);
	if (rc != SQLITE_OK) {
		ret = fail(db, rc, err, what);
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(st, 0);
		struct resultsdb_run *r;
		int metric;

		if (nruns == 0 || id != last_id) {
			if (nruns == alloc) {
				alloc = alloc ? alloc * 2 : 16;
				runs = xrealloc(runs, alloc * sizeof(*runs));
			}
			r = &runs[nruns++];
			memset(r, 0, sizeof(*r));
			r->run_id = column_strdup(st, 1);
			r->name = column_strdup(st, 2);
			r->path = column_strdup(st, 3);
			r->status = column_strdup(st, 4);
			r->game = column_strdup(st, 5);
			r->variant = column_strdup(st, 6);
			r->started_utc = column_strdup(st, 7);
			r->run_name = column_strdup(st, 10);
			r->batch_id = column_strdup(st, 11);
			r->kernel_release = column_strdup(st, 12);
			r->disturbed = row_disturbed(st, 13);
			r->check_failed = column_strdup(st, 17);
			r->interval = sqlite3_column_text(st, 18) &&
				      strcmp((const char *)sqlite3_column_text(st, 18), "interval") == 0;
			kvfile_init(&r->provenance);
			last_id = id;
		}
		r = &runs[nruns - 1];
		if (sqlite3_column_type(st, 8) == SQLITE_NULL)
			continue;
		/* A name this program does not know (a metric dropped since)
		 * is not an error: it has nowhere to go. */
		metric = metric_lookup((const char *)sqlite3_column_text(st, 8));
		if (metric < 0)
			continue;
		r->m.v[metric] = sqlite3_column_double(st, 9);
		r->m.have[metric] = true;
	}
	if (rc != SQLITE_DONE) {
		ret = fail(db, rc, err, what);
		goto out;
	}
	*out = runs;
	*n = nruns;
	runs = NULL;
	nruns = 0;
	ret = 0;
out:
	sqlite3_finalize(st);
	resultsdb_runs_free(runs, nruns);
	return ret;
}

void resultsdb_runs_free(struct resultsdb_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(runs[i].run_id);
		free(runs[i].name);
		free(runs[i].path);
		free(runs[i].status);
		free(runs[i].game);
		free(runs[i].variant);
		free(runs[i].started_utc);
		free(runs[i].run_name);
		free(runs[i].batch_id);
		free(runs[i].kernel_release);
		free(runs[i].disturbed);
		free(runs[i].check_failed);
		kvfile_release(&runs[i].provenance);
	}
	free(runs);
}

/* For bench/resultsdb-query.c, the read-only queries of compare and
 * regress, kept in a file of their own: the connection. */
int resultsdb_fail(struct resultsdb *db, int rc, char **err, const char *what)
{
	return fail(db, rc, err, what);
}

char *resultsdb_column_strdup(sqlite3_stmt *st, int col)
{
	return column_strdup(st, col);
}

sqlite3 *resultsdb_sqlite(struct resultsdb *db)
{
	return db->sql;
}

int resultsdb_load_provenance(struct resultsdb *db, struct resultsdb_run *runs, size_t n,
			      char **err)
{
	static const char what[] = "cannot read provenance in";
	sqlite3_stmt *st = NULL;
	int rc, ret;

	ret = prepare(db, "SELECT p.key, p.value FROM provenance AS p JOIN runs AS r"
		      " ON p.run_id = r.id WHERE r.run_uuid = ?1 ORDER BY p.seq", &st, err, what);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < n; i++) {
		kvfile_release(&runs[i].provenance);
		kvfile_init(&runs[i].provenance);
		sqlite3_reset(st);
		rc = sqlite3_bind_text(st, 1, runs[i].run_id, -1, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			while ((rc = sqlite3_step(st)) == SQLITE_ROW)
				kvfile_add(&runs[i].provenance, (const char *)sqlite3_column_text(st, 0),
					   (const char *)sqlite3_column_text(st, 1));
		if (rc != SQLITE_DONE) {
			ret = fail(db, rc, err, what);
			break;
		}
	}
	sqlite3_finalize(st);
	return ret;
}

void resultsdb_run_report_row(const struct resultsdb_run *run, struct report_row *row)
{
	memset(row, 0, sizeof(*row));
	row->run = run->name;
	row->game = run->game;
	row->variant = run->run_name ? run->run_name : run->variant;
	row->status = run->status;
	row->m = run->m;
	row->disturbed = run->disturbed;
	row->invalid = run->check_failed;
	row->interval = run->interval;
	row->run_id = run->run_id;
	row->dir = run->path;
	row->provenance = run->provenance.n ? &run->provenance : NULL;
	row->batch = run->batch_id;
	row->kernel = run->kernel_release;
	row->started_utc = run->started_utc;
}
