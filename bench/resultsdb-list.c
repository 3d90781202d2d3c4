/*
 * Reading runs back out of the results database: resultsdb_list (a run
 * and its metrics per entry), their provenance on demand, and a listed run
 * as a report row.
 */
#include "resultsdb-internal.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The runs, one row each, then their metrics, then the few provenance
 * pairs a listing needs: three queries rather than one join or a lookup a
 * run, so that nothing is looked up once per metric value or once per run
 * (a lab's database holds 100,000 runs and more: docs/lab.md has the
 * figures). */
#define LIST_FILTER \
	" WHERE (?1 IS NULL OR r.game = ?1) AND (?2 IS NULL OR r.variant = ?2)" \
	" AND " RESULTSDB_MACHINE_IS("?3")
static const char list_sql[] =
	"SELECT r.id, r.run_uuid, r.name, r.path, r.status, r.game, r.variant,"
	" r.started_utc, r.run_name, r.batch_uuid, r.kernel_release, r.invalid, r.check_failed,"
	" r.host, r.machine_id"
	" FROM runs AS r" LIST_FILTER
	" ORDER BY r.started_utc NULLS FIRST, r.name, r.id";
static const char list_metrics_sql[] =
	"SELECT m.run_id, m.name, m.value FROM metrics AS m JOIN runs AS r ON r.id = m.run_id"
	LIST_FILTER " ORDER BY m.run_id";
/* a key's first pair counts (bench.txt order), as kvfile_get() takes it */
static const char list_provenance_sql[] =
	"SELECT p.run_id, p.key, p.value FROM provenance AS p JOIN runs AS r ON r.id = p.run_id"
	LIST_FILTER " AND p.key IN ('invalid_reason', 'interfered', 'interfered_reason',"
	" 'frame_source_kind') ORDER BY p.run_id, p.seq";

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

static void bind_filter(struct sqldb_stmt *st, const char *game, const char *variant, const char *machine)
{
	sqldb_bind_text(st, 1, game);
	sqldb_bind_text(st, 2, variant);
	sqldb_bind_text(st, 3, machine);
}

/* Each metric row into its run's metrics (places sorted by id). */
static int add_metrics(struct resultsdb *db, struct resultsdb_run *runs, const struct run_place *places,
		       size_t n, const char *game, const char *variant, const char *machine, char **err)
{
	static const char what[] = "cannot list runs in";
	struct sqldb_stmt *st = NULL;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(db), list_metrics_sql, &st, err, what);
	if (ret < 0)
		return ret;
	bind_filter(st, game, variant, machine);
	while ((ret = sqldb_step(st, err, what)) > 0) {
		struct run_place key = { sqldb_column_int64(st, 0), 0 };
		const struct run_place *p = bsearch(&key, places, n, sizeof(*places), place_cmp);
		struct resultsdb_run *r;
		int metric;

		if (!p)
			continue;       /* a run imported between the two queries */
		/* A name this program does not know (a metric dropped since)
		 * is not an error: it has nowhere to go. */
		metric = metric_lookup(sqldb_column_text(st, 1));
		if (metric < 0)
			continue;
		r = &runs[p->index];
		r->m.v[metric] = sqldb_column_double(st, 2);
		r->m.have[metric] = true;
	}
	sqldb_finalize(st);
	return ret;
}

/* Each listed key's first pair into its run's listed values. */
static int add_listed(struct resultsdb *db, struct listed *listed, const struct run_place *places,
		      size_t n, const char *game, const char *variant, const char *machine, char **err)
{
	static const char what[] = "cannot list runs in";
	struct sqldb_stmt *st = NULL;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(db), list_provenance_sql, &st, err, what);
	if (ret < 0)
		return ret;
	bind_filter(st, game, variant, machine);
	while ((ret = sqldb_step(st, err, what)) > 0) {
		struct run_place key = { sqldb_column_int64(st, 0), 0 };
		const struct run_place *p = bsearch(&key, places, n, sizeof(*places), place_cmp);
		const char *k = sqldb_column_text(st, 1);

		for (int i = 0; p && k && i < LK_COUNT; i++)
			if (strcmp(k, listed_keys[i]) == 0 && !listed[p->index].v[i])
				listed[p->index].v[i] = sqldb_column_strdup(st, 2);
	}
	sqldb_finalize(st);
	return ret;
}

static void listed_release(struct listed *listed, size_t n)
{
	for (size_t i = 0; listed && i < n; i++)
		for (int k = 0; k < LK_COUNT; k++)
			free(listed[i].v[k]);
	free(listed);
}

int resultsdb_list(struct resultsdb *db, const char *game, const char *variant, const char *machine,
		   struct resultsdb_run **out, size_t *n, char **err)
{

	static const char what[] = "cannot list runs in";
	struct resultsdb_run *runs = NULL;
	struct run_place *places = NULL;
	struct listed *listed = NULL;
	size_t nruns = 0, alloc = 0;
	struct sqldb_stmt *st = NULL;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(db), list_sql, &st, err, what);
	if (ret < 0)
		goto out;
	bind_filter(st, game, variant, machine);
	while ((ret = sqldb_step(st, err, what)) > 0) {
		struct resultsdb_run *r;

		if (nruns == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			runs = xrealloc(runs, alloc * sizeof(*runs));
			places = xrealloc(places, alloc * sizeof(*places));
			listed = xrealloc(listed, alloc * sizeof(*listed));
		}
		memset(&listed[nruns], 0, sizeof(*listed));
		listed[nruns].invalid = !sqldb_column_null(st, 11) && sqldb_column_int64(st, 11) == 1;
		places[nruns] = (struct run_place){ sqldb_column_int64(st, 0), nruns };
		r = &runs[nruns++];
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
		kvfile_init(&r->provenance);
	}
	sqldb_finalize(st);
	st = NULL;
	if (ret < 0)
		goto out;
	if (nruns)
		qsort(places, nruns, sizeof(*places), place_cmp);
	ret = add_metrics(db, runs, places, nruns, game, variant, machine, err);
	if (ret == 0)
		ret = add_listed(db, listed, places, nruns, game, variant, machine, err);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < nruns; i++) {
		const char *kind = listed[i].v[LK_FRAME_SOURCE_KIND];

		runs[i].disturbed = run_disturbed(&listed[i]);
		runs[i].interval = kind && strcmp(kind, "interval") == 0;
	}
	*out = runs;
	*n = nruns;
	runs = NULL;
	nruns = 0;
out:
	sqldb_finalize(st);
	listed_release(listed, nruns);
	free(places);
	resultsdb_runs_free(runs, nruns);
	return ret;
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
		kvfile_release(&runs[i].provenance);
	}
	free(runs);
}

int resultsdb_load_provenance(struct resultsdb *db, struct resultsdb_run *runs, size_t n,
			      char **err)
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
}
