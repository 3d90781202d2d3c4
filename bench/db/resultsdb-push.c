/*
 * Sending a machine's local results database to the lab's (hitchbench db
 * push --to URL; hitchbench run --db URL after each run): every run the
 * local database has not sent to that lab yet, with its metrics, its
 * provenance and its batch, copied row for row.
 *
 * Each run is one transaction of the lab's database keyed by its run_uuid
 * (an upsert, as an import is), tried again on a passing failure; only
 * once it has committed is the run written down as sent (the local table
 * pushes). A push cut anywhere (the lab's database stopped, the network
 * gone, Ctrl-C) leaves every run either sent and recorded, sent and not
 * recorded (sent again next time: the upsert makes that harmless), or not
 * sent: nothing is lost and nothing is doubled.
 */
#include "db/resultsdb-internal.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum col_type { COL_TEXT, COL_INT, COL_REAL };

struct col {
	const char *name;
	enum col_type type;
};

/* The runs and batches columns a push copies: all but the local row id
 * and imported_utc (the lab's own: when it got the run). */
static const struct col run_cols[] = {
	{ "run_uuid", COL_TEXT }, { "name", COL_TEXT }, { "path", COL_TEXT }, { "format", COL_INT },
	{ "game", COL_TEXT }, { "variant", COL_TEXT }, { "recipe", COL_TEXT },
	{ "recipe_sha256", COL_TEXT }, { "status", COL_TEXT }, { "started_utc", COL_TEXT },
	{ "ended_utc", COL_TEXT }, { "kernel_release", COL_TEXT }, { "kernel_version", COL_TEXT },
	{ "boot_id", COL_TEXT }, { "host", COL_TEXT }, { "harness_version", COL_TEXT },
	{ "stall_ms", COL_REAL }, { "percentile", COL_TEXT }, { "batch_uuid", COL_TEXT },
	{ "batch_round", COL_INT }, { "batch_position", COL_INT }, { "run_name", COL_TEXT },
	{ "switches", COL_TEXT }, { "invalid", COL_INT }, { "check_failed", COL_TEXT },
	{ "machine_id", COL_TEXT }, { "cpu_model", COL_TEXT }, { "gpu", COL_TEXT }, { "api", COL_TEXT },
};

static const struct col batch_cols[] = {
	{ "batch_uuid", COL_TEXT }, { "path", COL_TEXT }, { "game", COL_TEXT },
	{ "variants", COL_TEXT }, { "tokens", COL_TEXT }, { "rounds", COL_INT },
	{ "order_kind", COL_TEXT }, { "seed", COL_TEXT }, { "status", COL_TEXT },
	{ "started_utc", COL_TEXT }, { "ended_utc", COL_TEXT }, { "boot_id", COL_TEXT },
	{ "host", COL_TEXT }, { "kernel_release", COL_TEXT }, { "kernel_version", COL_TEXT },
	{ "harness_version", COL_TEXT }, { "harness_command", COL_TEXT }, { "machine_id", COL_TEXT },
};

/* "SELECT a, b, ... FROM table WHERE key = ?1" */
static char *select_sql(const char *table, const struct col *cols, size_t n, const char *key)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "SELECT ");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", cols[i].name);
	strbuf_addf(&sb, " FROM %s WHERE %s = ?1", table, key);
	return strbuf_detach(&sb);
}

/* The upsert of a row keyed by cols[0], imported_utc the last parameter,
 * the row's id returned. */
static char *upsert_sql(const char *table, const struct col *cols, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "INSERT INTO %s (", table);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s, ", cols[i].name);
	strbuf_addstr(&sb, "imported_utc) VALUES (");
	for (size_t i = 0; i <= n; i++)
		strbuf_addf(&sb, "%s?%zu", i ? ", " : "", i + 1);
	strbuf_addf(&sb, ") ON CONFLICT (%s) DO UPDATE SET ", cols[0].name);
	for (size_t i = 1; i < n; i++)
		strbuf_addf(&sb, "%s%s = excluded.%s", i > 1 ? ", " : "", cols[i].name, cols[i].name);
	strbuf_addstr(&sb, " RETURNING id");
	return strbuf_detach(&sb);
}

/* A source row's values, as text (NULL: SQL NULL), typed by cols. */
struct row {
	char **v;
	size_t n;
};

static void row_release(struct row *r)
{
	for (size_t i = 0; r->v && i < r->n; i++)
		free(r->v[i]);
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

static int row_read(struct resultsdb *src, const char *table, const struct col *cols, size_t n,
		    const char *key, const char *value, struct row *r, struct strbuf *err)
{
	static const char what[] = "cannot read what to push from";
	char *sql = select_sql(table, cols, n, key);
	struct sqldb_stmt *st = NULL;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(src), sql, &st, err, what);
	if (ret == 0) {
		sqldb_bind_text(st, 1, value);
		ret = sqldb_step(st, err, what);
	}
	if (ret == 0)
		ret = -ENOENT;  /* gone since it was listed */
	if (ret > 0) {
		r->n = n;
		r->v = zalloc(n * sizeof(*r->v));
		for (size_t i = 0; i < n; i++)
			r->v[i] = sqldb_column_strdup(st, (int)i);
		ret = 0;
	}
	sqldb_finalize(st);
	free(sql);
	return ret;
}

static void bind_typed(struct sqldb_stmt *st, int i, const char *v, enum col_type type)
{
	int64_t n;
	double d;

	if (!v)
		sqldb_bind_null(st, i);
	else if (type == COL_INT && safe_atoi64(v, &n) == 0)
		sqldb_bind_int64(st, i, n);
	else if (type == COL_REAL && safe_atod(v, &d) == 0)
		sqldb_bind_double(st, i, d);
	else
		sqldb_bind_text(st, i, v);
}

/* Upserts the row into dst; *id its row id there. */
static int row_write(struct resultsdb *dst, const char *table, const struct col *cols,
		     const struct row *r, const char *now, int64_t *id, struct strbuf *err,
		     const char *what)
{
	char *sql = upsert_sql(table, cols, r->n);
	struct sqldb_stmt *st = NULL;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(dst), sql, &st, err, what);
	if (ret == 0) {
		for (size_t i = 0; i < r->n; i++)
			bind_typed(st, (int)i + 1, r->v[i], cols[i].type);
		sqldb_bind_text(st, (int)r->n + 1, now);
		ret = sqldb_step(st, err, what);
		if (ret == 0)
			ret = -EIO;     /* RETURNING gave no row */
	}
	if (ret > 0) {
		*id = sqldb_column_int64(st, 0);
		ret = 0;
	}
	sqldb_finalize(st);
	free(sql);
	return ret;
}

/* A run's child rows (metrics: name, value; provenance: seq, key, value)
 * read whole from src, for one run. */
struct children {
	struct row *rows;
	size_t n;
};

static void children_release(struct children *c)
{
	for (size_t i = 0; i < c->n; i++)
		row_release(&c->rows[i]);
	free(c->rows);
	c->rows = NULL;
	c->n = 0;
}

/* Every row of sql (ncols columns, as text) into c; its one parameter the
 * text key, or the row id when key is NULL. */
static int children_read(struct resultsdb *src, const char *sql, int ncols, const char *key,
			 int64_t run_id, struct children *c, struct strbuf *err)
{
	static const char what[] = "cannot read what to push from";
	struct sqldb_stmt *st = NULL;
	size_t alloc = 0;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(src), sql, &st, err, what);
	if (ret < 0)
		return ret;
	if (key)
		sqldb_bind_text(st, 1, key);
	else
		sqldb_bind_int64(st, 1, run_id);
	while ((ret = sqldb_step(st, err, what)) > 0) {
		struct row *r;

		if (c->n == alloc) {
			alloc = alloc ? alloc * 2 : 32;
			c->rows = xrealloc(c->rows, alloc * sizeof(*c->rows));
		}
		r = &c->rows[c->n++];
		r->n = (size_t)ncols;
		r->v = zalloc((size_t)ncols * sizeof(*r->v));
		for (int k = 0; k < ncols; k++)
			r->v[k] = sqldb_column_strdup(st, k);
	}
	sqldb_finalize(st);
	return ret;
}

/* Replaces the run's rows of a child table in dst with c's. */
static int children_write(struct resultsdb *dst, const char *table, const char *insert_sql,
			  const enum col_type *types, int64_t id, const struct children *c,
			  struct strbuf *err, const char *what)
{
	char *del_sql = xasprintf("DELETE FROM %s WHERE run_id = ?1", table);
	struct sqldb_stmt *st = NULL;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(dst), del_sql, &st, err, what);
	if (ret == 0) {
		sqldb_bind_int64(st, 1, id);
		ret = sqldb_step_done(st, err, what);
	}
	sqldb_finalize(st);
	st = NULL;
	if (ret == 0)
		ret = sqldb_prepare(resultsdb_sqldb(dst), insert_sql, &st, err, what);
	for (size_t i = 0; ret == 0 && i < c->n; i++) {
		sqldb_bind_int64(st, 1, id);
		for (size_t k = 0; k < c->rows[i].n; k++)
			bind_typed(st, (int)k + 2, c->rows[i].v[k], types[k]);
		ret = sqldb_step_done(st, err, what);
	}
	sqldb_finalize(st);
	free(del_sql);
	return ret;
}

/* One run, as read from the local database. */
struct push_run {
	struct row run, batch;          /* batch.n 0: the run has none */
	struct children metrics, provenance;
	char now[32];
	const char *what;
};

static int push_run_body(struct resultsdb *dst, void *arg, struct strbuf *err)
{
	static const enum col_type metric_types[] = { COL_TEXT, COL_REAL };
	static const enum col_type prov_types[] = { COL_INT, COL_TEXT, COL_TEXT };
	struct push_run *p = arg;
	int64_t id, batch_id;
	int ret = 0;

	/* the batch first: the run's batch_uuid refers to it */
	if (p->batch.n)
		ret = row_write(dst, "batches", batch_cols, &p->batch, p->now, &batch_id, err, p->what);
	if (ret == 0)
		ret = row_write(dst, "runs", run_cols, &p->run, p->now, &id, err, p->what);
	if (ret == 0)
		ret = children_write(dst, "metrics", "INSERT INTO metrics (run_id, name, value)"
				     " VALUES (?1, ?2, ?3)", metric_types, id, &p->metrics, err, p->what);
	if (ret == 0)
		ret = children_write(dst, "provenance", "INSERT INTO provenance (run_id, seq, key, value)"
				     " VALUES (?1, ?2, ?3, ?4)", prov_types, id, &p->provenance, err,
				     p->what);
	return ret;
}

static void push_run_release(struct push_run *p)
{
	row_release(&p->run);
	row_release(&p->batch);
	children_release(&p->metrics);
	children_release(&p->provenance);
}

/* Reads run id (uuid) of src into p. */
static int push_run_read(struct resultsdb *src, int64_t id, const char *uuid, struct push_run *p,
			 struct strbuf *err)
{
	static const size_t batch_col = 18;     /* run_cols[]'s batch_uuid */
	int ret;

	ret = row_read(src, "runs", run_cols, ARRAY_SIZE(run_cols), "run_uuid", uuid, &p->run, err);
	if (ret == 0 && p->run.v[batch_col]) {
		/* its own message: one an -ENOENT passed over leaves none in err */
		struct strbuf e = STRBUF_INIT;

		ret = row_read(src, "batches", batch_cols, ARRAY_SIZE(batch_cols), "batch_uuid",
			       p->run.v[batch_col], &p->batch, &e);
		/* a run's batch row is made with it: missing only if deleted */
		if (ret == -ENOENT)
			ret = 0;
		else if (ret < 0 && e.len)
			strbuf_add(err, e.buf, e.len);
		strbuf_release(&e);
	}
	if (ret == 0)
		ret = children_read(src, "SELECT name, value FROM metrics WHERE run_id = ?1 ORDER BY name",
				    2, NULL, id, &p->metrics, err);
	if (ret == 0)
		ret = children_read(src, "SELECT seq, key, value FROM provenance WHERE run_id = ?1"
				    " ORDER BY seq", 3, NULL, id, &p->provenance, err);
	return ret;
}

static int mark_pushed(struct resultsdb *src, void *arg, struct strbuf *err)
{
	const char *const *v = arg;
	struct sqldb_stmt *st = NULL;
	int ret;

	ret = sqldb_prepare(resultsdb_sqldb(src), "INSERT INTO pushes (lab, item, pushed_utc)"
			    " VALUES (?1, ?2, ?3) ON CONFLICT (lab, item) DO UPDATE SET"
			    " pushed_utc = excluded.pushed_utc", &st, err, "cannot record a push in");
	if (ret == 0) {
		for (int i = 0; i < 3; i++)
			sqldb_bind_text(st, i + 1, v[i]);
		ret = sqldb_step_done(st, err, "cannot record a push in");
	}
	sqldb_finalize(st);
	return ret;
}

/* A batch as pushes records it: what it was when sent. */
#define BATCH_ITEM "'batch:' || b.batch_uuid || ':' || COALESCE(b.status, '') || ':' ||" \
		   " COALESCE(b.ended_utc, '')"

static const char unsent_runs_sql[] =
	"SELECT r.id, r.run_uuid FROM runs AS r WHERE NOT EXISTS"
	" (SELECT 1 FROM pushes AS p WHERE p.lab = ?1 AND p.item = r.run_uuid) ORDER BY r.id";
/* the batches with runs, as they are now, not sent so */
static const char unsent_batches_sql[] =
	"SELECT b.id, b.batch_uuid, " BATCH_ITEM " FROM batches AS b WHERE b.path IS NOT NULL"
	" AND NOT EXISTS (SELECT 1 FROM pushes AS p WHERE p.lab = ?1 AND p.item = " BATCH_ITEM ")"
	" ORDER BY b.id";

struct push_batch {
	struct row batch;
	char now[32];
};

static int push_batch_body(struct resultsdb *dst, void *arg, struct strbuf *err)
{
	struct push_batch *p = arg;
	int64_t id;

	return row_write(dst, "batches", batch_cols, &p->batch, p->now, &id, err, "cannot push a batch to");
}

/* The batches that changed since they were sent (or were never sent):
 * after the runs, so that a batch that ended is sent as it ended. */
static int push_batches(struct resultsdb *src, struct resultsdb *dst, struct resultsdb_push_stats *stats,
			struct strbuf *err)
{
	const char *lab = resultsdb_name(dst);
	struct children todo = { NULL, 0 };
	int ret;

	/* each row: id, batch_uuid, the item to record */
	ret = children_read(src, unsent_batches_sql, 3, lab, 0, &todo, err);
	for (size_t i = 0; ret == 0 && i < todo.n; i++) {
		struct push_batch p = { .batch = { NULL, 0 } };
		const char *mark[3] = { lab, todo.rows[i].v[2], p.now };

		utc_iso8601(time(NULL), p.now, sizeof(p.now));
		ret = row_read(src, "batches", batch_cols, ARRAY_SIZE(batch_cols), "batch_uuid",
			       todo.rows[i].v[1], &p.batch, err);
		if (ret == 0)
			ret = resultsdb_transaction(dst, push_batch_body, &p, err, "cannot push a batch to");
		if (ret == 0)
			ret = resultsdb_transaction(src, mark_pushed, mark, err, "cannot record a push in");
		if (ret == 0)
			stats->batches++;
		row_release(&p.batch);
	}
	children_release(&todo);
	return ret;
}

int resultsdb_push(struct resultsdb *src, struct resultsdb *dst, struct resultsdb_push_stats *stats,
		   struct strbuf *err)
{
	const char *lab = resultsdb_name(dst);
	struct children todo = { NULL, 0 };
	int ret;

	memset(stats, 0, sizeof(*stats));
	/* each row: id, run_uuid */
	ret = children_read(src, unsent_runs_sql, 2, lab, 0, &todo, err);
	stats->pending = todo.n;
	for (size_t i = 0; ret == 0 && i < todo.n; i++) {
		struct push_run p = { .what = "cannot push a run to" };
		const char *uuid = todo.rows[i].v[1];
		const char *mark[3] = { lab, uuid, p.now };
		int64_t id = 0;

		utc_iso8601(time(NULL), p.now, sizeof(p.now));
		if (!todo.rows[i].v[0] || safe_atoi64(todo.rows[i].v[0], &id) < 0)
			ret = -EIO;
		else
			ret = push_run_read(src, id, uuid, &p, err);
		if (ret == 0)
			ret = resultsdb_transaction(dst, push_run_body, &p, err, p.what);
		if (ret == 0)
			ret = resultsdb_transaction(src, mark_pushed, mark, err, "cannot record a push in");
		if (ret == 0)
			stats->sent++;
		push_run_release(&p);
	}
	children_release(&todo);
	if (ret == 0)
		ret = push_batches(src, dst, stats, err);
	return ret;
}
