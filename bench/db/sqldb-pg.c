/*
 * sqldb.h on PostgreSQL (libpq): the lab's one results database, written by
 * every machine at once.
 *
 * Each statement is sent with its parameters as text, each typed as it was
 * bound (bigint, double precision, text; NULL untyped) so that the server
 * infers nothing it could infer wrong. The session's notices (CREATE ...
 * IF NOT EXISTS saying it skipped) are dropped rather than printed by
 * libpq onto the command's stderr. A read-only open makes the session's
 * transactions READ ONLY, so that a command that reads cannot write the
 * lab's database even by mistake.
 *
 * The errors that say "try the transaction again" (sqldb.h): SQLSTATE
 * 40001 (serialization failure) and 40P01 (deadlock) are -EAGAIN; a lost
 * connection (class 08, an administrator's shutdown 57P01-57P03, or libpq
 * finding the connection bad) is -ECONNRESET.
 */
#include "db/sqldb-internal.h"
#include "base/util.h"

#include <errno.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

/* struct pg_conn is libpq's PGconn, struct pg_result its PGresult. */

static int state_errno(const char *state, PGconn *conn)
{
	if (PQstatus(conn) == CONNECTION_BAD)
		return -ECONNRESET;
	if (!state)
		return -EIO;
	if (!strcmp(state, "40001") || !strcmp(state, "40P01"))
		return -EAGAIN;
	if (!strncmp(state, "08", 2) || !strcmp(state, "57P01") || !strcmp(state, "57P02") ||
	    !strcmp(state, "57P03"))
		return -ECONNRESET;
	if (!strcmp(state, "25006"))
		return -EROFS;
	if (!strcmp(state, "42501") || !strncmp(state, "28", 2))
		return -EACCES;
	if (!strcmp(state, "53100"))
		return -ENOSPC;
	if (!strncmp(state, "53", 2))
		return -ENOMEM;
	if (!strcmp(state, "3D000"))
		return -ENOENT;
	return -EINVAL;
}

static int pg_fail(struct sqldb *db, PGresult *res, struct strbuf *err, const char *what)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = res ? PQresultErrorMessage(res) : NULL;

	if (!msg || !*msg)
		msg = PQerrorMessage(db->pg);
	return sqldb_fail(db, state_errno(state, db->pg), err, what, msg);
}

static void drop_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Runs sql without parameters; 0 when it did what it should. */
static int pg_run(struct sqldb *db, const char *sql, struct strbuf *err, const char *what)
{
	PGresult *res = PQexec(db->pg, sql);
	ExecStatusType s = PQresultStatus(res);
	int ret = 0;

	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK)
		ret = pg_fail(db, res, err, what);
	PQclear(res);
	return ret;
}

int sqldb_pg_open(struct sqldb *db, struct strbuf *err)
{
	int ret;

	db->pg = PQconnectdb(db->target);
	if (!db->pg)
		return sqldb_fail(db, -ENOMEM, err, "cannot connect to", NULL);
	if (PQstatus(db->pg) != CONNECTION_OK) {
		const char *msg = PQerrorMessage(db->pg);

		/* the database named does not exist */
		ret = strstr(msg, "does not exist") ? -ENOENT : -ECONNREFUSED;
		ret = sqldb_fail(db, ret, err, "cannot connect to", msg);
		PQfinish(db->pg);
		db->pg = NULL;
		return ret;
	}
	PQsetNoticeProcessor(db->pg, drop_notice, NULL);
	ret = pg_run(db, "SET client_min_messages = warning", err, "cannot set up the session with");
	if (ret == 0 && db->mode == SQLDB_READ)
		ret = pg_run(db, "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", err,
			     "cannot make the session read-only with");
	return ret;
}

void sqldb_pg_close(struct sqldb *db)
{
	PQfinish(db->pg);
	db->pg = NULL;
}

int sqldb_pg_exec(struct sqldb *db, const char *sql, struct strbuf *err, const char *what)
{
	if (!db->pg)
		return sqldb_fail(db, -ECONNRESET, err, what, "not connected");
	return pg_run(db, sql, err, what);
}

bool sqldb_pg_in_transaction(struct sqldb *db)
{
	return db->pg && PQtransactionStatus(db->pg) != PQTRANS_IDLE &&
	       PQtransactionStatus(db->pg) != PQTRANS_UNKNOWN;
}

/* One value of a query without parameters: a new string, NULL for SQL NULL. */
static int pg_value(struct sqldb *db, const char *sql, char **value, struct strbuf *err, const char *what)
{
	PGresult *res = PQexec(db->pg, sql);
	int ret = 0;

	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1 || PQnfields(res) != 1)
		ret = pg_fail(db, res, err, what);
	else
		*value = PQgetisnull(res, 0, 0) ? NULL : xstrdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return ret;
}

int sqldb_pg_schema_version(struct sqldb *db, int *version, struct strbuf *err)
{
	static const char what[] = "cannot read the schema version of";
	char *v = NULL;
	int ret;

	if (!db->pg)
		return sqldb_fail(db, -ECONNRESET, err, what, "not connected");
	/* no table yet: a database no migration has touched, version 0 */
	*version = 0;
	ret = pg_value(db, "SELECT to_regclass('hitchbench_schema')", &v, err, what);
	if (ret < 0 || !v)
		return ret;
	free(v);
	v = NULL;
	ret = pg_value(db, "SELECT max(version) FROM hitchbench_schema", &v, err, what);
	if (ret == 0 && v && safe_atoi(v, version) < 0)
		ret = sqldb_fail(db, -EINVAL, err, what, "hitchbench_schema holds no number");
	free(v);
	return ret;
}

int sqldb_pg_set_schema_version(struct sqldb *db, int version, struct strbuf *err)
{
	char *sql = xasprintf("CREATE TABLE IF NOT EXISTS hitchbench_schema (version INTEGER NOT NULL);"
			      " DELETE FROM hitchbench_schema;"
			      " INSERT INTO hitchbench_schema (version) VALUES (%d)", version);
	int ret = sqldb_pg_exec(db, sql, err, "cannot set the schema version of");

	free(sql);
	return ret;
}

/* The rest of a statement's results read and dropped: libpq takes no new
 * statement on the connection before. */
static void drain(struct sqldb_stmt *st)
{
	PGresult *res;

	PQclear(st->res);
	st->res = NULL;
	if (!st->ran || st->done || !st->db->pg)
		return;
	while ((res = PQgetResult(st->db->pg)))
		PQclear(res);
	st->done = true;
}

/*
 * A statement is sent with PQsendQueryParams in single-row mode: its rows
 * come one at a time, so a listing of a lab's 100,000 runs and their 3
 * million metric values is never held whole by libpq (docs/lab.md: the
 * peak memory of a matrix).
 */
int sqldb_pg_step(struct sqldb_stmt *st, struct strbuf *err, const char *what)
{
	struct sqldb *db = st->db;
	ExecStatusType s;

	if (!st->ran) {
		const char **values;
		Oid *types;
		int sent;

		if (st->bind_rc < 0)
			return sqldb_fail(db, st->bind_rc, err, what, "a parameter out of the statement's range");
		if (!db->pg)
			return sqldb_fail(db, -ECONNRESET, err, what, "not connected");
		values = zalloc(((size_t)st->n_params + 1) * sizeof(*values));
		types = zalloc(((size_t)st->n_params + 1) * sizeof(*types));
		for (int i = 0; i < st->n_params; i++) {
			values[i] = st->params[i].text;
			types[i] = st->params[i].oid;
		}
		sent = PQsendQueryParams(db->pg, st->sql, st->n_params, types, values, NULL, NULL, 0);
		free(values);
		free(types);
		if (!sent)
			return pg_fail(db, NULL, err, what);
		PQsetSingleRowMode(db->pg);
		st->ran = true;
		st->done = false;
	}
	if (st->done)
		return 0;
	PQclear(st->res);
	st->res = PQgetResult(db->pg);
	s = PQresultStatus(st->res);
	if (st->res && s == PGRES_SINGLE_TUPLE) {
		st->row = 0;
		st->rows = 1;
		return 1;
	}
	st->rows = 0;
	if (!st->res || s == PGRES_TUPLES_OK || s == PGRES_COMMAND_OK) {
		drain(st);
		return 0;
	}
	{
		int ret = pg_fail(db, st->res, err, what);

		drain(st);
		return ret;
	}
}

void sqldb_pg_reset(struct sqldb_stmt *st)
{
	drain(st);
	st->ran = false;
	st->done = false;
	st->row = -1;
	st->rows = 0;
}

const char *sqldb_pg_value(struct sqldb_stmt *st, int col)
{
	if (!st->res || st->row < 0 || st->row >= st->rows || col < 0 || col >= PQnfields(st->res) ||
	    PQgetisnull(st->res, st->row, col))
		return NULL;
	return PQgetvalue(st->res, st->row, col);
}
