/*
 * The results database (bench/db/resultsdb.c): the schema is created and
 * migrated as the embedded migrations say, a newer database is refused, and
 * importing is an idempotent upsert keyed by run_id whose rows list back as
 * they went in. Runs and metrics are built by hand here, not loaded, so the
 * database is tested on its own. What is in the file is checked through a
 * separate SQLite connection, as a user's sqlite3 would see it.
 */
#include "db/resultsdb.h"
#include "db/resultsdb-query.h"
#include "db/resultsdb-site.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *tmp;
static char *db_path;

static void setup(void)
{
	tmp = test_tmpdir();
	db_path = xasprintf("%s/results.db", tmp);
}

static void teardown(void)
{
	remove_tree(tmp);
	free(tmp);
	free(db_path);
}

static int newest_version(void)
{
	ck_assert_uint_gt(schema_migration_count, 0);
	return schema_migrations[schema_migration_count - 1].version;
}

/* A run as run_load would leave it: bench.txt pairs in order, the pointer
 * fields into them, and a directory that exists. */
static void run_make(struct run *run, const char *name, const char *uuid, const char *game,
		     const char *variant, const char *started)
{
	memset(run, 0, sizeof(*run));
	run->dir = xasprintf("%s/%s", tmp, name);
	run->name = xstrdup(name);
	ck_assert_int_eq(mkdir(run->dir, 0755), 0);
	kvfile_init(&run->bench);
	kvfile_add(&run->bench, "format", "1");
	if (uuid)
		kvfile_add(&run->bench, "run_id", uuid);
	kvfile_add(&run->bench, "game", game);
	kvfile_add(&run->bench, "variant", variant);
	kvfile_add(&run->bench, "recipe", "recipes/doom.ini");
	kvfile_add(&run->bench, "recipe_sha256",
		   "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
	kvfile_add(&run->bench, "status", "ok");
	kvfile_add(&run->bench, "started_utc", started);
	kvfile_add(&run->bench, "ended_utc", "2026-11-30T10:05:00Z");
	kvfile_add(&run->bench, "kernel_release", "6.1.0-18-amd64");
	kvfile_add(&run->bench, "kernel_version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1");
	kvfile_add(&run->bench, "boot_id", "3b1f0a4e-6a0e-4d49-9a55-1d2c3e4f5a6b");
	kvfile_add(&run->bench, "host", "rig");
	kvfile_add(&run->bench, "harness_version", "v0.1");
	kvfile_add(&run->bench, "package.mesa", "22.3.6");
	kvfile_add(&run->bench, "command", "dsda-doom -iwad \"freedoom1.wad\" -timedemo demo1");
	kvfile_add(&run->bench, "pass.0.start_ns", "1000");
	kvfile_add(&run->bench, "pass.1.start_ns", "2000");
	kvfile_add(&run->bench, "window_start_ns", "1000");
	kvfile_add(&run->bench, "window_end_ns", "9000");
	run->id = kvfile_get(&run->bench, "run_id");
	run->game = kvfile_get(&run->bench, "game");
	run->variant = kvfile_get(&run->bench, "variant");
	run->status = kvfile_get(&run->bench, "status");
}

static void run_free(struct run *run)
{
	kvfile_release(&run->bench);
	free(run->dir);
	free(run->name);
}

/* Every metric set, to values that are not round in binary. */
static void metrics_make(struct metrics *m, double fps)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < M_COUNT; i++) {
		m->v[i] = 0.1 * (i + 1) + 1.0 / 3.0;
		m->have[i] = true;
	}
	m->v[M_FPS] = fps;
}

static void import_ok(struct resultsdb *db, const struct run *run, const struct metrics *m)
{
	struct metric_opts opts = METRIC_OPTS_DEFAULT;
	struct strbuf err = STRBUF_INIT;
	int ret = resultsdb_import(db, run, m, &opts, &err);

	ck_assert_msg(ret == 0, "import: %d %s", ret, err.len ? err.buf : "(no message)");
	ck_assert_uint_eq(err.len, 0);
}

static struct resultsdb *open_ok(void)
{
	struct resultsdb *db = NULL;
	struct strbuf err = STRBUF_INIT;
	int ret = resultsdb_open(db_path, &db, &err);

	ck_assert_msg(ret == 0, "open: %d %s", ret, err.len ? err.buf : "(no message)");
	ck_assert_ptr_nonnull(db);
	return db;
}

static sqlite3 *raw_open(int flags)
{
	sqlite3 *sql = NULL;

	ck_assert_int_eq(sqlite3_open_v2(db_path, &sql, flags, NULL), SQLITE_OK);
	return sql;
}

/* The rows of a query, every value with its type, REALs exactly ("%a"). */
static void dump_query(sqlite3 *sql, const char *query, struct strbuf *sb)
{
	sqlite3_stmt *st;
	int rc;

	ck_assert_int_eq(sqlite3_prepare_v2(sql, query, -1, &st, NULL), SQLITE_OK);
	strbuf_addf(sb, "-- %s\n", query);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			if (i)
				strbuf_addch(sb, '|');
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				strbuf_addstr(sb, "NULL");
				break;
			case SQLITE_INTEGER:
				strbuf_addf(sb, "i:%" PRId64, (int64_t)sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT:
				strbuf_addf(sb, "r:%a", sqlite3_column_double(st, i));
				break;
			default:
				strbuf_addf(sb, "t:'%s'", (const char *)sqlite3_column_text(st, i));
				break;
			}
		}
		strbuf_addch(sb, '\n');
	}
	ck_assert_int_eq(rc, SQLITE_DONE);
	sqlite3_finalize(st);
}

/* The whole content of the database, as a string to compare. */
static char *dump_db(void)
{
	struct strbuf sb = STRBUF_INIT;
	sqlite3 *sql = raw_open(SQLITE_OPEN_READONLY);

	dump_query(sql, "PRAGMA user_version", &sb);
	dump_query(sql, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name", &sb);
	dump_query(sql, "SELECT * FROM runs ORDER BY id", &sb);
	dump_query(sql, "SELECT * FROM metrics ORDER BY run_id, name", &sb);
	dump_query(sql, "SELECT * FROM provenance ORDER BY run_id, seq", &sb);
	sqlite3_close(sql);
	return strbuf_detach(&sb);
}

/* Check's messages are short: on a difference, show where it starts. */
static void assert_same_dump(const char *a, const char *b)
{
	size_t i = 0, line = 1;

	while (a[i] && a[i] == b[i])
		if (a[i++] == '\n')
			line++;
	ck_assert_msg(a[i] == b[i], "dumps differ at line %zu: '%.60s' vs '%.60s'", line,
		      a + i, b + i);
}

static int64_t query_int(const char *query)
{
	sqlite3 *sql = raw_open(SQLITE_OPEN_READONLY);
	sqlite3_stmt *st;
	int64_t v;

	ck_assert_int_eq(sqlite3_prepare_v2(sql, query, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(sql);
	return v;
}

static void raw_exec(const char *query)
{
	sqlite3 *sql = raw_open(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);

	ck_assert_int_eq(sqlite3_exec(sql, query, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sql);
}

START_TEST(open_creates_schema)
{
	struct resultsdb *db = open_ok();

	ck_assert_int_eq(resultsdb_schema_version(db), newest_version());
	resultsdb_close(db);
	ck_assert_int_eq(query_int("PRAGMA user_version"), newest_version());
	ck_assert_int_eq(query_int("SELECT count(*) FROM sqlite_master WHERE type = 'table'"
				   " AND name IN ('runs', 'metrics', 'provenance')"), 3);
	ck_assert_int_eq(query_int("SELECT count(*) FROM sqlite_master WHERE type = 'index'"
				   " AND name IN ('runs_game_variant', 'runs_kernel_release')"), 2);
	/* Not WAL: the database may sit on a shared directory. */
	ck_assert_int_eq(query_int("SELECT journal_mode = 'delete' FROM pragma_journal_mode"), 1);
}
END_TEST

START_TEST(reopen_is_noop)
{
	struct resultsdb *db = open_ok();
	char *before, *after;
	size_t len_before, len_after;

	resultsdb_close(db);
	ck_assert_int_eq(read_file(db_path, &before, &len_before), 0);
	db = open_ok();
	ck_assert_int_eq(resultsdb_schema_version(db), newest_version());
	resultsdb_close(db);
	ck_assert_int_eq(read_file(db_path, &after, &len_after), 0);
	/* Not one byte written, not even the change counter. */
	ck_assert_uint_eq(len_before, len_after);
	ck_assert(memcmp(before, after, len_before) == 0);
	free(before);
	free(after);
}
END_TEST

START_TEST(newer_database_refused)
{
	struct resultsdb *db = NULL;
	struct strbuf err = STRBUF_INIT;
	int ret;

	raw_exec("CREATE TABLE future (x); PRAGMA user_version = 999");
	ret = resultsdb_open(db_path, &db, &err);
	ck_assert_int_eq(ret, -ENOTSUP);
	ck_assert_ptr_null(db);
	ck_assert_uint_gt(err.len, 0);
	ck_assert_msg(strstr(err.buf, "999") && strstr(err.buf, "newer"), "message: %s", err.buf);
	strbuf_release(&err);
	/* and left as it was */
	ck_assert_int_eq(query_int("PRAGMA user_version"), 999);
	ck_assert_int_eq(query_int("SELECT count(*) FROM sqlite_master WHERE name = 'runs'"), 0);
}
END_TEST

START_TEST(not_a_database_refused)
{
	struct resultsdb *db = NULL;
	struct strbuf err = STRBUF_INIT;
	const char junk[] = "this is a bench.txt, not a database\n";

	ck_assert_int_eq(write_file_atomic(db_path, junk, sizeof(junk) - 1, 0644), 0);
	ck_assert_int_eq(resultsdb_open(db_path, &db, &err), -EINVAL);
	ck_assert_ptr_null(db);
	ck_assert_msg(err.len && strstr(err.buf, db_path) && strstr(err.buf, "not a database"),
		      "message: %s", err.len ? err.buf : "(none)");
	strbuf_release(&err);
}
END_TEST

START_TEST(import_then_list)
{
	struct resultsdb *db = open_ok();
	struct resultsdb_run *runs = NULL;
	struct metrics m;
	struct run run;
	struct strbuf err = STRBUF_INIT;
	char *abs;
	size_t n = 99;

	run_make(&run, "doom-20261130T100000Z", "6f1c0d52-0b6e-4d1b-9c1e-5a2b3c4d5e6f", "doom",
		 "vanilla", "2026-11-30T10:00:00Z");
	metrics_make(&m, 59.94);
	import_ok(db, &run, &m);
	ck_assert_int_eq(resultsdb_list(db, NULL, NULL, NULL, &runs, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(runs[0].run_id, "6f1c0d52-0b6e-4d1b-9c1e-5a2b3c4d5e6f");
	ck_assert_str_eq(runs[0].name, "doom-20261130T100000Z");
	abs = realpath(run.dir, NULL);
	ck_assert_str_eq(runs[0].path, abs);
	ck_assert_str_eq(runs[0].game, "doom");
	ck_assert_str_eq(runs[0].variant, "vanilla");
	ck_assert_str_eq(runs[0].status, "ok");
	ck_assert_str_eq(runs[0].started_utc, "2026-11-30T10:00:00Z");
	for (int i = 0; i < M_COUNT; i++) {
		ck_assert_msg(runs[0].m.have[i], "%s", metric_defs[i].name);
		/* stored as REAL: exactly what went in */
		ck_assert_msg(runs[0].m.v[i] == m.v[i], "%s: %a != %a", metric_defs[i].name,
			      runs[0].m.v[i], m.v[i]);
	}
	ck_assert_int_eq(query_int("SELECT count(*) FROM metrics"), M_COUNT);
	ck_assert_int_eq(query_int("SELECT format FROM runs"), 1);
	ck_assert_int_eq(query_int("SELECT stall_ms = 100.0 AND percentile = 'nearest-rank'"
				   " AND kernel_release = '6.1.0-18-amd64'"
				   " AND imported_utc LIKE '____-__-__T__:__:__Z' FROM runs"), 1);
	free(abs);
	resultsdb_runs_free(runs, n);
	run_free(&run);
	resultsdb_close(db);
}
END_TEST

START_TEST(import_twice_same_content)
{
	struct resultsdb *db = open_ok();
	struct run a, b;
	struct metrics m;
	char *first, *second;

	run_make(&a, "a", "uuid-a", "doom", "vanilla", "2026-11-30T10:00:00Z");
	run_make(&b, "b", "uuid-b", "quake", "vulkan", "2026-11-30T11:00:00Z");
	metrics_make(&m, 60.0);
	m.have[M_P999_MS] = false;
	import_ok(db, &a, &m);
	import_ok(db, &b, &m);
	resultsdb_close(db);
	/* An old first import: proves imported_utc is never rewritten. */
	raw_exec("UPDATE runs SET imported_utc = '2001-01-01T00:00:00Z'");
	first = dump_db();

	db = open_ok();
	import_ok(db, &a, &m);
	import_ok(db, &b, &m);
	import_ok(db, &a, &m);
	resultsdb_close(db);
	second = dump_db();
	assert_same_dump(first, second);
	ck_assert_ptr_nonnull(strstr(second, "2001-01-01T00:00:00Z"));

	free(first);
	free(second);
	run_free(&a);
	run_free(&b);
}
END_TEST

START_TEST(reimport_updates_in_place)
{
	struct resultsdb *db = open_ok();
	struct resultsdb_run *runs = NULL;
	struct run a, b;
	struct metrics m;
	struct strbuf err = STRBUF_INIT;
	int64_t id;
	size_t n = 0;

	run_make(&a, "a", "uuid-a", "doom", "vanilla", "2026-11-30T10:00:00Z");
	run_make(&b, "b", "uuid-b", "doom", "vanilla", "2026-11-30T11:00:00Z");
	metrics_make(&m, 60.0);
	import_ok(db, &a, &m);
	import_ok(db, &b, &m);
	id = query_int("SELECT id FROM runs WHERE run_uuid = 'uuid-a'");

	/* Metrics recomputed (a new stall threshold, say), same run. */
	m.v[M_FPS] = 42.5;
	m.v[M_STALLS] = 7;
	import_ok(db, &a, &m);
	ck_assert_int_eq(query_int("SELECT id FROM runs WHERE run_uuid = 'uuid-a'"), id);
	ck_assert_int_eq(query_int("SELECT count(*) FROM runs"), 2);
	ck_assert_int_eq(query_int("SELECT count(*) FROM metrics"), 2 * M_COUNT);

	ck_assert_int_eq(resultsdb_list(db, NULL, NULL, NULL, &runs, &n, &err), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(runs[0].run_id, "uuid-a");
	ck_assert(runs[0].m.v[M_FPS] == 42.5);
	ck_assert(runs[0].m.v[M_STALLS] == 7);
	ck_assert(runs[1].m.v[M_FPS] == 60.0);
	resultsdb_runs_free(runs, n);

	/* Imported again without numbers (a failed re-analysis): its metric
	 * rows go, the run stays. */
	ck_assert_int_eq(resultsdb_import(db, &a, NULL, NULL, &err), 0);
	ck_assert_int_eq(query_int("SELECT count(*) FROM metrics"), M_COUNT);
	ck_assert_int_eq(query_int("SELECT stall_ms IS NULL AND percentile IS NULL FROM runs"
				   " WHERE run_uuid = 'uuid-a'"), 1);
	ck_assert_int_eq(query_int("SELECT id FROM runs WHERE run_uuid = 'uuid-a'"), id);

	run_free(&a);
	run_free(&b);
	resultsdb_close(db);
}
END_TEST

START_TEST(run_without_id_refused)
{
	struct resultsdb *db = open_ok();
	struct metrics m;
	struct run run;
	struct strbuf err = STRBUF_INIT;

	run_make(&run, "no-id", NULL, "doom", "vanilla", "2026-11-30T10:00:00Z");
	metrics_make(&m, 60.0);
	ck_assert_int_eq(resultsdb_import(db, &run, &m, NULL, &err), -EINVAL);
	ck_assert_msg(err.len && strstr(err.buf, "run_id") && strstr(err.buf, "no-id"), "message: %s",
		      err.len ? err.buf : "(none)");
	strbuf_reset(&err);

	/* an empty one is no better */
	kvfile_add(&run.bench, "run_id", "");
	run.id = kvfile_get(&run.bench, "run_id");
	ck_assert_int_eq(resultsdb_import(db, &run, &m, NULL, &err), -EINVAL);
	ck_assert_uint_gt(err.len, 0);
	strbuf_release(&err);
	resultsdb_close(db);

	ck_assert_int_eq(query_int("SELECT count(*) FROM runs"), 0);
	ck_assert_int_eq(query_int("SELECT count(*) FROM provenance"), 0);
	run_free(&run);
}
END_TEST

START_TEST(list_filters)
{
	struct resultsdb *db = open_ok();
	struct resultsdb_run *runs = NULL;
	struct run r[4];
	struct metrics m;
	struct strbuf err = STRBUF_INIT;
	size_t n = 0;

	/* imported out of start order; two start at the same second */
	run_make(&r[0], "d2", "u0", "doom", "vulkan", "2026-11-30T12:00:00Z");
	run_make(&r[1], "d1", "u1", "doom", "vanilla", "2026-11-30T10:00:00Z");
	run_make(&r[2], "q1", "u2", "quake", "vanilla", "2026-11-30T11:00:00Z");
	run_make(&r[3], "d0", "u3", "doom", "vanilla", "2026-11-30T12:00:00Z");
	metrics_make(&m, 60.0);
	for (size_t i = 0; i < ARRAY_SIZE(r); i++)
		import_ok(db, &r[i], &m);

	ck_assert_int_eq(resultsdb_list(db, NULL, NULL, NULL, &runs, &n, &err), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_str_eq(runs[0].name, "d1");
	ck_assert_str_eq(runs[1].name, "q1");
	ck_assert_str_eq(runs[2].name, "d0");
	ck_assert_str_eq(runs[3].name, "d2");
	resultsdb_runs_free(runs, n);

	ck_assert_int_eq(resultsdb_list(db, "doom", NULL, NULL, &runs, &n, &err), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(runs[0].name, "d1");
	ck_assert_str_eq(runs[1].name, "d0");
	ck_assert_str_eq(runs[2].name, "d2");
	resultsdb_runs_free(runs, n);

	ck_assert_int_eq(resultsdb_list(db, NULL, "vanilla", NULL, &runs, &n, &err), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(runs[0].name, "d1");
	ck_assert_str_eq(runs[1].name, "q1");
	ck_assert_str_eq(runs[2].name, "d0");
	resultsdb_runs_free(runs, n);

	ck_assert_int_eq(resultsdb_list(db, "doom", "vulkan", NULL, &runs, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(runs[0].name, "d2");
	ck_assert(runs[0].m.have[M_FPS]);
	resultsdb_runs_free(runs, n);

	runs = (void *)1;
	ck_assert_int_eq(resultsdb_list(db, "hexen", NULL, NULL, &runs, &n, &err), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(runs);
	ck_assert_uint_eq(err.len, 0);

	for (size_t i = 0; i < ARRAY_SIZE(r); i++)
		run_free(&r[i]);
	resultsdb_close(db);
}
END_TEST

START_TEST(provenance_in_order)
{
	struct resultsdb *db = open_ok();
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT;
	struct metrics m;
	struct run run;
	sqlite3 *sql;

	run_make(&run, "a", "uuid-a", "doom", "vanilla", "2026-11-30T10:00:00Z");
	/* a key may repeat; the value keeps quotes, '=' and a backslash */
	kvfile_add(&run.bench, "note", "first");
	kvfile_add(&run.bench, "note", "second = \"x\" \\ y");
	metrics_make(&m, 60.0);
	import_ok(db, &run, &m);

	strbuf_addstr(&want, "-- SELECT seq, key, value FROM provenance ORDER BY seq\n");
	for (size_t i = 0; i < run.bench.n; i++)
		strbuf_addf(&want, "i:%zu|t:'%s'|t:'%s'\n", i, run.bench.items[i].key,
			    run.bench.items[i].value);
	sql = raw_open(SQLITE_OPEN_READONLY);
	dump_query(sql, "SELECT seq, key, value FROM provenance ORDER BY seq", &got);
	sqlite3_close(sql);
	ck_assert_str_eq(got.buf, want.buf);

	/* A shorter bench.txt on re-import leaves no stale pairs behind. */
	kvfile_release(&run.bench);
	kvfile_add(&run.bench, "format", "1");
	kvfile_add(&run.bench, "run_id", "uuid-a");
	kvfile_add(&run.bench, "status", "ok");
	run.id = run.game = run.variant = run.status = NULL;
	import_ok(db, &run, &m);
	ck_assert_int_eq(query_int("SELECT count(*) FROM provenance"), 3);
	ck_assert_int_eq(query_int("SELECT group_concat(key, ',') = 'format,run_id,status'"
				   " FROM (SELECT key FROM provenance ORDER BY seq)"), 1);
	ck_assert_int_eq(query_int("SELECT game IS NULL FROM runs"), 1);

	strbuf_release(&want);
	strbuf_release(&got);
	run_free(&run);
	resultsdb_close(db);
}
END_TEST

/* The listed run of uuid in runs, or NULL. */
static const struct resultsdb_run *listed(const struct resultsdb_run *runs, size_t n, const char *uuid)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(runs[i].run_id, uuid) == 0)
			return &runs[i];
	return NULL;
}

/* got is want as the whole listing gave it, provenance loaded. */
static void expect_same_run(const struct resultsdb_run *got, const struct resultsdb_run *want)
{
	ck_assert_str_eq(got->name, want->name);
	ck_assert_str_eq(got->path, want->path);
	ck_assert_str_eq(got->kernel_release, want->kernel_release);
	ck_assert_msg((got->disturbed == NULL) == (want->disturbed == NULL) &&
			      (!got->disturbed || strcmp(got->disturbed, want->disturbed) == 0),
		      "%s: disturbed '%s', not '%s'", got->run_id, got->disturbed ? got->disturbed : "(none)",
		      want->disturbed ? want->disturbed : "(none)");
	for (int i = 0; i < M_COUNT; i++) {
		ck_assert_int_eq(got->m.have[i], want->m.have[i]);
		if (want->m.have[i])
			ck_assert_msg(got->m.v[i] == want->m.v[i], "%s: metric %d", got->run_id, i);
	}
	ck_assert_uint_eq(got->provenance.n, want->provenance.n);
	for (size_t i = 0; i < want->provenance.n; i++) {
		ck_assert_str_eq(got->provenance.items[i].key, want->provenance.items[i].key);
		ck_assert_str_eq(got->provenance.items[i].value, want->provenance.items[i].value);
	}
}

/* A batch's listing, and the listing of a kernel's runs of no batch on a
 * machine (they find their runs' ids first, then their rows by those ids:
 * docs/site.md), give exactly the runs the whole listing has there, with
 * the same metrics, verdicts and provenance in order. */
START_TEST(batch_listing_is_the_listings_part)
{
	static const char *const uuids[] = { "u1", "u2", "u3", "u4", "u5" };
	static const char *const batch_of[] = { "b1", "b1", "b2", NULL, NULL };
	static const char *const kernel_of[] = { "6.1", "6.1", "6.1", "6.2", "6.3" };
	struct resultsdb *db = open_ok();
	struct resultsdb_run *all = NULL, *got = NULL;
	struct strbuf err = STRBUF_INIT;
	size_t n_all = 0, n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(uuids); i++) {
		char name[16];
		struct metrics m;
		struct run run;

		snprintf(name, sizeof(name), "run-%zu", i);
		run_make(&run, name, uuids[i], "doom", "vanilla", "2026-11-30T10:00:00Z");
		kvfile_set(&run.bench, "kernel_release", kernel_of[i]);
		if (batch_of[i])
			kvfile_add(&run.bench, "batch_id", batch_of[i]);
		if (i == 1) {
			kvfile_add(&run.bench, "interfered", "1");
			kvfile_add(&run.bench, "interfered_reason", "a login");
		}
		kvfile_add(&run.bench, "note", name);
		run.id = kvfile_get(&run.bench, "run_id");
		run.game = kvfile_get(&run.bench, "game");
		run.variant = kvfile_get(&run.bench, "variant");
		run.status = kvfile_get(&run.bench, "status");
		metrics_make(&m, 50.0 + (double)i / 7.0);
		m.have[M_STALLS] = i != 2;
		import_ok(db, &run, &m);
		run_free(&run);
	}
	ck_assert_int_eq(resultsdb_list(db, NULL, NULL, NULL, &all, &n_all, &err), 0);
	ck_assert_uint_eq(n_all, 5);
	ck_assert_int_eq(resultsdb_load_provenance(db, all, n_all, &err), 0);

	ck_assert_int_eq(resultsdb_list_batch(db, "b1", NULL, NULL, &got, &n, &err), 0);
	ck_assert_uint_eq(n, 2);
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(got[i].batch_id, "b1");
		expect_same_run(&got[i], listed(all, n_all, got[i].run_id));
	}
	ck_assert_str_eq(got[1].disturbed, "interfered=1 (a login)");
	resultsdb_runs_free(got, n);

	ck_assert_int_eq(resultsdb_list_batch(db, "b2", NULL, NULL, &got, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(got[0].run_id, "u3");
	ck_assert(!got[0].m.have[M_STALLS]);
	expect_same_run(&got[0], listed(all, n_all, "u3"));
	resultsdb_runs_free(got, n);

	ck_assert_int_eq(resultsdb_list_batch(db, NULL, "rig", "6.2", &got, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(got[0].run_id, "u4");
	expect_same_run(&got[0], listed(all, n_all, "u4"));
	resultsdb_runs_free(got, n);

	ck_assert_int_eq(resultsdb_list_batch(db, "b3", NULL, NULL, &got, &n, &err), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(resultsdb_list_batch(db, NULL, "another", "6.2", &got, &n, &err), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(err.len, 0);
	resultsdb_runs_free(all, n_all);
	strbuf_release(&err);
	resultsdb_close(db);
}
END_TEST

START_TEST(missing_metric_has_no_row)
{
	struct resultsdb *db = open_ok();
	struct resultsdb_run *runs = NULL;
	struct metrics m;
	struct run run;
	struct strbuf err = STRBUF_INIT;
	size_t n = 0;

	run_make(&run, "a", "uuid-a", "doom", "vanilla", "2026-11-30T10:00:00Z");
	metrics_make(&m, 60.0);
	m.have[M_P999_MS] = false;
	m.have[M_LOW01] = false;
	m.v[M_LOW01] = 123.0; /* ignored: not set */
	import_ok(db, &run, &m);
	ck_assert_int_eq(query_int("SELECT count(*) FROM metrics"), M_COUNT - 2);
	ck_assert_int_eq(query_int("SELECT count(*) FROM metrics"
				   " WHERE name IN ('p999_ms', 'low01')"), 0);

	ck_assert_int_eq(resultsdb_list(db, NULL, NULL, NULL, &runs, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert(!runs[0].m.have[M_P999_MS]);
	ck_assert(!runs[0].m.have[M_LOW01]);
	ck_assert(runs[0].m.have[M_P99_MS]);
	ck_assert(runs[0].m.v[M_P99_MS] == m.v[M_P99_MS]);
	resultsdb_runs_free(runs, n);

	run_free(&run);
	resultsdb_close(db);
}
END_TEST

START_TEST(nan_metric_refused)
{
	struct resultsdb *db = open_ok();
	struct metrics m;
	struct run run;
	struct strbuf err = STRBUF_INIT;

	run_make(&run, "a", "uuid-a", "doom", "vanilla", "2026-11-30T10:00:00Z");
	metrics_make(&m, 60.0);
	m.v[M_LOW1] = NAN;
	ck_assert_int_eq(resultsdb_import(db, &run, &m, NULL, &err), -EINVAL);
	ck_assert_msg(err.len && strstr(err.buf, "low1"), "message: %s", err.len ? err.buf : "(none)");
	strbuf_release(&err);
	ck_assert_int_eq(query_int("SELECT count(*) FROM runs"), 0);
	run_free(&run);
	resultsdb_close(db);
}
END_TEST

/* A run run_validate() refused: stored with status invalid and why
 * (schema 3), listed with it, left out of the values compare and regress
 * read and named, with why, among the excluded. */
START_TEST(invalid_run_stored_with_why)
{
	static const char why[] = "frames.bin: 7841 records in the header, 54 in the file";
	struct resultsdb_query q = { .game = "doom", .run_name = "vanilla", .metric = "fps" };
	struct resultsdb *db = open_ok();
	struct resultsdb_run *runs = NULL;
	struct resultsdb_value *v = NULL;
	struct resultsdb_excluded *ex = NULL;
	struct report_row row;
	struct metrics m;
	struct run good, cut;
	size_t n = 0, nv = 0, nex = 0;
	struct strbuf err = STRBUF_INIT;

	run_make(&good, "good", "uuid-good", "doom", "vanilla", "2026-11-30T10:00:00Z");
	run_make(&cut, "cut", "uuid-cut", "doom", "vanilla", "2026-11-30T10:10:00Z");
	cut.recorded_status = cut.status;
	cut.status = "invalid";
	cut.invalid = xstrdup(why);
	metrics_make(&m, 60.0);
	import_ok(db, &good, &m);
	import_ok(db, &cut, &m);
	ck_assert_int_eq(query_int("SELECT count(*) FROM runs WHERE status = 'invalid'"
				   " AND check_failed = 'frames.bin: 7841 records in the header, 54 in the file'"), 1);
	ck_assert_int_eq(query_int("SELECT count(*) FROM runs WHERE status = 'ok' AND check_failed IS NULL"), 1);

	ck_assert_int_eq(resultsdb_list(db, NULL, NULL, NULL, &runs, &n, &err), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_ptr_null(runs[0].check_failed);
	ck_assert_str_eq(runs[1].check_failed, why);
	resultsdb_run_report_row(&runs[1], &row);
	ck_assert_str_eq(row.status, "invalid");
	ck_assert_str_eq(report_row_excluded(&row, false), why);

	ck_assert_int_eq(resultsdb_metric_values(db, &q, &v, &nv, &err), 0);
	ck_assert_uint_eq(nv, 1);
	ck_assert_str_eq(v[0].run_id, "uuid-good");
	ck_assert_int_eq(resultsdb_excluded_runs(db, &q, &ex, &nex, &err), 0);
	ck_assert_uint_eq(nex, 1);
	ck_assert_str_eq(ex[0].name, "cut");
	ck_assert_str_eq(ex[0].why, "invalid: frames.bin: 7841 records in the header, 54 in the file");

	resultsdb_excluded_free(ex, nex);
	resultsdb_values_free(v, nv);
	resultsdb_runs_free(runs, n);
	free(cut.invalid);
	run_free(&good);
	run_free(&cut);
	resultsdb_close(db);
}
END_TEST

TEST_SUITE(resultsdb_suite)
{
	Suite *s = suite_create("resultsdb");
	TCase *tc = tcase_create("resultsdb");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, open_creates_schema);
	tcase_add_test(tc, reopen_is_noop);
	tcase_add_test(tc, newer_database_refused);
	tcase_add_test(tc, not_a_database_refused);
	tcase_add_test(tc, import_then_list);
	tcase_add_test(tc, import_twice_same_content);
	tcase_add_test(tc, reimport_updates_in_place);
	tcase_add_test(tc, run_without_id_refused);
	tcase_add_test(tc, list_filters);
	tcase_add_test(tc, provenance_in_order);
	tcase_add_test(tc, batch_listing_is_the_listings_part);
	tcase_add_test(tc, missing_metric_has_no_row);
	tcase_add_test(tc, nan_metric_refused);
	tcase_add_test(tc, invalid_run_stored_with_why);
	suite_add_tcase(s, tc);
	return s;
}
