/*
 * bench/site/: names from the database become file names that cannot
 * collide or leave their directory; site.state round-trips and a damaged
 * one is refused with its line; and a site built from a database made by
 * SQL finds the change the data holds (on its machine, between its
 * kernels), writes nothing when nothing changed, only what a changed run
 * touches when one did, and removes the pages of a batch gone.
 */
#include "site/site-internal.h"
#include "db/resultsdb.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void name_is(const char *name, const char *want)
{
	char *got = site_file_name(name);

	ck_assert_str_eq(got, want);
	free(got);
}

static bool name_shape(const char *s)
{
	regex_t re;
	bool ok;

	ck_assert_int_eq(regcomp(&re, "^([A-Za-z0-9_-][A-Za-z0-9._-]*|~[0-9a-f]{2})([A-Za-z0-9._-]|~[0-9a-f]{2})*"
				      "(~~[0-9a-f]{16})?$", REG_EXTENDED | REG_NOSUB), 0);
	ok = regexec(&re, s, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

START_TEST(file_names)
{
	char long_ascii[301], long_utf8[301];
	char *a, *b;

	name_is("stall_s", "stall_s");
	name_is("6.18.44-fc-v657", "6.18.44-fc-v657");
	name_is("a/b", "a~2fb");
	name_is("..", "~2e.");
	name_is(".hidden", "~2ehidden");
	name_is("", "~");
	name_is("~", "~7e");
	name_is("x y\"<", "x~20y~22~3c");
	/* the escape is never read as a name's own bytes */
	a = site_file_name("a~2f");
	b = site_file_name("a/");
	ck_assert_str_ne(a, b);
	free(a);
	free(b);
	memset(long_ascii, 'x', 300);
	long_ascii[300] = '\0';
	a = site_file_name(long_ascii);
	ck_assert_uint_eq(strlen(a), 96 + 2 + 16);
	ck_assert(name_shape(a));
	long_ascii[299] = 'y';      /* another long name: another file */
	b = site_file_name(long_ascii);
	ck_assert_str_ne(a, b);
	free(a);
	free(b);
	for (int i = 0; i < 300; i += 2)
		long_utf8[i] = (char)0xc3, long_utf8[i + 1] = (char)0xa9;
	long_utf8[300] = '\0';
	a = site_file_name(long_utf8);
	ck_assert_msg(name_shape(a), "'%s' cuts an escape", a);
	ck_assert_uint_le(strlen(a), 120);
	free(a);
}
END_TEST

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

START_TEST(state_round_trip)
{
	char *path = xasprintf("%s/site.state", tmp);
	struct site_state s, r;
	struct strbuf err = STRBUF_INIT;
	struct site_change c = {
		.page = (char *)"trend/g/r/fps.html", .machine = (char *)"id\t1", .label = (char *)"lab 2 (50%)\n",
		.game = (char *)"dsda-doom", .run_name = (char *)"software@rec10", .metric = (char *)"fps",
		.kernel_before = (char *)"6.18.40", .kernel_after = (char *)"6.18.44",
		.batch_after = (char *)"batch/b.html", .found_utc = (char *)"2026-12-06T07:00:00Z",
		.percent = -6.1, .lo = -7.25, .hi = -5.0, .p = 0.005, .before = 121.5, .after = NAN,
	};

	site_state_init(&s);
	s.generator = (char *)"hitchbench 1.0";
	s.built_utc = (char *)"2026-12-06T07:00:01Z";
	s.changes = &c;
	s.n_changes = 1;
	site_state_add_page(&s, "index.html", "ab12");
	site_state_add_page(&s, "batch/b.html", "incomplete");
	ck_assert_int_eq(site_state_write(path, &s), 0);
	ck_assert_int_eq(site_state_read(path, &r, &err), 0);
	ck_assert_str_eq(r.generator, "hitchbench 1.0");
	ck_assert_str_eq(r.built_utc, "2026-12-06T07:00:01Z");
	ck_assert_uint_eq(r.n_pages, 2);
	ck_assert_str_eq(site_state_page(&r, "index.html"), "ab12");
	ck_assert_str_eq(site_state_page(&r, "batch/b.html"), "incomplete");
	ck_assert_ptr_null(site_state_page(&r, "machine/x.html"));
	ck_assert_uint_eq(r.n_changes, 1);
	ck_assert_str_eq(r.changes[0].machine, "id\t1");
	ck_assert_str_eq(r.changes[0].label, "lab 2 (50%)\n");
	ck_assert_str_eq(r.changes[0].run_name, "software@rec10");
	ck_assert(r.changes[0].percent == -6.1 && r.changes[0].lo == -7.25 && r.changes[0].p == 0.005);
	ck_assert(isnan(r.changes[0].after));
	site_state_release(&r);
	/* what the builds share is theirs: free only what was added */
	for (size_t i = 0; i < s.n_pages; i++) {
		free(s.pages[i].path);
		free(s.pages[i].fingerprint);
	}
	free(s.pages);
	/* no file: an empty state */
	unlink(path);
	ck_assert_int_eq(site_state_read(path, &r, &err), 0);
	ck_assert_uint_eq(r.n_pages + r.n_changes, 0);
	site_state_release(&r);
	free(path);
	strbuf_release(&err);
}
END_TEST

#define CHANGE_OK "change\ttrend/g/r/fps.html\tm\tm\tg\tr\tfps\t6.1\t6.2\tbatch/b.html\t2026\t-6\t-7\t-5\t0.01\t10\t9.4\n"

START_TEST(state_refused)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "page\tindex.html\tab\n", ":1: the first line is not 'format N'" },
		{ "format\t2\n", ":1: a format this program does not know" },
		{ "format\t1\npage\t../etc/passwd.html\tab\n", ":2: a page line is" },
		{ "format\t1\npage\t/etc/x.html\tab\n", ":2: a page line is" },
		{ "format\t1\npage\tindex.html\n", ":2: a page line is" },
		{ "format\t1\ngenerator\ta\ngenerator\tb\n", ":3: a header line repeats" },
		{ "format\t1\npage\tindex.html\ta%0\n", ":2: a field has" },
		{ "format\t1\npage\tindex.html\ta%00\n", ":2: a field has" },
		{ "format\t1\npage\tindex.html\ta\rb\n", ":2: a field has" },
		{ "format\t1\nshard\tx\n", ":2: an unknown record" },
		{ "format\t1\npage\tindex.html\tab", ":2: the last line is cut short" },
		{ "format\t1\npage\ta.html\tx\npage\ta.html\ty\n", "page 'a.html' is listed twice" },
		{ "format\t1\nchange\ttrend/g/r/fps.html\tm\n", ":2: a change line has 16 fields" },
		{ "format\t1\nchange\ttrend/g/r/fps.html\tm\tm\tg\tr\tfps\t6.1\t6.2\tbatch/b.html\t2026\t-6\tx\t-5\t0.01\t10\t9\n",
		  ":2: a change's number does not parse" },
		{ "format\t1\nchange\ttrend/g/r/fps.html\tm\tm\tg\tr\tfps\t6.1\t6.2\t../b.html\t2026\t-6\t-7\t-5\t0.01\t10\t9\n",
		  ":2: a change's page or batch is not a relative path" },
		{ "", ":0: no 'format' line" },
	};
	char *path = xasprintf("%s/site.state", tmp);
	struct site_state r;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct strbuf err = STRBUF_INIT;

		ck_assert_int_eq(write_file_atomic(path, bad[i].text, strlen(bad[i].text), 0644), 0);
		ck_assert_int_eq(site_state_read(path, &r, &err), -EINVAL);
		ck_assert_msg(strstr(err.buf, bad[i].want) && str_startswith(err.buf, path), "case %zu: '%s'", i,
			      err.buf);
		ck_assert_uint_eq(r.n_pages + r.n_changes, 0);
		strbuf_release(&err);
	}
	/* from a buffer, as the fuzz target reads it; and back to text */
	{
		struct strbuf err = STRBUF_INIT;
		char text[] = "format\t1\npage\tindex.html\tab\n" CHANGE_OK, *again;

		ck_assert_int_eq(site_state_parse(text, strlen(text), "S", &r, &err), 0);
		again = site_state_format(&r);
		ck_assert_msg(strstr(again, "\npage\tindex.html\tab\n") && !strstr(again, "generator"), "%s", again);
		ck_assert_msg(strstr(again, CHANGE_OK), "%s", again);
		free(again);
		site_state_release(&r);
		strbuf_release(&err);
	}
	/* the good change line is read */
	{
		struct strbuf err = STRBUF_INIT;
		const char ok[] = "format\t1\n" CHANGE_OK;

		ck_assert_int_eq(write_file_atomic(path, ok, strlen(ok), 0644), 0);
		ck_assert_int_eq(site_state_read(path, &r, &err), 0);
		ck_assert_uint_eq(r.n_changes, 1);
		site_state_release(&r);
		strbuf_release(&err);
	}
	free(path);
}
END_TEST

/* A lab of two machines by SQL: per machine 4 kernels x 3 batches x 4
 * runs of one run name; on lab-2 fps falls 10% from kernel 6.3. */
static void lab_make(const char *db_path)
{
	struct resultsdb *db;
	struct strbuf err = STRBUF_INIT;
	sqlite3 *s;
	char *sql;

	ck_assert_int_eq(resultsdb_open(db_path, &db, &err), 0);
	resultsdb_close(db);
	ck_assert_int_eq(sqlite3_open(db_path, &s), SQLITE_OK);
	for (int h = 1; h <= 2; h++)
		for (int k = 0; k < 4; k++)
			for (int b = 0; b < 3; b++) {
				sql = xasprintf("INSERT INTO batches (batch_uuid, path, game, status, started_utc, host,"
						" kernel_release, harness_command, imported_utc) VALUES ('b-%d-%d-%d', '/none/%d',"
						" 'doom', 'complete', '2026-12-0%dT0%d:00:0%dZ', 'lab-%d', '6.%d', '%s', 'x')",
						h, k, b, b, k + 1, b, h, h, k,
						b == 2 ? "hitchbench ab --metric fps doom a b" : "hitchbench run doom");
				ck_assert_int_eq(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
				free(sql);
				for (int r = 0; r < 4; r++) {
					double fps = 100.0 + r * 0.5 + b * 0.2 - ((h == 2 && k >= 3) ? 10.0 : 0.0);

					sql = xasprintf("INSERT INTO runs (run_uuid, name, path, format, game, variant, status,"
							" started_utc, kernel_release, host, imported_utc, batch_uuid, run_name,"
							" invalid) VALUES ('r-%d-%d-%d-%d', 'run-%d-%d-%d-%d', '/none', 1, 'doom',"
							" 'soft', 'ok', '2026-12-0%dT0%d:00:0%dZ', '6.%d', 'lab-%d', 'x', 'b-%d-%d-%d',"
							" 'soft', 0);"
							" INSERT INTO metrics VALUES (last_insert_rowid(), 'fps', %f);",
							h, k, b, r, h, k, b, r, k + 1, b, r, k, h, h, k, b, fps);
					ck_assert_int_eq(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
					free(sql);
				}
			}
	sqlite3_close(s);
	strbuf_release(&err);
}

static int lab_build(const char *db_path, const char *out, struct site_stats *st, const char *now)
{
	static const enum metric_id metrics[] = { M_FPS };
	struct site_opts o = { .out = out, .metrics = metrics, .n_metrics = 1, .generator = "test",
			       .now_utc = now, .tmpdir = tmp };
	struct strbuf err = STRBUF_INIT, problems = STRBUF_INIT;
	struct resultsdb *db;
	int r;

	ck_assert_int_eq(resultsdb_open_mode(db_path, RESULTSDB_READ, &db, &err), 0);
	r = site_build(db, &o, st, &problems, &err);
	ck_assert_msg(r == 0, "%s", err.buf);
	resultsdb_close(db);
	strbuf_release(&err);
	strbuf_release(&problems);
	return r;
}

static void sql_run(const char *db_path, const char *sql)
{
	sqlite3 *s;

	ck_assert_int_eq(sqlite3_open(db_path, &s), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
}

START_TEST(build_incremental)
{
	char *db_path = xasprintf("%s/lab.db", tmp), *out = xasprintf("%s/site", tmp);
	char *state_path = xasprintf("%s/site.state", out), *page = xasprintf("%s/batch/b-1-0-0.html", out);
	struct site_state s;
	struct strbuf err = STRBUF_INIT;
	struct site_stats st;
	struct stat sb;

	lab_make(db_path);
	lab_build(db_path, out, &st, "2026-12-06T01:00:00Z");
	/* index, 2 machines, 1 trend, 24 batches, 8 verdict pages */
	ck_assert_uint_eq(st.pages, 1 + 2 + 1 + 24 + 8);
	ck_assert_uint_eq(st.written, st.pages);
	ck_assert_uint_eq(st.change_points, 1);
	ck_assert_uint_eq(st.new_change_points, 1);
	ck_assert_int_eq(site_state_read(state_path, &s, &err), 0);
	ck_assert_uint_eq(s.n_changes, 1);
	ck_assert_str_eq(s.changes[0].machine, "lab-2");
	ck_assert_str_eq(s.changes[0].kernel_before, "6.2");
	ck_assert_str_eq(s.changes[0].kernel_after, "6.3");
	ck_assert_str_eq(s.changes[0].batch_after, "batch/b-2-3-0.html");
	ck_assert_msg(s.changes[0].percent < -9 && s.changes[0].percent > -11, "%f", s.changes[0].percent);
	ck_assert(s.changes[0].lo <= s.changes[0].percent && s.changes[0].percent <= s.changes[0].hi);
	ck_assert_str_eq(s.changes[0].found_utc, "2026-12-06T01:00:00Z");
	site_state_release(&s);
	ck_assert_int_eq(stat(page, &sb), 0);

	/* nothing changed: nothing written, the change keeps when it was found */
	lab_build(db_path, out, &st, "2026-12-06T02:00:00Z");
	ck_assert_uint_eq(st.written, 0);
	ck_assert_uint_eq(st.unchanged, st.pages);
	ck_assert_uint_eq(st.new_change_points, 0);

	/* one run of lab-1's first batch changed: its batch page, the trend, the
	 * index (its medians move no change point) and nothing else */
	sql_run(db_path, "UPDATE metrics SET value = 150 WHERE run_id = (SELECT id FROM runs WHERE run_uuid = 'r-1-0-0-0')");
	lab_build(db_path, out, &st, "2026-12-06T03:00:00Z");
	ck_assert_uint_ge(st.written, 2);
	ck_assert_uint_le(st.written, 4);
	ck_assert_int_eq(site_state_read(state_path, &s, &err), 0);
	ck_assert_str_eq(s.changes[0].found_utc, "2026-12-06T01:00:00Z");
	site_state_release(&s);

	/* a batch gone: its page removed, the state without it */
	sql_run(db_path, "DELETE FROM runs WHERE batch_uuid = 'b-1-0-0'; DELETE FROM batches WHERE batch_uuid = 'b-1-0-0'");
	lab_build(db_path, out, &st, "2026-12-06T04:00:00Z");
	ck_assert_uint_eq(st.removed, 1);
	ck_assert_int_eq(stat(page, &sb), -1);
	ck_assert_int_eq(site_state_read(state_path, &s, &err), 0);
	ck_assert_ptr_null(site_state_page(&s, "batch/b-1-0-0.html"));
	ck_assert_ptr_nonnull(site_state_page(&s, "batch/b-1-0-1.html"));
	site_state_release(&s);

	/* a damaged state stops the build, and nothing is written */
	ck_assert_int_eq(write_file_atomic(state_path, "format\t1\nzz\n", 12, 0644), 0);
	{
		static const enum metric_id metrics[] = { M_FPS };
		struct site_opts o = { .out = out, .metrics = metrics, .n_metrics = 1, .generator = "test",
				       .now_utc = "2026-12-06T05:00:00Z", .tmpdir = tmp };
		struct strbuf problems = STRBUF_INIT;
		struct resultsdb *db;

		ck_assert_int_eq(resultsdb_open_mode(db_path, RESULTSDB_READ, &db, &err), 0);
		ck_assert_int_eq(site_build(db, &o, &st, &problems, &err), -EINVAL);
		ck_assert_msg(strstr(err.buf, "site.state:2: an unknown record"), "%s", err.buf);
		ck_assert_uint_eq(st.written, 0);
		resultsdb_close(db);
		strbuf_release(&problems);
	}
	strbuf_release(&err);
	free(db_path);
	free(out);
	free(state_path);
	free(page);
}
END_TEST

/* A link put in place of one of the site's directories is never written
 * through. */
START_TEST(build_link_refused)
{
	static const enum metric_id metrics[] = { M_FPS };
	char *db_path = xasprintf("%s/lab.db", tmp), *out = xasprintf("%s/site", tmp);
	char *elsewhere = xasprintf("%s/elsewhere", tmp), *link = xasprintf("%s/batch", out);
	struct site_opts o = { .out = out, .metrics = metrics, .n_metrics = 1, .generator = "test",
			       .now_utc = "2026-12-06T01:00:00Z", .tmpdir = tmp };
	struct strbuf err = STRBUF_INIT, problems = STRBUF_INIT;
	struct resultsdb *db;
	struct site_stats st;

	lab_make(db_path);
	ck_assert_int_eq(mkdir(out, 0755), 0);
	ck_assert_int_eq(mkdir(elsewhere, 0755), 0);
	ck_assert_int_eq(symlink(elsewhere, link), 0);
	ck_assert_int_eq(resultsdb_open_mode(db_path, RESULTSDB_READ, &db, &err), 0);
	ck_assert_int_eq(site_build(db, &o, &st, &problems, &err), -ELOOP);
	ck_assert_msg(strstr(err.buf, "batch/"), "%s", err.buf);
	ck_assert_int_eq(rmdir(elsewhere), 0);      /* still empty */
	resultsdb_close(db);
	strbuf_release(&err);
	strbuf_release(&problems);
	free(db_path);
	free(out);
	free(elsewhere);
	free(link);
}
END_TEST

TEST_SUITE(site_suite)
{
	Suite *s = suite_create("site");
	TCase *names = tcase_create("names");
	TCase *state = tcase_create("state");
	TCase *build = tcase_create("build");

	tcase_add_test(names, file_names);
	suite_add_tcase(s, names);
	tcase_add_checked_fixture(state, setup, teardown);
	tcase_add_test(state, state_round_trip);
	tcase_add_test(state, state_refused);
	suite_add_tcase(s, state);
	tcase_add_checked_fixture(build, setup, teardown);
	tcase_set_timeout(build, 60);
	tcase_add_test(build, build_incremental);
	tcase_add_test(build, build_link_refused);
	suite_add_tcase(s, build);
	return s;
}
