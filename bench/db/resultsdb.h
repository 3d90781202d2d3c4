/*
 * The results database: one row per run, one row per metric value, every
 * bench.txt pair kept as provenance. It is an index of run directories and
 * can always be rebuilt from them (hitchbench db import). It lives in an
 * SQLite file (a path) or, for a lab of machines, in PostgreSQL (a
 * "postgresql://..." URL): one schema on both (sqldb.h says what differs).
 * Schema: bench/db/schema/NNNN-*.sql, applied in order as migrations and
 * recorded as the schema version (SQLite's PRAGMA user_version,
 * PostgreSQL's table hitchbench_schema); documented in docs/formats.md.
 */
#ifndef HB_RESULTSDB_H
#define HB_RESULTSDB_H

#include <stdbool.h>
#include <stddef.h>

#include "metrics/metrics.h"
#include "run/run.h"

struct resultsdb;
struct strbuf;

/* The migrations, generated from bench/db/schema/ at build time. */
struct schema_migration {
	int version;            /* NNNN of the file name */
	const char *name;       /* file name */
	const char *sql;
};
extern const struct schema_migration schema_migrations[];
extern const size_t schema_migration_count;

/* Errors: every function taking struct strbuf *err returns 0 or -errno
 * and, on failure only, appends to err a message for the command layer to
 * print; the engine's own text is part of it. Nothing is written to err on
 * success, and nothing is printed here.
 *
 * path: an SQLite file, or a PostgreSQL URL (a server that cannot be
 * reached is -ECONNREFUSED).
 * Opens (creating if needed) and migrates to the newest schema: each
 * pending migration in its own transaction, then PRAGMA user_version = its
 * NNNN. A database newer than this program is refused with -ENOTSUP. The
 * journal mode is left as the file has it (rollback journal for a new
 * database: see sqldb-sqlite.c for why not WAL). Busy databases are waited
 * for a few seconds, then -EAGAIN. */
int resultsdb_open(const char *path, struct resultsdb **out, struct strbuf *err);

/* What a command may do to the database it opens. */
enum resultsdb_mode {
	RESULTSDB_WRITE,        /* resultsdb_open(): created when missing, migrated */
	RESULTSDB_UPGRADE,      /* an existing database, migrated; nothing is created */
	RESULTSDB_READ,         /* an existing database, read-only (SQLite mode=ro) */
};
/* resultsdb_open() as mode says. RESULTSDB_READ and RESULTSDB_UPGRADE
 * refuse a missing path with -ENOENT and "no such database: PATH", and
 * make no directory. RESULTSDB_READ writes nothing at all (no journal, no
 * migration, the file's bytes and mtime unchanged) and refuses a database
 * of an older schema with -ENOTSUP and a message saying how to upgrade it
 * (hitchbench db upgrade), as it refuses a newer one: the queries are
 * written for the newest schema. */
int resultsdb_open_mode(const char *path, enum resultsdb_mode mode, struct resultsdb **out,
			struct strbuf *err);
/* resultsdb_close(NULL) is safe. */
void resultsdb_close(struct resultsdb *db);
/* The schema version the database is at (the newest migration's). */
int resultsdb_schema_version(struct resultsdb *db);
/* The database as messages name it: the path, or the URL without its
 * password. */
const char *resultsdb_name(struct resultsdb *db);
/* A lab's database (PostgreSQL) rather than a machine's own file. */
bool resultsdb_is_lab(struct resultsdb *db);

/* Indexes one run, in one transaction: inserts it, or updates it in place
 * when its run_id is already there, keeping its row id and imported_utc and
 * replacing its metrics and provenance rows (importing twice changes
 * nothing). PostgreSQL's passing failures (another writer's transaction in
 * the way, a dropped connection) are tried again (resultsdb.c says how
 * often), so many machines may import at once. Fields come from run->id/game/variant/status when set, else
 * from run->bench; run->invalid goes into check_failed, so a run the
 * caller validated (run_validate(), which sets status "invalid") is
 * stored with its reason; run->dir is stored resolved to an absolute path (it must
 * exist). m may be NULL for a run without numbers; opts says how m was
 * computed (NULL: METRIC_OPTS_DEFAULT) and is ignored without m. Only
 * metrics with have[] set get a row. A run without run_id, format or status,
 * or with a metric set to NaN, is refused with -EINVAL. 0 or -errno with
 * a message in err. */
int resultsdb_import(struct resultsdb *db, const struct run *run, const struct metrics *m,
		     const struct metric_opts *opts, struct strbuf *err);

/* Imports (or updates) a batch from its batch.txt pairs; dir is stored
 * resolved. Runs of the batch may be imported before or after it. 0 or
 * -errno with a message in err. */
int resultsdb_import_batch(struct resultsdb *db, const struct kvfile *info, const char *dir,
			   struct strbuf *err);

struct resultsdb_run {
	char *run_id;           /* bench.txt run_id */
	char *name;             /* the run directory's base name */
	char *path;             /* where it was last imported from */
	char *status;           /* "ok" or why the run failed */
	char *game, *variant, *started_utc;   /* NULL when bench.txt had none */
	struct metrics m;       /* have[] false for metrics without a row */
	/* schema 2 and provenance; NULL when bench.txt had none */
	char *run_name;         /* "variant@switches" */
	char *batch_id;
	char *kernel_release;
	char *disturbed;        /* "invalid=1 (REASON)", "interfered=1 (REASON)" */
	/* schema 3: status "invalid", and the check its data failed (NULL: none) */
	char *check_failed;
	bool interval;          /* bench.txt frame_source_kind=interval */
	/* schema 4: the machine; NULL when bench.txt had none */
	char *host, *machine_id;
	/* schema 5: run_window_api(), the report's api column (NULL: no
	 * frames, or imported before schema 5) */
	char *api;
	struct kvfile provenance;   /* empty until resultsdb_load_provenance() */
};
/* Runs ordered by started_utc (runs without one first), then name,
 * optionally filtered by game, variant and machine (a host name or a
 * machine id) (NULL: any). *out (free with
 * resultsdb_runs_free) and *n are written only on success; no run gives
 * *out NULL and *n 0. 0 or -errno with a message in err. */
int resultsdb_list(struct resultsdb *db, const char *game, const char *variant, const char *machine,
		   struct resultsdb_run **out, size_t *n, struct strbuf *err);
/* Fills each run's provenance (every bench.txt pair, in order). 0 or
 * -errno with a message in err. */
int resultsdb_load_provenance(struct resultsdb *db, struct resultsdb_run *runs, size_t n,
			      struct strbuf *err);
/* A report row pointing into run (as run_report_row() makes from a run
 * directory): the variant is the run name when the run has one. */
void resultsdb_run_report_row(const struct resultsdb_run *run, struct report_row *row);
/* What resultsdb_push() did. */
struct resultsdb_push_stats {
	size_t pending;         /* runs src had not sent to dst before */
	size_t sent;            /* of them, sent and recorded now */
	size_t batches;         /* batches sent (new, or changed since sent) */
};
/* Sends every run of src (a machine's local database) that its table
 * pushes does not list for dst (the lab's), with its metrics, provenance
 * and batch, each in one transaction of dst keyed by its run_uuid and
 * tried again on a passing failure; records each in src once dst has
 * committed it. Then every batch that changed since it was sent (it
 * ended), likewise. Stops at the first failure: what was sent stays sent and
 * recorded, the rest is sent by the next push. 0 or -errno with a message
 * in err. */
int resultsdb_push(struct resultsdb *src, struct resultsdb *dst, struct resultsdb_push_stats *stats,
		   struct strbuf *err);

/* resultsdb_runs_free(NULL, 0) is safe. */
void resultsdb_runs_free(struct resultsdb_run *runs, size_t n);

#endif
