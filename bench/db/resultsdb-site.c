/*
 * The site's queries (resultsdb-site.h): every batch, every run with the
 * few metrics the site draws and a fingerprint of what its report row
 * shows, and the machines. Whole tables in a few statements: nothing is
 * looked up once per run.
 */
#include "db/resultsdb-internal.h"
#include "db/resultsdb-site.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Batches that were imported, and those runs name that were not. */
static const char batches_sql[] =
	"SELECT batch_uuid, path, game, variants, tokens, status, started_utc, ended_utc, host,"
	" machine_id, kernel_release, harness_command, rounds FROM batches"
	" UNION ALL SELECT DISTINCT r.batch_uuid, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
	" NULL, NULL, NULL, CAST(NULL AS INTEGER) FROM runs AS r WHERE r.batch_uuid IS NOT NULL"
	" AND NOT EXISTS (SELECT 1 FROM batches AS b WHERE b.batch_uuid = r.batch_uuid)"
	" ORDER BY 7 NULLS FIRST, 1";

/* A run's report row as one line: its columns, then how many metric and
 * provenance rows it has and the sum of its metric values (an import
 * replaces them as a whole: a changed value changes the sum). The sum is
 * of NUMERIC: exact on PostgreSQL, so that its parallel aggregation (each
 * worker adding its share of a run's rows) gives the same sum however the
 * rows were shared out; a sum of doubles there differed in its last bits
 * from one reading to the next, and 4 of 1,011 pages were written again
 * with nothing changed. The text is only ever compared with the same
 * database's, never shown. */
static const char runs_sql[] =
	"SELECT r.id, r.run_uuid, r.batch_uuid, r.host, r.machine_id, r.game,"
	" COALESCE(r.run_name, r.variant), r.kernel_release, r.started_utc,"
	" CASE WHEN r.status = 'ok' AND COALESCE(r.invalid, 0) = 0 THEN 1 ELSE 0 END,"
	" r.name || '|' || r.path || '|' || r.status || '|' || COALESCE(r.check_failed, '-') || '|'"
	" || COALESCE(CAST(r.invalid AS TEXT), '-') || '|' || COALESCE(r.api, '-') || '|'"
	" || COALESCE(CAST(r.stall_ms AS TEXT), '-') || '|' || COALESCE(r.percentile, '-') || '|'"
	" || COALESCE(r.harness_version, '-') || '|' || COALESCE(r.kernel_release, '-') || '|'"
	" || COALESCE(r.started_utc, '-') || '|' || COALESCE(CAST(r.batch_round AS TEXT), '-') || '|'"
	" || COALESCE(CAST(r.batch_position AS TEXT), '-') || '|' || COALESCE(r.cpu_model, '-') || '|'"
	" || COALESCE(r.gpu, '-'),"
	" COALESCE(mc.n, 0), COALESCE(mc.s, 0), COALESCE(pc.n, 0)"
	" FROM runs AS r"
	" LEFT JOIN (SELECT run_id, count(*) AS n, sum(CAST(value AS NUMERIC)) AS s FROM metrics"
	" GROUP BY run_id) AS mc"
	" ON mc.run_id = r.id"
	" LEFT JOIN (SELECT run_id, count(*) AS n FROM provenance GROUP BY run_id) AS pc"
	" ON pc.run_id = r.id"
	" ORDER BY r.id";

static const char machines_sql[] =
	"SELECT host, machine_id, cpu_model, gpu, min(started_utc), max(started_utc), count(*)"
	" FROM runs GROUP BY host, machine_id, cpu_model, gpu"
	" ORDER BY COALESCE(host, machine_id), machine_id, cpu_model, gpu";

int resultsdb_site_batches(struct resultsdb *db, struct resultsdb_site_batch **out, size_t *n,
			   struct strbuf *err)
{
	static const char what[] = "cannot list batches in";
	struct resultsdb_site_batch *v = NULL;
	struct sqldb_stmt *st = NULL;
	size_t count = 0, alloc = 0;
	int ret = sqldb_prepare(resultsdb_sqldb(db), batches_sql, &st, err, what);

	while (st && (ret = sqldb_step(st, err, what)) > 0) {
		struct resultsdb_site_batch *b;
		char **text[12];

		if (count == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		b = &v[count++];
		memset(b, 0, sizeof(*b));
		text[0] = &b->uuid, text[1] = &b->path, text[2] = &b->game, text[3] = &b->variants;
		text[4] = &b->tokens, text[5] = &b->status, text[6] = &b->started_utc;
		text[7] = &b->ended_utc, text[8] = &b->host, text[9] = &b->machine_id;
		text[10] = &b->kernel_release, text[11] = &b->harness_command;
		for (int c = 0; c < 12; c++)
			*text[c] = sqldb_column_strdup(st, c);
		b->rounds = sqldb_column_null(st, 12) ? -1 : sqldb_column_int64(st, 12);
	}
	sqldb_finalize(st);
	if (ret < 0) {
		resultsdb_site_batches_free(v, count);
		return ret;
	}
	*out = v;
	*n = count;
	return 0;
}

void resultsdb_site_batches_free(struct resultsdb_site_batch *b, size_t n)
{
	for (size_t i = 0; b && i < n; i++) {
		free(b[i].uuid), free(b[i].path), free(b[i].game), free(b[i].variants);
		free(b[i].tokens), free(b[i].status), free(b[i].started_utc), free(b[i].ended_utc);
		free(b[i].host), free(b[i].machine_id), free(b[i].kernel_release);
		free(b[i].harness_command);
	}
	free(b);
}

static int cmp_id(const void *key, const void *elem)
{
	const int64_t *k = key;
	const struct resultsdb_site_run *r = elem;

	return *k < r->id ? -1 : *k > r->id;
}

/* The metrics' values into the runs read (sorted by id). */
static int read_values(struct resultsdb *db, const char *const *metrics, size_t n_metrics,
		       struct resultsdb_site_run *runs, size_t n, struct strbuf *err)
{
	static const char what[] = "cannot read metrics in";
	struct strbuf sql = STRBUF_INIT;
	struct sqldb_stmt *st = NULL;
	int ret;

	strbuf_addstr(&sql, "SELECT run_id, name, value FROM metrics WHERE name IN (");
	for (size_t i = 0; i < n_metrics; i++)
		strbuf_addf(&sql, "%s?%zu", i ? ", " : "", i + 1);
	strbuf_addstr(&sql, ") ORDER BY run_id");
	ret = sqldb_prepare(resultsdb_sqldb(db), sql.buf, &st, err, what);
	strbuf_release(&sql);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < n_metrics; i++)
		sqldb_bind_text(st, (int)i + 1, metrics[i]);
	while ((ret = sqldb_step(st, err, what)) > 0) {
		int64_t id = sqldb_column_int64(st, 0);
		struct resultsdb_site_run *r = bsearch(&id, runs, n, sizeof(*runs), cmp_id);
		const char *name = sqldb_column_text(st, 1);

		for (size_t i = 0; r && name && i < n_metrics; i++)
			if (!strcmp(name, metrics[i])) {
				r->v[i] = sqldb_column_double(st, 2);
				r->have[i] = true;
			}
	}
	sqldb_finalize(st);
	return ret;
}

int resultsdb_site_runs(struct resultsdb *db, const char *const *metrics, size_t n_metrics,
			struct resultsdb_site_run **out, size_t *n, struct strbuf *err)
{
	static const char what[] = "cannot list runs in";
	struct resultsdb_site_run *v = NULL;
	struct sqldb_stmt *st = NULL;
	size_t count = 0, alloc = 0;
	int ret = sqldb_prepare(resultsdb_sqldb(db), runs_sql, &st, err, what);

	while (st && (ret = sqldb_step(st, err, what)) > 0) {
		struct resultsdb_site_run *r;
		char sum[64];

		if (count == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		r = &v[count++];
		memset(r, 0, sizeof(*r));
		r->id = sqldb_column_int64(st, 0);
		r->run_uuid = sqldb_column_strdup(st, 1);
		r->batch = sqldb_column_strdup(st, 2);
		r->host = sqldb_column_strdup(st, 3);
		r->machine_id = sqldb_column_strdup(st, 4);
		r->game = sqldb_column_strdup(st, 5);
		r->run_name = sqldb_column_strdup(st, 6);
		r->kernel_release = sqldb_column_strdup(st, 7);
		r->started_utc = sqldb_column_strdup(st, 8);
		r->counts = sqldb_column_int64(st, 9) == 1;
		format_double_exact(sum, sizeof(sum), sqldb_column_double(st, 12));
		r->fingerprint = xasprintf("%s|%lld|%s|%lld", sqldb_column_text(st, 10) ? sqldb_column_text(st, 10) : "-",
					   (long long)sqldb_column_int64(st, 11), sum,
					   (long long)sqldb_column_int64(st, 13));
		r->v = zalloc(sizeof(*r->v) * (n_metrics ? n_metrics : 1));
		r->have = zalloc(sizeof(*r->have) * (n_metrics ? n_metrics : 1));
	}
	sqldb_finalize(st);
	if (ret == 0 && count && n_metrics)
		ret = read_values(db, metrics, n_metrics, v, count, err);
	if (ret < 0) {
		resultsdb_site_runs_free(v, count);
		return ret;
	}
	*out = v;
	*n = count;
	return 0;
}

void resultsdb_site_runs_free(struct resultsdb_site_run *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		free(r[i].run_uuid), free(r[i].batch), free(r[i].host), free(r[i].machine_id);
		free(r[i].game), free(r[i].run_name), free(r[i].kernel_release);
		free(r[i].started_utc), free(r[i].fingerprint), free(r[i].v), free(r[i].have);
	}
	free(r);
}

int resultsdb_site_machines(struct resultsdb *db, struct resultsdb_site_machine **out, size_t *n,
			    struct strbuf *err)
{
	static const char what[] = "cannot list machines in";
	struct resultsdb_site_machine *v = NULL;
	struct sqldb_stmt *st = NULL;
	size_t count = 0, alloc = 0;
	int ret = sqldb_prepare(resultsdb_sqldb(db), machines_sql, &st, err, what);

	while (st && (ret = sqldb_step(st, err, what)) > 0) {
		struct resultsdb_site_machine *m;

		if (count == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		m = &v[count++];
		m->host = sqldb_column_strdup(st, 0);
		m->machine_id = sqldb_column_strdup(st, 1);
		m->cpu_model = sqldb_column_strdup(st, 2);
		m->gpu = sqldb_column_strdup(st, 3);
		m->first_utc = sqldb_column_strdup(st, 4);
		m->last_utc = sqldb_column_strdup(st, 5);
		m->runs = sqldb_column_int64(st, 6);
	}
	sqldb_finalize(st);
	if (ret < 0) {
		resultsdb_site_machines_free(v, count);
		return ret;
	}
	*out = v;
	*n = count;
	return 0;
}

void resultsdb_site_machines_free(struct resultsdb_site_machine *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++) {
		free(m[i].host), free(m[i].machine_id), free(m[i].cpu_model), free(m[i].gpu);
		free(m[i].first_utc), free(m[i].last_utc);
	}
	free(m);
}
