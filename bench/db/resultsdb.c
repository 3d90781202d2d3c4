/*
 * The results database (see resultsdb.h): SQLite or PostgreSQL (sqldb.h)
 * behind the few operations the commands need, so that no command writes
 * SQL of its own and the schema (bench/db/schema/NNNN-*.sql, compiled in as
 * schema_migrations[]) is applied the same way by every program that opens
 * a database, on either engine. This file opens, migrates and closes a
 * database and holds the helpers the other parts share
 * (resultsdb-internal.h lists the parts).
 */
#include "db/resultsdb.h"
#include "db/resultsdb-internal.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>

struct resultsdb {
	struct sqldb *sql;
	int version;            /* the schema version once migrated */
};

static int newest_version(void)
{
	return schema_migration_count ? schema_migrations[schema_migration_count - 1].version : 0;
}

static int refuse_newer(struct resultsdb *db, int version, struct strbuf *err)
{
	strbuf_addf(err, "database '%s' has schema version %d, newer than this hitchbench knows (%d): "
		"use a newer hitchbench", sqldb_name(db->sql), version, newest_version());
	return -ENOTSUP;
}

/* Applies one migration unless another process got there first: the
 * version is read again under the lock (SQLite's write lock, which BEGIN
 * IMMEDIATE takes; PostgreSQL's advisory lock). */
static int apply_migration(struct resultsdb *db, const struct schema_migration *mig, struct strbuf *err)
{
	char *what = xasprintf("cannot apply migration %s to", mig->name);
	char *sql = NULL;
	int version, ret;

	ret = sqldb_begin(db->sql, err, what);
	if (ret < 0)
		goto out;
	ret = sqldb_lock_schema(db->sql, err, what);
	if (ret < 0)
		goto out;
	ret = sqldb_schema_version(db->sql, &version, err);
	if (ret < 0)
		goto out;
	if (version > newest_version()) {
		ret = refuse_newer(db, version, err);
		goto out;
	}
	if (version < mig->version) {
		sql = sqldb_schema_sql(db->sql, mig->sql);
		ret = sqldb_exec(db->sql, sql, err, what);
		if (ret < 0)
			goto out;
		ret = sqldb_set_schema_version(db->sql, mig->version, err);
		if (ret < 0)
			goto out;
	}
	ret = sqldb_commit(db->sql, err, what);
out:
	if (ret < 0)
		sqldb_rollback(db->sql);
	free(sql);
	free(what);
	return ret;
}

static int migrate(struct resultsdb *db, struct strbuf *err)
{
	int version, ret;

	ret = sqldb_schema_version(db->sql, &version, err);
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
	return sqldb_schema_version(db->sql, &db->version, err);
}

/* A reader takes the schema as it is: the queries are the newest
 * schema's, and upgrading is a write. */
static int check_readable(struct resultsdb *db, struct strbuf *err)
{
	const char *name = sqldb_name(db->sql);
	int ret = sqldb_schema_version(db->sql, &db->version, err);

	if (ret < 0)
		return ret;
	if (db->version > newest_version())
		return refuse_newer(db, db->version, err);
	if (db->version == 0) {
		strbuf_addf(err, "'%s' holds no results database (schema version 0): an empty file, or "
			"another program's database", name);
		return -ENOTSUP;
	}
	if (db->version < newest_version()) {
		strbuf_addf(err, "database '%s' has schema version %d, older than this hitchbench reads (%d): "
			"'hitchbench db upgrade --db %s' upgrades it (a read never does)", name,
			db->version, newest_version(), name);
		return -ENOTSUP;
	}
	return 0;
}

int resultsdb_open_mode(const char *path, enum resultsdb_mode mode, struct resultsdb **out,
			struct strbuf *err)
{
	static const enum sqldb_mode modes[] = {
		[RESULTSDB_WRITE] = SQLDB_CREATE,
		[RESULTSDB_UPGRADE] = SQLDB_WRITE,
		[RESULTSDB_READ] = SQLDB_READ,
	};
	struct resultsdb *db = zalloc(sizeof(*db));
	int ret;

	ret = sqldb_open(path, modes[mode], &db->sql, err);
	if (ret < 0)
		goto out;
	ret = mode == RESULTSDB_READ ? check_readable(db, err) : migrate(db, err);
	if (ret < 0)
		goto out;
	*out = db;
	db = NULL;
out:
	resultsdb_close(db);
	return ret;
}

int resultsdb_open(const char *path, struct resultsdb **out, struct strbuf *err)
{
	return resultsdb_open_mode(path, RESULTSDB_WRITE, out, err);
}

void resultsdb_close(struct resultsdb *db)
{
	if (!db)
		return;
	/* Every statement is finalized where it was prepared. */
	sqldb_close(db->sql);
	free(db);
}

int resultsdb_schema_version(struct resultsdb *db)
{
	return db->version;
}

const char *resultsdb_name(struct resultsdb *db)
{
	return sqldb_name(db->sql);
}

bool resultsdb_is_lab(struct resultsdb *db)
{
	return sqldb_engine(db->sql) == SQLDB_POSTGRES;
}

struct sqldb *resultsdb_sqldb(struct resultsdb *db)
{
	return db->sql;
}

/* How often, and after how long, a transaction that failed for a reason
 * that passes (sqldb.h: -EAGAIN, -ECONNRESET) is tried again: 8 tries over
 * about 13 s, the waits doubling from 50 ms with up to half again at
 * random, so that writers that collided do not collide again in step. */
#define RETRY_TRIES 8
#define RETRY_FIRST_MS 50

int resultsdb_transaction(struct resultsdb *db, resultsdb_body *body, void *arg, struct strbuf *err,
			  const char *what)
{
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)&seed;
	long wait_ms = RETRY_FIRST_MS;
	/* the last failed try's message: only the one that ends it is said */
	struct strbuf last = STRBUF_INIT, e = STRBUF_INIT;
	int ret = 0;

	for (int attempt = 1; attempt <= RETRY_TRIES; attempt++) {
		if (attempt > 1) {
			long ms = wait_ms + (long)(rand_r(&seed) % (unsigned)(wait_ms / 2 + 1));

			sleep_ms((unsigned)ms);
			wait_ms *= 2;
			if (ret == -ECONNRESET && sqldb_reconnect(db->sql, NULL) < 0)
				continue;       /* still down: the same error again */
		}
		strbuf_reset(&e);
		ret = sqldb_begin(db->sql, &e, what);
		if (ret == 0)
			ret = body(db, arg, &e);
		if (ret == 0)
			ret = sqldb_commit(db->sql, &e, what);
		if (ret == 0)
			break;
		sqldb_rollback(db->sql);
		if (e.len) {
			strbuf_reset(&last);
			strbuf_add(&last, e.buf, e.len);
		}
		if (ret != -EAGAIN && ret != -ECONNRESET)
			break;
	}
	if (ret < 0 && last.len)
		strbuf_add(err, last.buf, last.len);
	strbuf_release(&e);
	strbuf_release(&last);
	return ret;
}
