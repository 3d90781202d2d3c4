/*
 * Tests for the groups of a report (median, min, max, n; who is left out
 * and why), results/interfered.txt, and the matrix by batch and by kernel,
 * from rows and from a temporary results database.
 */
#include "test.h"
#include "interference/interfered.h"
#include "report/matrix.h"
#include "report/report.h"
#include "db/resultsdb.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct report_row row_fps(const char *run, const char *name, const char *status,
				 double fps)
{
	struct report_row r = { .run = run, .run_id = run, .game = "doom", .run_name = name,
				.status = status };

	r.m.v[M_FPS] = fps;
	r.m.have[M_FPS] = true;
	return r;
}

START_TEST(groups_median_min_max_n)
{
	struct report_row rows[] = {
		row_fps("r1", "sw", "ok", 60), row_fps("r2", "gl", "ok", 30),
		row_fps("r3", "sw", "ok", 50), row_fps("r4", "sw", "ok", 90),
		row_fps("r5", "sw", "ok", 70), row_fps("r6", "sw", "aborted", 10),
		row_fps("r7", "sw", "ok", 1000),
	};
	struct report_group *g;
	size_t n;

	rows[6].disturbed = "interfered=1 (a backup ran)";
	n = report_groups(rows, ARRAY_SIZE(rows), false, &g);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(g[0].run_name, "sw");
	ck_assert_uint_eq(g[0].s.n, 4);
	ck_assert_double_eq(g[0].s.median.v[M_FPS], 65);     /* (60 + 70) / 2 */
	ck_assert_double_eq(g[0].s.min.v[M_FPS], 50);
	ck_assert_double_eq(g[0].s.max.v[M_FPS], 90);
	ck_assert(!g[0].s.min.have[M_FRAMES]);
	ck_assert_str_eq(g[1].run_name, "gl");
	ck_assert_uint_eq(g[1].s.n, 1);
	free(g);

	ck_assert_str_eq(report_row_excluded(&rows[5], false), "aborted");
	ck_assert_str_eq(report_row_excluded(&rows[6], false), "interfered=1 (a backup ran)");
	ck_assert_ptr_null(report_row_excluded(&rows[0], false));

	/* --include-interfered: the disturbed run counts, the aborted never */
	n = report_groups(rows, ARRAY_SIZE(rows), true, &g);
	ck_assert_uint_eq(g[0].s.n, 5);
	ck_assert_double_eq(g[0].s.median.v[M_FPS], 70);
	ck_assert_double_eq(g[0].s.max.v[M_FPS], 1000);
	ck_assert_ptr_null(report_row_excluded(&rows[6], true));
	ck_assert_str_eq(report_row_excluded(&rows[5], true), "aborted");
	free(g);
}
END_TEST

START_TEST(interfered_file)
{
	struct interfered_list l;
	struct strbuf err = STRBUF_INIT;
	struct report_row rows[] = { row_fps("a1", "sw", "ok", 1), row_fps("b2", "sw", "ok", 2),
				     row_fps("c3", "sw", "ok", 3) };

	interfered_init(&l);
	ck_assert_int_eq(interfered_parse(&l,
		"# header\n\n  a1\tbackup ran 02:00-02:10  \n"
		"20261130T100000Z-doom-sw  host under load (see syslog)\n", "i.txt", &err), 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_str_eq(l.v[0].run, "a1");
	ck_assert_str_eq(l.v[0].reason, "backup ran 02:00-02:10");
	ck_assert_str_eq(l.v[0].why, "i.txt:3: backup ran 02:00-02:10");
	ck_assert_int_eq(l.v[1].line, 4);
	ck_assert_ptr_nonnull(interfered_find(&l, NULL, "20261130T100000Z-doom-sw"));
	ck_assert_ptr_null(interfered_find(&l, "zz", "yy"));

	/* rows named by id or directory; a row marked already keeps its mark */
	rows[1].run_id = "x";
	rows[1].run = "20261130T100000Z-doom-sw";
	rows[2].disturbed = "invalid=1";
	rows[2].run_id = "a1";
	interfered_mark(&l, rows, ARRAY_SIZE(rows));
	ck_assert_str_eq(rows[0].disturbed, "i.txt:3: backup ran 02:00-02:10");
	ck_assert_str_eq(rows[1].disturbed, "i.txt:4: host under load (see syslog)");
	ck_assert_str_eq(rows[2].disturbed, "invalid=1");

	/* bad lines: file:line, nothing appended */
	ck_assert_int_eq(interfered_parse(&l, "ok1 fine\nlonely\n", "i.txt", &err), -EINVAL);
	ck_assert_str_eq(err.buf, "i.txt:2: no reason given for 'lonely'");
	ck_assert_uint_eq(l.n, 2);
	strbuf_reset(&err);
	ck_assert_int_eq(interfered_parse(&l, "\n../x why\n", "f", &err), -EINVAL);
	ck_assert_str_eq(err.buf, "f:2: '../x' is not a run id nor a run directory's name");
	strbuf_reset(&err);
	ck_assert_int_eq(interfered_parse(&l, ".. why\n", "f", &err), -EINVAL);

	/* a missing default file is an empty list; a missing given one is not */
	strbuf_reset(&err);
	ck_assert_int_eq(interfered_read(&l, "/nonexistent/interfered.txt", 1, &err), 0);
	ck_assert_int_eq(interfered_read(&l, "/nonexistent/interfered.txt", 0, &err), -ENOENT);
	interfered_release(&l);
	strbuf_release(&err);

	/* the file shipped in results/ parses and lists no run */
	interfered_init(&l);
	ck_assert_int_eq(interfered_read(&l, srcdir_path("results/interfered.txt"), 0, &err), 0);
	ck_assert_uint_eq(l.n, 0);
	interfered_release(&l);
}
END_TEST

static char *csv_of(const struct matrix *m, enum metric_id id)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(matrix_write_csv(f, m, id), 0);
	fclose(f);
	return buf;
}

START_TEST(matrix_by_batch_and_kernel)
{
	struct report_row rows[] = {
		row_fps("r1", "sw@-", "ok", 60), row_fps("r2", "gl@-", "ok", 30),
		row_fps("r3", "sw@-", "ok", 62), row_fps("r4", "sw@-", "ok", 70),
		row_fps("r5", "sw@-", "ok", 5), row_fps("r6", "gl@-", "failed", 0),
		row_fps("r7", "sw@-", "ok", 1),
	};
	struct matrix m;
	char *csv;

	/* batch B2 started first although its id sorts last */
	rows[0].batch = "B9", rows[0].started_utc = "2026-12-01T10:00:00Z", rows[0].kernel = "6.10.2";
	rows[1].batch = "B9", rows[1].started_utc = "2026-12-01T10:01:00Z", rows[1].kernel = "6.10.2";
	rows[2].batch = "B9", rows[2].started_utc = "2026-12-01T10:02:00Z", rows[2].kernel = "6.10.2";
	rows[3].batch = "B2", rows[3].started_utc = "2026-11-30T10:00:00Z", rows[3].kernel = "6.9.12";
	rows[4].batch = "B2", rows[4].started_utc = "2026-11-30T10:01:00Z", rows[4].kernel = "6.9.12";
	rows[4].disturbed = "interfered=1";
	rows[5].batch = "B2", rows[5].started_utc = "2026-11-30T10:02:00Z", rows[5].kernel = "6.9.12";
	/* no batch, no kernel: left out */
	ck_assert_int_eq(matrix_build(&m, rows, ARRAY_SIZE(rows), MATRIX_BY_BATCH, false), 0);
	ck_assert_uint_eq(m.n_without, 1);
	csv = csv_of(&m, M_FPS);
	ck_assert_str_eq(csv,
		"game,run,B2.median,B2.min,B2.max,B2.n,B9.median,B9.min,B9.max,B9.n\n"
		"doom,gl@-,,,,,30.0,30.0,30.0,1\n"
		"doom,sw@-,70.0,70.0,70.0,1,61.0,60.0,62.0,2\n");
	free(csv);
	ck_assert(matrix_has(&m, M_FPS));
	ck_assert(!matrix_has(&m, M_FRAMES));
	matrix_release(&m);

	/* by kernel, in version order (strverscmp: 6.9 before 6.10), the
	 * disturbed run counted */
	ck_assert_int_eq(matrix_build(&m, rows, ARRAY_SIZE(rows), MATRIX_BY_KERNEL, true), 0);
	csv = csv_of(&m, M_FPS);
	ck_assert_str_eq(csv,
		"game,run,6.9.12.median,6.9.12.min,6.9.12.max,6.9.12.n,"
		"6.10.2.median,6.10.2.min,6.10.2.max,6.10.2.n\n"
		"doom,gl@-,,,,,30.0,30.0,30.0,1\n"
		"doom,sw@-,37.5,5.0,70.0,2,61.0,60.0,62.0,2\n");
	free(csv);
	matrix_release(&m);

	ck_assert_int_eq(matrix_build(&m, NULL, 0, MATRIX_BY_KERNEL, false), 0);
	csv = csv_of(&m, M_FPS);
	ck_assert_str_eq(csv, "game,run\n");
	free(csv);
	matrix_release(&m);
}
END_TEST

/* A run directory's bench.txt as the batch runner writes the keys the
 * matrix reads. */
static void import_run(struct resultsdb *db, const char *tmp, const char *id, const char *batch,
		       const char *kernel, const char *started, double fps, const char *interfered)
{
	struct run run;
	struct metrics m = { 0 };
	struct strbuf err = STRBUF_INIT;

	memset(&run, 0, sizeof(run));
	kvfile_init(&run.bench);
	run.dir = xasprintf("%s/%s", tmp, id);
	ck_assert_int_eq(mkdir(run.dir, 0755), 0);
	kvfile_add(&run.bench, "format", "1");
	kvfile_add(&run.bench, "run_id", id);
	kvfile_add(&run.bench, "game", "doom");
	kvfile_add(&run.bench, "variant", "sw");
	kvfile_add(&run.bench, "started_utc", started);
	kvfile_add(&run.bench, "kernel_release", kernel);
	kvfile_add(&run.bench, "batch_id", batch);
	kvfile_add(&run.bench, "run_name", "sw@-");
	kvfile_add(&run.bench, "switches", "-");
	kvfile_add(&run.bench, "invalid", "0");
	if (interfered) {
		kvfile_add(&run.bench, "interfered", "1");
		kvfile_add(&run.bench, "interfered_reason", interfered);
	}
	kvfile_add(&run.bench, "status", "ok");
	m.v[M_FPS] = fps;
	m.have[M_FPS] = true;
	ck_assert_msg(resultsdb_import(db, &run, &m, NULL, &err) == 0, "import: %s", err.buf);
	strbuf_release(&err);
	kvfile_release(&run.bench);
	free(run.dir);
}

START_TEST(matrix_from_database)
{
	char *tmp = test_tmpdir(), *path = xasprintf("%s/db.sqlite", tmp), *csv;
	struct strbuf err = STRBUF_INIT;
	struct resultsdb *db;
	struct resultsdb_run *runs;
	struct report_row *rows;
	struct matrix m;
	size_t n;

	ck_assert_int_eq(resultsdb_open(path, &db, &err), 0);
	import_run(db, tmp, "u1", "b-late", "6.10.0", "2026-12-02T00:00:00Z", 100, NULL);
	import_run(db, tmp, "u2", "b-late", "6.10.0", "2026-12-02T00:01:00Z", 110, NULL);
	import_run(db, tmp, "u3", "b-early", "6.2.0", "2026-12-01T00:00:00Z", 50, NULL);
	import_run(db, tmp, "u4", "b-early", "6.2.0", "2026-12-01T00:01:00Z", 5, "cron job");
	ck_assert_int_eq(resultsdb_list(db, NULL, NULL, NULL, &runs, &n, &err), 0);
	ck_assert_uint_eq(n, 4);
	rows = zalloc(n * sizeof(*rows));
	for (size_t i = 0; i < n; i++)
		resultsdb_run_report_row(&runs[i], &rows[i]);
	/* in start order: u3 u4 u1 u2 */
	ck_assert_str_eq(rows[1].disturbed, "interfered=1 (cron job)");
	ck_assert_ptr_null(rows[0].disturbed);
	ck_assert_str_eq(rows[0].run_name, "sw@-");

	ck_assert_int_eq(matrix_build(&m, rows, n, MATRIX_BY_BATCH, false), 0);
	csv = csv_of(&m, M_FPS);
	ck_assert_str_eq(csv,
		"game,run,b-early.median,b-early.min,b-early.max,b-early.n,"
		"b-late.median,b-late.min,b-late.max,b-late.n\n"
		"doom,sw@-,50.0,50.0,50.0,1,105.0,100.0,110.0,2\n");
	free(csv);
	matrix_release(&m);
	ck_assert_int_eq(matrix_build(&m, rows, n, MATRIX_BY_KERNEL, false), 0);
	ck_assert_str_eq(m.col[0], "6.2.0");
	ck_assert_str_eq(m.col[1], "6.10.0");
	matrix_release(&m);

	/* provenance, for report's JSON */
	ck_assert_msg(resultsdb_load_provenance(db, runs, n, &err) == 0, "provenance: %s", err.buf);
	ck_assert_str_eq(kvfile_get(&runs[0].provenance, "batch_id"), "b-early");
	free(rows);
	resultsdb_runs_free(runs, n);
	resultsdb_close(db);
	strbuf_release(&err);
	remove_tree(tmp);
	free(tmp);
	free(path);
}
END_TEST

TEST_SUITE(matrix_suite)
{
	Suite *suite = suite_create("matrix");
	TCase *tc = tcase_create("matrix");

	tcase_add_test(tc, groups_median_min_max_n);
	tcase_add_test(tc, interfered_file);
	tcase_add_test(tc, matrix_by_batch_and_kernel);
	tcase_add_test(tc, matrix_from_database);
	suite_add_tcase(suite, tc);
	return suite;
}
