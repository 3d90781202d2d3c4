/*
 * Reading runs back out of the results database: resultsdb_list (a run
 * and its metrics per entry), their provenance on demand, and a listed run
 * as a report row.
 */
#include "db/resultsdb-internal.h"
#include "db/resultsdb-site.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The runs, one row each, then their metrics, then the few provenance
 * pairs a listing needs: three queries rather than one join or a lookup a
 * run, so that nothing is looked up once per metric value or once per run
 * (a lab's database holds 100,000 runs and more: docs/lab.md has the
 * figures). */
#define FILTER_REST \
	" (?1 IS NULL OR r.game = ?1) AND (?2 IS NULL OR r.variant = ?2)" \
	" AND " RESULTSDB_MACHINE_IS("?3")
/* resultsdb_list()'s (?4 and ?5 NULL), a batch's (?4), and the runs of no
 * batch of a kernel (?5): each leads with the condition an index serves */
#define LIST_FILTER " WHERE" FILTER_REST " AND ?4 IS NULL AND ?5 IS NULL"
#define BATCH_FILTER " WHERE r.batch_uuid = ?4 AND" FILTER_REST " AND ?5 IS NULL"
#define LOOSE_FILTER " WHERE r.batch_uuid IS NULL AND r.kernel_release = ?5 AND" FILTER_REST " AND ?4 IS NULL"
#define LIST_SQL(filter) \
	"SELECT r.id, r.run_uuid, r.name, r.path, r.status, r.game, r.variant," \
	" r.started_utc, r.run_name, r.batch_uuid, r.kernel_release, r.invalid, r.check_failed," \
	" r.host, r.machine_id, r.api" \
	" FROM runs AS r" filter \
	" ORDER BY r.started_utc NULLS FIRST, r.name, r.id"
#define LIST_METRICS_SQL(filter) \
	"SELECT m.run_id, m.name, m.value FROM metrics AS m JOIN runs AS r ON r.id = m.run_id" \
	filter " ORDER BY m.run_id"
/* the provenance keys a listing reads (listed_keys below) */
#define LISTED_KEYS_IN " p.key IN ('invalid_reason', 'interfered', 'interfered_reason', 'frame_source_kind')"
/* a key's first pair counts (bench.txt order), as kvfile_get() takes it */
#define LIST_PROVENANCE_SQL(filter) \
	"SELECT p.run_id, p.key, p.value FROM provenance AS p JOIN runs AS r ON r.id = p.run_id" \
	filter " AND" LISTED_KEYS_IN " ORDER BY p.run_id, p.seq"

/* The same for a batch's runs or a kernel's runs of no batch, their ids
 * found first (a MATERIALIZED common table expression, which SQLite has
 * since 3.35): PostgreSQL otherwise plans a parallel scan of every run for
 * a listing of 100, which took 32 ms where the index takes 4, and a site
 * of 100,000 runs makes 2,000 such listings (docs/site.md, "What it
 * costs") */
#define SELECTED(filter) "WITH sel AS MATERIALIZED (SELECT r.id FROM runs AS r" filter ") "
#define SELECTED_METRICS_SQL(filter) \
	SELECTED(filter) "SELECT m.run_id, m.name, m.value FROM sel JOIN metrics AS m ON m.run_id = sel.id" \
	" ORDER BY m.run_id"
#define SELECTED_PROVENANCE_SQL(filter) \
	SELECTED(filter) "SELECT p.run_id, p.key, p.value FROM sel JOIN provenance AS p ON p.run_id = sel.id" \
	" WHERE" LISTED_KEYS_IN \
	" ORDER BY p.run_id, p.seq"
/* every pair, for a listing that takes the whole provenance */
#define SELECTED_ALL_PROVENANCE_SQL(filter) \
	SELECTED(filter) "SELECT p.run_id, p.key, p.value FROM sel JOIN provenance AS p ON p.run_id = sel.id" \
	" ORDER BY p.run_id, p.seq"

/* A listing's statements (all: every provenance pair, NULL for none). */
struct list_sql {
	const char *runs, *metrics, *provenance, *all;
};
static const struct list_sql list_all = {
	LIST_SQL(LIST_FILTER), LIST_METRICS_SQL(LIST_FILTER), LIST_PROVENANCE_SQL(LIST_FILTER), NULL,
};
static const struct list_sql list_batch = {
	LIST_SQL(BATCH_FILTER), SELECTED_METRICS_SQL(BATCH_FILTER), SELECTED_PROVENANCE_SQL(BATCH_FILTER),
	SELECTED_ALL_PROVENANCE_SQL(BATCH_FILTER),
};
static const struct list_sql list_loose = {
	LIST_SQL(LOOSE_FILTER), SELECTED_METRICS_SQL(LOOSE_FILTER), SELECTED_PROVENANCE_SQL(LOOSE_FILTER),
	SELECTED_ALL_PROVENANCE_SQL(LOOSE_FILTER),
};

/* What a run's provenance says of it, for its listing. */
enum listed_key { LK_INVALID_REASON, LK_INTERFERED, LK_INTERFERED_REASON, LK_FRAME_SOURCE_KIND, LK_COUNT };
static const char *const listed_keys[LK_COUNT] = {
	"invalid_reason", "interfered", "interfered_reason", "frame_source_kind",
};

struct listed {
	bool invalid;                   /* runs.invalid = 1 */
	char *v[LK_COUNT];
};

/* "invalid=1 (REASON)", "interfered=1 (REASON)", or NULL. */
static char *run_disturbed(const struct listed *l)
{
	const char *why;

	if (l->invalid) {
		why = l->v[LK_INVALID_REASON];
		return why ? xasprintf("invalid=1 (%s)", why) : xstrdup("invalid=1");
	}
	if (l->v[LK_INTERFERED] && strcmp(l->v[LK_INTERFERED], "1") == 0) {
		why = l->v[LK_INTERFERED_REASON];
		return why ? xasprintf("interfered=1 (%s)", why) : xstrdup("interfered=1");
	}
	return NULL;
}

/* A listed run's row id and its place in the list. */
struct run_place {
	int64_t id;
	size_t index;
};

static int place_cmp(const void *a, const void *b)
{
	const struct run_place *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The listing being made: the filter, the runs listed so far and where
 * each is (places sorted by row id), and what their provenance says. */
struct listing {
	const char *game, *variant, *machine;
	const char *batch, *loose_kernel;   /* resultsdb_list_batch()'s */
	const struct list_sql *sql;
	struct resultsdb_run *runs;
	struct run_place *places;
	struct listed *listed;
	size_t n;
};

static void bind_filter(struct sqldb_stmt *st, const struct listing *l)
{
	sqldb_bind_text(st, 1, l->game);
	sqldb_bind_text(st, 2, l->variant);
	sqldb_bind_text(st, 3, l->machine);
	sqldb_bind_text(st, 4, l->batch);
	sqldb_bind_text(st, 5, l->loose_kernel);
}

/* Runs sql (the listing's filter its parameters, a run's row id its first
 * column) and gives each row whose run is listed to add with the run's
 * index; a row of a run imported since the runs were read is passed over. */
static int for_each_listed(struct resultsdb *db, const char *sql, struct listing *l,
			   void (*add)(struct listing *l, size_t index, struct sqldb_stmt *st),
			   struct strbuf *err)
{
	static const char what[] = "cannot list runs in";
	struct sqldb_stmt *st = NULL;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(db), sql, &st, err, what);
	if (ret < 0)
		return ret;
	bind_filter(st, l);
	while ((ret = sqldb_step(st, err, what)) > 0) {
		struct run_place key = { sqldb_column_int64(st, 0), 0 };
		const struct run_place *p = bsearch(&key, l->places, l->n, sizeof(*l->places), place_cmp);

		if (p)
			add(l, p->index, st);
	}
	sqldb_finalize(st);
	return ret;
}

/* A metric row (run_id, name, value) into its run's metrics. A name this
 * program does not know (a metric dropped since) is not an error: it has
 * nowhere to go. */
static void add_metric(struct listing *l, size_t index, struct sqldb_stmt *st)
{
	int metric = metric_lookup(sqldb_column_text(st, 1));

	if (metric < 0)
		return;
	l->runs[index].m.v[metric] = sqldb_column_double(st, 2);
	l->runs[index].m.have[metric] = true;
}

/* A provenance row (run_id, key, value): a listed key's first pair. */
static void add_listed(struct listing *l, size_t index, struct sqldb_stmt *st)
{
	const char *k = sqldb_column_text(st, 1);

	for (int i = 0; k && i < LK_COUNT; i++)
		if (strcmp(k, listed_keys[i]) == 0 && !l->listed[index].v[i])
			l->listed[index].v[i] = sqldb_column_strdup(st, 2);
}

/* A provenance row (run_id, key, value) into its run's pairs, in order. */
static void add_pair(struct listing *l, size_t index, struct sqldb_stmt *st)
{
	kvfile_add(&l->runs[index].provenance, sqldb_column_text(st, 1), sqldb_column_text(st, 2));
}

static void listed_release(struct listed *listed, size_t n)
{
	for (size_t i = 0; listed && i < n; i++)
		for (int k = 0; k < LK_COUNT; k++)
			free(listed[i].v[k]);
	free(listed);
}

static int list_runs(struct resultsdb *db, struct listing l, struct resultsdb_run **out, size_t *n,
		     struct strbuf *err)
{
	static const char what[] = "cannot list runs in";
	struct sqldb_stmt *st = NULL;
	size_t alloc = 0;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(db), l.sql->runs, &st, err, what);
	if (ret < 0)
		goto out;
	bind_filter(st, &l);
	while ((ret = sqldb_step(st, err, what)) > 0) {
		struct resultsdb_run *r;

		if (l.n == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			l.runs = xrealloc(l.runs, alloc * sizeof(*l.runs));
			l.places = xrealloc(l.places, alloc * sizeof(*l.places));
			l.listed = xrealloc(l.listed, alloc * sizeof(*l.listed));
		}
		memset(&l.listed[l.n], 0, sizeof(*l.listed));
		l.listed[l.n].invalid = !sqldb_column_null(st, 11) && sqldb_column_int64(st, 11) == 1;
		l.places[l.n] = (struct run_place){ sqldb_column_int64(st, 0), l.n };
		r = &l.runs[l.n++];
		memset(r, 0, sizeof(*r));
		r->run_id = sqldb_column_strdup(st, 1);
		r->name = sqldb_column_strdup(st, 2);
		r->path = sqldb_column_strdup(st, 3);
		r->status = sqldb_column_strdup(st, 4);
		r->game = sqldb_column_strdup(st, 5);
		r->variant = sqldb_column_strdup(st, 6);
		r->started_utc = sqldb_column_strdup(st, 7);
		r->run_name = sqldb_column_strdup(st, 8);
		r->batch_id = sqldb_column_strdup(st, 9);
		r->kernel_release = sqldb_column_strdup(st, 10);
		r->check_failed = sqldb_column_strdup(st, 12);
		r->host = sqldb_column_strdup(st, 13);
		r->machine_id = sqldb_column_strdup(st, 14);
		r->api = sqldb_column_strdup(st, 15);
		kvfile_init(&r->provenance);
	}
	sqldb_finalize(st);
	if (ret < 0)
		goto out;
	if (l.n)
		qsort(l.places, l.n, sizeof(*l.places), place_cmp);
	ret = for_each_listed(db, l.sql->metrics, &l, add_metric, err);
	if (ret == 0)
		ret = for_each_listed(db, l.sql->provenance, &l, add_listed, err);
	if (ret == 0 && l.sql->all)
		ret = for_each_listed(db, l.sql->all, &l, add_pair, err);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < l.n; i++) {
		const char *kind = l.listed[i].v[LK_FRAME_SOURCE_KIND];

		l.runs[i].disturbed = run_disturbed(&l.listed[i]);
		l.runs[i].interval = kind && strcmp(kind, "interval") == 0;
	}
	*out = l.runs;
	*n = l.n;
	l.runs = NULL;
out:
	listed_release(l.listed, l.n);
	free(l.places);
	resultsdb_runs_free(l.runs, l.runs ? l.n : 0);
	return ret;
}

int resultsdb_list(struct resultsdb *db, const char *game, const char *variant, const char *machine,
		   struct resultsdb_run **out, size_t *n, struct strbuf *err)
{
	return list_runs(db, (struct listing){ .game = game, .variant = variant, .machine = machine, .sql = &list_all },
			 out, n, err);
}

int resultsdb_list_batch(struct resultsdb *db, const char *batch, const char *machine,
			 const char *kernel, struct resultsdb_run **out, size_t *n, struct strbuf *err)
{
	struct listing l = { .batch = batch, .sql = &list_batch };

	if (!batch) {
		if (!machine || !kernel) {
			strbuf_addf(err, "runs of no batch are listed by machine and kernel");
			return -EINVAL;
		}
		l.machine = machine;
		l.loose_kernel = kernel;
		l.sql = &list_loose;
	}
	return list_runs(db, l, out, n, err);
}

void resultsdb_runs_free(struct resultsdb_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(runs[i].run_id);
		free(runs[i].name);
		free(runs[i].path);
		free(runs[i].status);
		free(runs[i].game);
		free(runs[i].variant);
		free(runs[i].started_utc);
		free(runs[i].run_name);
		free(runs[i].batch_id);
		free(runs[i].kernel_release);
		free(runs[i].disturbed);
		free(runs[i].check_failed);
		free(runs[i].host);
		free(runs[i].machine_id);
		free(runs[i].api);
		kvfile_release(&runs[i].provenance);
	}
	free(runs);
}

int resultsdb_load_provenance(struct resultsdb *db, struct resultsdb_run *runs, size_t n,
			      struct strbuf *err)
{
	static const char what[] = "cannot read provenance in";
	struct sqldb_stmt *st = NULL;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(db), "SELECT p.key, p.value FROM provenance AS p JOIN runs AS r"
			    " ON p.run_id = r.id WHERE r.run_uuid = ?1 ORDER BY p.seq", &st, err, what);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		kvfile_release(&runs[i].provenance);
		kvfile_init(&runs[i].provenance);
		sqldb_reset(st);
		sqldb_bind_text(st, 1, runs[i].run_id);
		while ((ret = sqldb_step(st, err, what)) > 0)
			kvfile_add(&runs[i].provenance, sqldb_column_text(st, 0), sqldb_column_text(st, 1));
	}
	sqldb_finalize(st);
	return ret;
}

void resultsdb_run_report_row(const struct resultsdb_run *run, struct report_row *row)
{
	memset(row, 0, sizeof(*row));
	row->run = run->name;
	row->game = run->game;
	row->run_name = run->run_name ? run->run_name : run->variant;
	row->status = run->status;
	row->m = run->m;
	row->disturbed = run->disturbed;
	row->invalid = run->check_failed;
	row->interval = run->interval;
	row->run_id = run->run_id;
	row->dir = run->path;
	row->provenance = run->provenance.n ? &run->provenance : NULL;
	row->batch = run->batch_id;
	row->kernel = run->kernel_release;
	row->started_utc = run->started_utc;
	row->api = run->api;
}
