/*
 * The queries of resultsdb-query.h: compare and regress read one metric of
 * the runs that count, and the names of those that do not, with why.
 */
#include "db/resultsdb-internal.h"
#include "db/resultsdb-query.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Both queries take the same parameters: ?1 game, ?2 run name, ?3 metric,
 * ?4 batch (NULL: any). */
static const char values_sql[] =
	"SELECT m.value, r.run_uuid, r.batch_uuid, r.boot_id, r.kernel_release, r.started_utc,"
	" r.host, r.machine_id"
	" FROM runs r JOIN metrics m ON m.run_id = r.id AND m.name = ?3"
	" WHERE r.game = ?1 AND COALESCE(r.run_name, r.variant) = ?2"
	" AND (?4 IS NULL OR r.batch_uuid = ?4) AND " RESULTSDB_MACHINE_IS("?5")
	" AND r.status = 'ok' AND COALESCE(r.invalid, 0) = 0"
	" ORDER BY r.started_utc NULLS FIRST, r.name";

/* The complement of values_sql's last condition (the metric aside), and
 * why in words. */
static const char excluded_sql[] =
	"SELECT r.name, CASE"
	" WHEN r.status = 'invalid' AND r.check_failed IS NOT NULL THEN 'invalid: ' || r.check_failed"
	" WHEN r.status != 'ok' THEN r.status"
	" ELSE 'invalid=1' || COALESCE(' (' || (SELECT p.value FROM provenance AS p"
	"   WHERE p.run_id = r.id AND p.key = 'invalid_reason' ORDER BY p.seq LIMIT 1) || ')', '')"
	" END"
	" FROM runs r"
	" WHERE r.game = ?1 AND COALESCE(r.run_name, r.variant) = ?2"
	" AND (?4 IS NULL OR r.batch_uuid = ?4) AND " RESULTSDB_MACHINE_IS("?5")
	" AND NOT (r.status = 'ok' AND COALESCE(r.invalid, 0) = 0)"
	" ORDER BY r.started_utc NULLS FIRST, r.name";

/* Runs sql with q's parameters, handing each row to add (which appends it
 * to what ctx collects). 0 or -errno with a message in err. */
static int query_rows(struct resultsdb *db, const char *sql, const struct resultsdb_query *q,
		      void (*add)(struct sqldb_stmt *st, void *ctx), void *ctx, struct strbuf *err)
{
	static const char what[] = "cannot read the runs of";
	const char *params[] = { q->game, q->run_name, q->metric, q->batch, q->machine };
	struct sqldb_stmt *st = NULL;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(db), sql, &st, err, what);
	if (ret < 0)
		return ret;
	for (int i = 0; i < (int)ARRAY_SIZE(params); i++)
		sqldb_bind_text(st, i + 1, params[i]);
	while ((ret = sqldb_step(st, err, what)) > 0)
		add(st, ctx);
	sqldb_finalize(st);
	return ret;
}

struct collect {
	void *v;
	size_t n, alloc, size;
};

static void *collect_next(struct collect *c)
{
	if (c->n == c->alloc) {
		c->alloc = c->alloc ? c->alloc * 2 : 16;
		c->v = xrealloc(c->v, c->alloc * c->size);
	}
	return (char *)c->v + c->n++ * c->size;
}

static void add_value(struct sqldb_stmt *st, void *ctx)
{
	struct resultsdb_value *r = collect_next(ctx);

	r->value = sqldb_column_double(st, 0);
	r->run_id = sqldb_column_strdup(st, 1);
	r->batch = sqldb_column_strdup(st, 2);
	r->boot_id = sqldb_column_strdup(st, 3);
	r->kernel_release = sqldb_column_strdup(st, 4);
	r->started_utc = sqldb_column_strdup(st, 5);
	r->host = sqldb_column_strdup(st, 6);
	r->machine_id = sqldb_column_strdup(st, 7);
}

int resultsdb_metric_values(struct resultsdb *db, const struct resultsdb_query *q,
			    struct resultsdb_value **out, size_t *n, struct strbuf *err)
{
	struct collect c = { NULL, 0, 0, sizeof(struct resultsdb_value) };
	int ret = query_rows(db, values_sql, q, add_value, &c, err);

	if (ret < 0) {
		resultsdb_values_free(c.v, c.n);
		return ret;
	}
	*out = c.v;
	*n = c.n;
	return 0;
}

void resultsdb_values_free(struct resultsdb_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].run_id);
		free(v[i].batch);
		free(v[i].boot_id);
		free(v[i].kernel_release);
		free(v[i].started_utc);
		free(v[i].host);
		free(v[i].machine_id);
	}
	free(v);
}

static void add_excluded(struct sqldb_stmt *st, void *ctx)
{
	struct resultsdb_excluded *r = collect_next(ctx);

	r->name = sqldb_column_strdup(st, 0);
	r->why = sqldb_column_strdup(st, 1);
}

int resultsdb_excluded_runs(struct resultsdb *db, const struct resultsdb_query *q,
			    struct resultsdb_excluded **out, size_t *n, struct strbuf *err)
{
	struct collect c = { NULL, 0, 0, sizeof(struct resultsdb_excluded) };
	int ret = query_rows(db, excluded_sql, q, add_excluded, &c, err);

	if (ret < 0) {
		resultsdb_excluded_free(c.v, c.n);
		return ret;
	}
	*out = c.v;
	*n = c.n;
	return 0;
}

void resultsdb_excluded_free(struct resultsdb_excluded *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].why);
	}
	free(v);
}

const char *resultsdb_machine_key(const char *machine_id, const char *host)
{
	return machine_id ? machine_id : host ? host : "(unknown)";
}

size_t resultsdb_values_machines(const struct resultsdb_value *v, size_t n, const char **a,
				 const char **b)
{
	const char **seen = NULL;
	size_t count = 0;

	*a = *b = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *m = resultsdb_machine_key(v[i].machine_id, v[i].host);
		size_t k;

		for (k = 0; k < count && strcmp(seen[k], m) != 0; k++)
			;
		if (k < count)
			continue;
		seen = xrealloc(seen, (count + 1) * sizeof(*seen));
		seen[count] = m;
		if (count == 0)
			*a = v[i].host ? v[i].host : m;
		else if (count == 1)
			*b = v[i].host ? v[i].host : m;
		count++;
	}
	free(seen);
	return count;
}
