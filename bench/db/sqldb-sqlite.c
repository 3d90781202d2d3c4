/*
 * sqldb.h on SQLite: a results database in a file beside the run
 * directories, the harness's own and every machine's local one.
 *
 * Journal mode: the default rollback journal, not WAL. A results database
 * is often kept beside the run directories on a shared or synced directory
 * (NFS, SMB, a laptop's sync folder), and WAL needs a shared-memory index
 * that only works for processes on one host; it also leaves -wal and -shm
 * files that a copy can separate from the database. Writes are short (one
 * transaction per imported run). A database a user has switched to WAL
 * stays in WAL: the mode is persistent and is not touched here.
 */
#include "db/sqldb-internal.h"
#include "base/util.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* How long to wait for another process's lock before failing with -EAGAIN. */
#define BUSY_TIMEOUT_MS 5000

/* An SQLite result code as -errno, for callers that pick an exit code or
 * try again; the message carries SQLite's own words. */
static int lite_errno(sqlite3 *sql, int rc)
{
	int sys;

	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EAGAIN;
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

static int lite_fail(struct sqldb *db, int rc, struct strbuf *err, const char *what)
{
	return sqldb_fail(db, lite_errno(db->lite, rc), err, what,
			  db->lite ? sqlite3_errmsg(db->lite) : sqlite3_errstr(rc));
}

int sqldb_lite_exec(struct sqldb *db, const char *sql, struct strbuf *err, const char *what)
{
	int rc = sqlite3_exec(db->lite, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : lite_fail(db, rc, err, what);
}

bool sqldb_lite_in_transaction(struct sqldb *db)
{
	return !sqlite3_get_autocommit(db->lite);
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

/* Only SQLDB_CREATE may make the database, and the directory it goes in. */
static int open_existing(struct sqldb *db, struct strbuf *err)
{
	struct stat st;

	if (stat(db->target, &st) < 0) {
		int e = errno;

		if (e == ENOENT || e == ENOTDIR) {
			if (err)
				strbuf_addf(err, "no such database: %s", db->target);
			return -ENOENT;
		}
		return sqldb_fail(db, -e, err, "cannot open database", NULL);
	}
	if (S_ISDIR(st.st_mode))
		return sqldb_fail(db, -EISDIR, err, "cannot open database", "it is a directory");
	return 0;
}

int sqldb_lite_open(struct sqldb *db, struct strbuf *err)
{
	const char *path = db->target;
	char *uri = NULL;
	int rc, ret;

	if (db->mode != SQLDB_CREATE && (ret = open_existing(db, err)) < 0)
		return ret;
	if (db->mode == SQLDB_CREATE && strrchr(path, '/')) {
		/* a new database may live in a directory not made yet */
		char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));

		if (*dir)
			mkdir_p(dir, 0755);
		free(dir);
	}
	if (db->mode == SQLDB_READ) {
		uri = readonly_uri(path);
		rc = sqlite3_open_v2(uri, &db->lite, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	} else {
		rc = sqlite3_open_v2(path, &db->lite, SQLITE_OPEN_READWRITE |
				     (db->mode == SQLDB_CREATE ? SQLITE_OPEN_CREATE : 0), NULL);
	}
	free(uri);
	if (rc != SQLITE_OK)
		return lite_fail(db, rc, err, "cannot open database");
	sqlite3_busy_timeout(db->lite, BUSY_TIMEOUT_MS);
	/* Per connection, and only outside a transaction: before anything else. */
	return sqldb_lite_exec(db, "PRAGMA foreign_keys = ON", err, "cannot enable foreign keys in");
}

void sqldb_lite_close(struct sqldb *db)
{
	/* Every statement is finalized where it was prepared. */
	sqlite3_close(db->lite);
	db->lite = NULL;
}

int sqldb_lite_schema_version(struct sqldb *db, int *version, struct strbuf *err)
{
	static const char what[] = "cannot read the schema version of";
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(db->lite, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : lite_fail(db, rc, err, what);
}

int sqldb_lite_set_schema_version(struct sqldb *db, int version, struct strbuf *err)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	return sqldb_lite_exec(db, sql, err, "cannot set the schema version of");
}

int sqldb_lite_prepare(struct sqldb_stmt *st, const char *sql, struct strbuf *err, const char *what)
{
	int rc = sqlite3_prepare_v2(st->db->lite, sql, -1, &st->lite, NULL);

	return rc == SQLITE_OK ? 0 : lite_fail(st->db, rc, err, what);
}

/* The first failed bind is kept for the step to report. */
static void keep_rc(struct sqldb_stmt *st, int rc)
{
	if (st->bind_rc == SQLITE_OK)
		st->bind_rc = rc;
}

void sqldb_lite_bind_text(struct sqldb_stmt *st, int i, const char *v)
{
	keep_rc(st, sqlite3_bind_text(st->lite, i, v, -1, SQLITE_TRANSIENT));
}

void sqldb_lite_bind_int64(struct sqldb_stmt *st, int i, int64_t v)
{
	keep_rc(st, sqlite3_bind_int64(st->lite, i, (sqlite3_int64)v));
}

void sqldb_lite_bind_double(struct sqldb_stmt *st, int i, double v)
{
	keep_rc(st, sqlite3_bind_double(st->lite, i, v));
}

void sqldb_lite_bind_null(struct sqldb_stmt *st, int i)
{
	keep_rc(st, sqlite3_bind_null(st->lite, i));
}

int sqldb_lite_step(struct sqldb_stmt *st, struct strbuf *err, const char *what)
{
	int rc = st->bind_rc;

	if (rc == SQLITE_OK)
		rc = sqlite3_step(st->lite);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return lite_fail(st->db, rc, err, what);
}

void sqldb_lite_reset(struct sqldb_stmt *st)
{
	sqlite3_reset(st->lite);
	sqlite3_clear_bindings(st->lite);
}

void sqldb_lite_finalize(struct sqldb_stmt *st)
{
	sqlite3_finalize(st->lite);
}

const char *sqldb_lite_value(struct sqldb_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st->lite, col);
}

int64_t sqldb_lite_int64(struct sqldb_stmt *st, int col)
{
	return sqlite3_column_int64(st->lite, col);
}

double sqldb_lite_double(struct sqldb_stmt *st, int col)
{
	return sqlite3_column_double(st->lite, col);
}
