/*
 * How the results database is opened (bench/db/resultsdb.c,
 * resultsdb_open_mode): a reader writes nothing, not even a journal, makes
 * no file or directory where there is none, refuses to upgrade an older
 * schema and cannot write by mistake; an upgrade needs an existing
 * database; a name SQLite's URIs give a meaning to ('?', '#', '%') is
 * still the file's name. The file is checked from outside: its bytes, its
 * mtime and what else is in its directory.
 */
#include "db/resultsdb.h"
#include "test.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp;

static void setup(void)
{
	tmp = test_tmpdir();
}

static void teardown(void)
{
	remove_tree(tmp);
	free(tmp);
}

static int newest_version(void)
{
	return schema_migrations[schema_migration_count - 1].version;
}

/* The names in tmp, sorted, one a line. */
static char *listing(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct dirent **v;
	int n = scandir(tmp, &v, NULL, alphasort);

	ck_assert_int_ge(n, 0);
	for (int i = 0; i < n; i++) {
		strbuf_addf(&sb, "%s\n", v[i]->d_name);
		free(v[i]);
	}
	free(v);
	return strbuf_detach(&sb);
}

/* A database with one run in it, made the way run and db import do. */
static void make_db(const char *path)
{
	struct resultsdb *db = NULL;
	struct run run;
	struct strbuf err = STRBUF_INIT;

	memset(&run, 0, sizeof(run));
	run.dir = xasprintf("%s/run", tmp);
	run.name = xstrdup("run");
	ck_assert_int_eq(mkdir(run.dir, 0755), 0);
	kvfile_init(&run.bench);
	kvfile_add(&run.bench, "format", "1");
	kvfile_add(&run.bench, "run_id", "0c6f3e4a-read-only");
	kvfile_add(&run.bench, "game", "doom");
	kvfile_add(&run.bench, "variant", "base");
	kvfile_add(&run.bench, "status", "ok");
	ck_assert_msg(resultsdb_open(path, &db, &err) == 0, "%s", err.buf);
	ck_assert_msg(resultsdb_import(db, &run, NULL, NULL, &err) == 0, "%s", err.buf);
	resultsdb_close(db);
	strbuf_release(&err);
	/* the database keeps its path; the directory is no longer needed */
	remove_tree(run.dir);
	kvfile_release(&run.bench);
	free(run.dir);
	free(run.name);
}

/* Each open's message alone in err. */
static int open_mode(const char *path, enum resultsdb_mode mode, struct resultsdb **db,
		     struct strbuf *err)
{
	*db = NULL;
	strbuf_reset(err);
	return resultsdb_open_mode(path, mode, db, err);
}

START_TEST(read_missing_makes_nothing)
{
	static const enum resultsdb_mode modes[] = { RESULTSDB_READ, RESULTSDB_UPGRADE };
	char *in_dir = xasprintf("%s/results/hitchbench.db", tmp);
	char *here = xasprintf("%s/hitchbench.db", tmp);
	const char *paths[] = { in_dir, here };
	char *before = listing(), *after, *want;
	struct resultsdb *db;
	struct strbuf err = STRBUF_INIT;

	for (size_t m = 0; m < 2; m++)
		for (size_t p = 0; p < 2; p++) {
			ck_assert_int_eq(open_mode(paths[p], modes[m], &db, &err), -ENOENT);
			ck_assert_ptr_null(db);
			want = xasprintf("no such database: %s", paths[p]);
			ck_assert_str_eq(err.buf, want);
			free(want);
		}
	strbuf_release(&err);
	after = listing();
	/* neither the database nor results/ */
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	free(in_dir);
	free(here);
}
END_TEST

START_TEST(read_writes_nothing)
{
	char *path = xasprintf("%s/results.db", tmp);
	struct resultsdb_run *runs = NULL;
	struct resultsdb *db;
	char *before, *after, *list_before, *list_after;
	struct strbuf err = STRBUF_INIT;
	size_t len_before, len_after, n = 0;
	struct stat st_before, st_after;

	make_db(path);
	ck_assert_int_eq(read_file(path, &before, &len_before), 0);
	ck_assert_int_eq(stat(path, &st_before), 0);
	list_before = listing();
	ck_assert_msg(open_mode(path, RESULTSDB_READ, &db, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(resultsdb_schema_version(db), newest_version());
	ck_assert_msg(resultsdb_list(db, NULL, NULL, NULL, &runs, &n, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(runs[0].run_id, "0c6f3e4a-read-only");
	/* no -journal, -wal or -shm beside it while it is open, nor after */
	list_after = listing();
	ck_assert_str_eq(list_before, list_after);
	free(list_after);
	resultsdb_runs_free(runs, n);
	resultsdb_close(db);
	ck_assert_int_eq(read_file(path, &after, &len_after), 0);
	ck_assert_int_eq(stat(path, &st_after), 0);
	ck_assert_uint_eq(len_before, len_after);
	ck_assert(memcmp(before, after, len_before) == 0);
	ck_assert(st_before.st_mtim.tv_sec == st_after.st_mtim.tv_sec &&
		  st_before.st_mtim.tv_nsec == st_after.st_mtim.tv_nsec);
	list_after = listing();
	ck_assert_str_eq(list_before, list_after);
	free(list_before);
	free(list_after);
	free(before);
	free(after);
	free(path);
	strbuf_release(&err);
}
END_TEST

/* mode=ro is SQLite's to enforce: a write through a reader fails. */
START_TEST(read_cannot_write)
{
	char *path = xasprintf("%s/results.db", tmp);
	struct resultsdb *db;
	struct run run;
	struct strbuf err = STRBUF_INIT;

	make_db(path);
	ck_assert_msg(open_mode(path, RESULTSDB_READ, &db, &err) == 0, "%s", err.buf);
	memset(&run, 0, sizeof(run));
	run.dir = tmp;
	kvfile_init(&run.bench);
	kvfile_add(&run.bench, "format", "1");
	kvfile_add(&run.bench, "run_id", "another");
	kvfile_add(&run.bench, "status", "ok");
	run.name = "another";
	ck_assert_int_eq(resultsdb_import(db, &run, NULL, NULL, &err), -EROFS);
	ck_assert_msg(strstr(err.buf, "readonly") || strstr(err.buf, "read-only"), "message: %s", err.buf);
	strbuf_release(&err);
	resultsdb_close(db);
	kvfile_release(&run.bench);
	free(path);
}
END_TEST

/* A database of schema 1, as the first hitchbench left it. */
static void make_v1(const char *path)
{
	sqlite3 *sql;
	char *set = xasprintf("PRAGMA user_version = %d", schema_migrations[0].version);

	ck_assert_int_eq(sqlite3_open_v2(path, &sql, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(sql, schema_migrations[0].sql, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(sql, set, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sql);
	free(set);
}

START_TEST(read_refuses_older_upgrade_migrates)
{
	char *path = xasprintf("%s/old.db", tmp);
	struct resultsdb *db;
	char *before, *after;
	struct strbuf err = STRBUF_INIT;
	size_t len_before, len_after;

	ck_assert_int_gt(schema_migration_count, 1);
	make_v1(path);
	ck_assert_int_eq(read_file(path, &before, &len_before), 0);
	ck_assert_int_eq(open_mode(path, RESULTSDB_READ, &db, &err), -ENOTSUP);
	ck_assert_ptr_null(db);
	ck_assert_msg(strstr(err.buf, "schema version 1") && strstr(err.buf, "older") &&
		      strstr(err.buf, "hitchbench db upgrade --db ") && strstr(err.buf, path), "message: %s",
		      err.buf);
	/* not upgraded, not touched */
	ck_assert_int_eq(read_file(path, &after, &len_after), 0);
	ck_assert_uint_eq(len_before, len_after);
	ck_assert(memcmp(before, after, len_before) == 0);
	free(after);
	/* what the message says to do */
	ck_assert_msg(open_mode(path, RESULTSDB_UPGRADE, &db, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(resultsdb_schema_version(db), newest_version());
	resultsdb_close(db);
	ck_assert_msg(open_mode(path, RESULTSDB_READ, &db, &err) == 0, "%s", err.buf);
	resultsdb_close(db);
	strbuf_release(&err);
	free(before);
	free(path);
}
END_TEST

/* What an earlier 'db info' on a mistyped path left: an empty file. */
START_TEST(read_refuses_empty_file)
{
	char *path = xasprintf("%s/empty.db", tmp);
	struct resultsdb *db;
	struct strbuf err = STRBUF_INIT;

	ck_assert_int_eq(write_file_atomic(path, "", 0, 0644), 0);
	ck_assert_int_eq(open_mode(path, RESULTSDB_READ, &db, &err), -ENOTSUP);
	ck_assert_msg(strstr(err.buf, "schema version 0") && strstr(err.buf, path), "message: %s", err.buf);
	strbuf_release(&err);
	free(path);
}
END_TEST

START_TEST(read_directory_refused)
{
	struct resultsdb *db;
	struct strbuf err = STRBUF_INIT;

	ck_assert_int_eq(open_mode(tmp, RESULTSDB_READ, &db, &err), -EISDIR);
	ck_assert_msg(strstr(err.buf, "directory"), "message: %s", err.buf);
	strbuf_release(&err);
}
END_TEST

/* file:PATH?mode=ro: unescaped, "a?b" would be the file "a" with an
 * option b, "#" would end the path, and "%41" would be "A". */
START_TEST(read_odd_names)
{
	static const char *const names[] = { "a?mode=rwc.db", "b#c.db", "d%41e.db", "f g&h=i.db",
					     "caf\xc3\xa9.db" };
	struct resultsdb *db;
	struct strbuf err = STRBUF_INIT;
	char *before, *after;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *path = xasprintf("%s/%s", tmp, names[i]);

		make_db(path);
		before = listing();
		ck_assert_msg(open_mode(path, RESULTSDB_READ, &db, &err) == 0, "%s: %s", names[i], err.buf);
		ck_assert_int_eq(resultsdb_schema_version(db), newest_version());
		resultsdb_close(db);
		after = listing();
		ck_assert_str_eq(before, after);
		free(before);
		free(after);
		free(path);
	}
	strbuf_release(&err);
}
END_TEST

/* A relative path is taken from the working directory, as the others. */
START_TEST(read_relative_path)
{
	char *path = xasprintf("%s/rel.db", tmp);
	char *cwd = getcwd(NULL, 0);
	struct resultsdb *db;
	struct strbuf err = STRBUF_INIT;

	make_db(path);
	ck_assert_int_eq(chdir(tmp), 0);
	ck_assert_msg(open_mode("rel.db", RESULTSDB_READ, &db, &err) == 0, "%s", err.buf);
	resultsdb_close(db);
	strbuf_release(&err);
	ck_assert_int_eq(chdir(cwd), 0);
	free(cwd);
	free(path);
}
END_TEST

TEST_SUITE(resultsdb_open_suite)
{
	Suite *s = suite_create("resultsdb-open");
	TCase *tc = tcase_create("resultsdb-open");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, read_missing_makes_nothing);
	tcase_add_test(tc, read_writes_nothing);
	tcase_add_test(tc, read_cannot_write);
	tcase_add_test(tc, read_refuses_older_upgrade_migrates);
	tcase_add_test(tc, read_refuses_empty_file);
	tcase_add_test(tc, read_directory_refused);
	tcase_add_test(tc, read_odd_names);
	tcase_add_test(tc, read_relative_path);
	suite_add_tcase(s, tc);
	return s;
}
