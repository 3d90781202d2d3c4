/*
 * The results database (see resultsdb.h): SQLite behind the few operations
 * the commands need, so that no command writes SQL of its own and the
 * schema (bench/schema/NNNN-*.sql, compiled in as schema_migrations[])
 * is applied the same way by every program that opens a database. This
 * file opens, migrates and closes a database and holds the SQL helpers
 * the other parts share (resultsdb-internal.h lists the parts).
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
#include "util.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* How long to wait for another process's lock before failing with -EBUSY. */
#define BUSY_TIMEOUT_MS 5000

struct resultsdb {
	sqlite3 *sql;
	char *path;
	int version;            /* PRAGMA user_version once migrated */
};

void resultsdb_set_err(char **err, const char *fmt, ...)
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

int resultsdb_fail(struct resultsdb *db, int rc, char **err, const char *what)
{
	resultsdb_set_err(err, "%s '%s': %s", what, db->path, sqlite3_errmsg(db->sql));
	return sqlite_errno(db->sql, rc);
}

int resultsdb_exec(struct resultsdb *db, const char *sql, char **err, const char *what)
{
	int rc = sqlite3_exec(db->sql, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : resultsdb_fail(db, rc, err, what);
}

/* Rolls back what a failed operation left open. SQLite rolls back by itself
 * on some errors (full disk, I/O), hence the check. */
void resultsdb_rollback(struct resultsdb *db)
{
	if (!sqlite3_get_autocommit(db->sql))
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}

int resultsdb_prepare(struct resultsdb *db, const char *sql, sqlite3_stmt **st, char **err,
		   const char *what)
{
	int rc = sqlite3_prepare_v2(db->sql, sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0 : resultsdb_fail(db, rc, err, what);
}

/* Runs a statement that returns no rows and readies it for new bindings. */
int resultsdb_step_done(struct resultsdb *db, sqlite3_stmt *st, char **err, const char *what)
{
	int rc = sqlite3_step(st);
	int ret = rc == SQLITE_DONE ? 0 : resultsdb_fail(db, rc, err, what);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

static int read_user_version(struct resultsdb *db, int *out, char **err)
{
	sqlite3_stmt *st = NULL;
	int rc, ret;

	ret = resultsdb_prepare(db, "PRAGMA user_version", &st, err, "cannot read the schema version of");
	if (ret < 0)
		goto out;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ret = resultsdb_fail(db, rc, err, "cannot read the schema version of");
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
	resultsdb_set_err(err, "database '%s' has schema version %d, newer than this hitchbench knows (%d): "
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

	ret = resultsdb_exec(db, "BEGIN IMMEDIATE", err, what);
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
		ret = resultsdb_exec(db, mig->sql, err, what);
		if (ret < 0)
			goto out;
		set = xasprintf("PRAGMA user_version = %d", mig->version);
		ret = resultsdb_exec(db, set, err, what);
		if (ret < 0)
			goto out;
	}
	ret = resultsdb_exec(db, "COMMIT", err, what);
out:
	if (ret < 0)
		resultsdb_rollback(db);
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
		resultsdb_set_err(err, "'%s' holds no results database (schema version 0): an empty file, or "
			"another program's database", db->path);
		return -ENOTSUP;
	}
	if (db->version < newest_version()) {
		resultsdb_set_err(err, "database '%s' has schema version %d, older than this hitchbench reads (%d): "
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
			resultsdb_set_err(err, "no such database: %s", path);
		else
			resultsdb_set_err(err, "cannot open database '%s': %s", path, strerror(e));
		return e == ENOTDIR ? -ENOENT : -e;
	}
	if (S_ISDIR(st.st_mode)) {
		resultsdb_set_err(err, "cannot open database '%s': it is a directory", path);
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
			resultsdb_set_err(err, "cannot open database '%s': %s", path, sqlite3_errstr(rc));
			ret = -ENOMEM;
			goto out;
		}
		ret = resultsdb_fail(db, rc, err, "cannot open database");
		goto out;
	}
	sqlite3_busy_timeout(db->sql, BUSY_TIMEOUT_MS);
	/* Per connection, and only outside a transaction: before anything else. */
	ret = resultsdb_exec(db, "PRAGMA foreign_keys = ON", err, "cannot enable foreign keys in");
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

sqlite3 *resultsdb_sqlite(struct resultsdb *db)
{
	return db->sql;
}
