/*
 * What sqldb.c (the engine-independent part: targets, names, parameter
 * and schema translation, the calls that dispatch) shares with the two
 * engines, sqldb-sqlite.c and sqldb-pg.c. Not for resultsdb*.c: they see
 * sqldb.h only.
 */
#ifndef HB_SQLDB_INTERNAL_H
#define HB_SQLDB_INTERNAL_H

#include "db/sqldb.h"

#include <stddef.h>
#include <stdint.h>

struct sqlite3;
struct sqlite3_stmt;
struct pg_conn;
struct pg_result;

struct sqldb {
	enum sqldb_engine engine;
	enum sqldb_mode mode;
	char *target;           /* as given (a URL may hold a password) */
	char *name;             /* sqldb_public_name(target) */
	struct sqlite3 *lite;
	struct pg_conn *pg;
};

/* A parameter as PostgreSQL takes it: text, with the type it was bound as
 * (0 for NULL), so that "?1 IS NULL" and an integer column both work. */
struct sqldb_param {
	char *text;
	unsigned oid;
};

struct sqldb_stmt {
	struct sqldb *db;
	/* SQLite */
	struct sqlite3_stmt *lite;
	int bind_rc;            /* the first failed bind's code, SQLITE_OK */
	/* PostgreSQL: the statement with $N, its parameters, its result */
	char *sql;
	struct sqldb_param *params;
	int n_params;
	struct pg_result *res;
	int row, rows;          /* the row sqldb_step() is on; -1 before the first */
	bool ran;
	bool done;              /* every result of the statement read */
};

/* Appends "WHAT 'NAME': msg" (msg NULL: strerror(-ret)) to err, unless err
 * is NULL, and returns ret. */
int sqldb_fail(struct sqldb *db, int ret, struct strbuf *err, const char *what, const char *msg);

/* Statements with ?N parameters as PostgreSQL's $N (quoted text, quoted
 * names and comments kept as they are); the highest N in *n_params. */
char *sqldb_pg_params(const char *sql, int *n_params);
/* A migration's DDL in SQLite's dialect as PostgreSQL's. */
char *sqldb_pg_schema(const char *sql);

int sqldb_lite_open(struct sqldb *db, struct strbuf *err);
void sqldb_lite_close(struct sqldb *db);
int sqldb_lite_exec(struct sqldb *db, const char *sql, struct strbuf *err, const char *what);
int sqldb_lite_schema_version(struct sqldb *db, int *version, struct strbuf *err);
int sqldb_lite_set_schema_version(struct sqldb *db, int version, struct strbuf *err);
int sqldb_lite_prepare(struct sqldb_stmt *st, const char *sql, struct strbuf *err, const char *what);
int sqldb_lite_step(struct sqldb_stmt *st, struct strbuf *err, const char *what);
void sqldb_lite_reset(struct sqldb_stmt *st);
void sqldb_lite_finalize(struct sqldb_stmt *st);
bool sqldb_lite_in_transaction(struct sqldb *db);
void sqldb_lite_bind_text(struct sqldb_stmt *st, int i, const char *v);
void sqldb_lite_bind_int64(struct sqldb_stmt *st, int i, int64_t v);
void sqldb_lite_bind_double(struct sqldb_stmt *st, int i, double v);
void sqldb_lite_bind_null(struct sqldb_stmt *st, int i);
/* NULL for SQL NULL */
const char *sqldb_lite_value(struct sqldb_stmt *st, int col);
int64_t sqldb_lite_int64(struct sqldb_stmt *st, int col);
double sqldb_lite_double(struct sqldb_stmt *st, int col);

int sqldb_pg_open(struct sqldb *db, struct strbuf *err);
void sqldb_pg_close(struct sqldb *db);
int sqldb_pg_exec(struct sqldb *db, const char *sql, struct strbuf *err, const char *what);
int sqldb_pg_schema_version(struct sqldb *db, int *version, struct strbuf *err);
int sqldb_pg_set_schema_version(struct sqldb *db, int version, struct strbuf *err);
int sqldb_pg_step(struct sqldb_stmt *st, struct strbuf *err, const char *what);
void sqldb_pg_reset(struct sqldb_stmt *st);
bool sqldb_pg_in_transaction(struct sqldb *db);
/* NULL for SQL NULL or a row or column out of the result */
const char *sqldb_pg_value(struct sqldb_stmt *st, int col);

#endif
