/*
 * One SQL connection, to SQLite or to PostgreSQL, behind the few calls the
 * results database makes (resultsdb*.c): open, exec, prepare, bind, step,
 * columns, transactions. The results database is one schema and one list
 * of migrations on both engines (docs/formats.md, "Results database");
 * what differs between them lives here and nowhere else:
 *
 *   - the target: a path is an SQLite file; "postgresql://..." or
 *     "postgres://..." (libpq's URI) is a PostgreSQL database;
 *   - parameters are written ?1, ?2, ... (SQLite's numbered form); for
 *     PostgreSQL they become $1, $2, ... (outside quoted text);
 *   - the schema's DDL is SQLite's dialect; sqldb_schema_sql() translates
 *     its few engine-specific words for PostgreSQL;
 *   - the schema version is PRAGMA user_version in SQLite and the one row
 *     of the table hitchbench_schema in PostgreSQL.
 *
 * Errors: every call that takes err returns 0 (or 1 for a row) or -errno
 * and, on failure only, appends "WHAT 'NAME': the engine's own message" to
 * err (a NULL err drops it: a rollback's, a reconnect's between tries).
 * Nothing is written to err on success. Two errno values say
 * that trying the same transaction again may work: -EAGAIN (SQLite busy
 * past its timeout; PostgreSQL's serialization failure or deadlock) and
 * -ECONNRESET (the PostgreSQL connection was lost; sqldb_reconnect()).
 * Nothing is printed here.
 */
#ifndef HB_SQLDB_H
#define HB_SQLDB_H

#include <stdbool.h>
#include <stdint.h>

enum sqldb_engine {
	SQLDB_SQLITE,
	SQLDB_POSTGRES,
};

enum sqldb_mode {
	SQLDB_CREATE,           /* read-write; an SQLite file is made when missing */
	SQLDB_WRITE,            /* read-write; an existing database only */
	SQLDB_READ,             /* read-only: nothing is written, not even a journal */
};

struct sqldb;
struct sqldb_stmt;
struct strbuf;

/* True for a target that names a PostgreSQL database. */
bool sqldb_is_url(const char *target);
/* target without a password ("postgresql://user@host/db"): what messages
 * and records show. A new string. */
char *sqldb_public_name(const char *target);

/* A command line as written (argv up to its NULL), joined as argv_join()
 * does, with every database URL's password left out ("--db URL" and
 * "--db=URL"): what batch.txt and bench.txt record. A new string. */
char *sqldb_command_line(char *const *argv);

int sqldb_open(const char *target, enum sqldb_mode mode, struct sqldb **out, struct strbuf *err);
/* sqldb_close(NULL) is safe. */
void sqldb_close(struct sqldb *db);
/* Opens the connection again after -ECONNRESET (PostgreSQL; SQLite has
 * none to lose). Statements prepared before are gone. */
int sqldb_reconnect(struct sqldb *db, struct strbuf *err);
enum sqldb_engine sqldb_engine(const struct sqldb *db);
/* The target as messages name it (sqldb_public_name()). */
const char *sqldb_name(const struct sqldb *db);

/* SQL without parameters, one or more statements. */
int sqldb_exec(struct sqldb *db, const char *sql, struct strbuf *err, const char *what);
/* A transaction that will write: SQLite takes the write lock at once
 * (BEGIN IMMEDIATE), PostgreSQL begins at READ COMMITTED, each statement
 * taking the row locks it needs. */
int sqldb_begin(struct sqldb *db, struct strbuf *err, const char *what);
int sqldb_commit(struct sqldb *db, struct strbuf *err, const char *what);
/* Rolls back what a failed operation left open (nothing when none is). */
void sqldb_rollback(struct sqldb *db);
/* Only one process at a time past this point until the transaction ends
 * (migrations): SQLite's write lock is that already; PostgreSQL takes a
 * transaction-level advisory lock. */
int sqldb_lock_schema(struct sqldb *db, struct strbuf *err, const char *what);

/* The schema version (0: none), and setting it inside a transaction. */
int sqldb_schema_version(struct sqldb *db, int *version, struct strbuf *err);
int sqldb_set_schema_version(struct sqldb *db, int version, struct strbuf *err);
/* A migration's SQL for this engine: a new string (sqldb.c says what is
 * translated). */
char *sqldb_schema_sql(const struct sqldb *db, const char *sql);

int sqldb_prepare(struct sqldb *db, const char *sql, struct sqldb_stmt **st, struct strbuf *err,
		  const char *what);
/* Parameters count from 1. A NULL text binds SQL NULL (typed text). The
 * values are copied. A bind never fails here: a wrong index is the
 * step's error. */
void sqldb_bind_text(struct sqldb_stmt *st, int i, const char *v);
void sqldb_bind_int64(struct sqldb_stmt *st, int i, int64_t v);
void sqldb_bind_double(struct sqldb_stmt *st, int i, double v);
void sqldb_bind_null(struct sqldb_stmt *st, int i);
/* 1 with a row to read, 0 when done, or -errno with a message in err. */
int sqldb_step(struct sqldb_stmt *st, struct strbuf *err, const char *what);
/* sqldb_step() of a statement that returns no rows, then sqldb_reset(). */
int sqldb_step_done(struct sqldb_stmt *st, struct strbuf *err, const char *what);
/* Ready to run again: the bindings cleared. */
void sqldb_reset(struct sqldb_stmt *st);
/* sqldb_finalize(NULL) is safe. */
void sqldb_finalize(struct sqldb_stmt *st);

bool sqldb_column_null(struct sqldb_stmt *st, int col);
/* NULL for SQL NULL; valid until the next step, reset or finalize. */
const char *sqldb_column_text(struct sqldb_stmt *st, int col);
/* A new string, or NULL for SQL NULL. */
char *sqldb_column_strdup(struct sqldb_stmt *st, int col);
int64_t sqldb_column_int64(struct sqldb_stmt *st, int col);
double sqldb_column_double(struct sqldb_stmt *st, int col);

#endif
