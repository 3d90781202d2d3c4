/*
 * The queries of resultsdb-query.h: compare and regress read one metric of
 * the runs that count, and nothing else.
 */
#include "resultsdb-internal.h"
#include "resultsdb-query.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char values_sql[] =
	"SELECT m.value, r.run_uuid, r.batch_uuid, r.boot_id, r.kernel_release, r.started_utc"
	" FROM runs r JOIN metrics m ON m.run_id = r.id AND m.name = ?3"
	" WHERE r.game = ?1 AND COALESCE(r.run_name, r.variant) = ?2"
	" AND (?4 IS NULL OR r.batch_uuid = ?4)"
	" AND r.status = 'ok' AND COALESCE(r.invalid, 0) = 0"
	" ORDER BY r.started_utc, r.name";

int resultsdb_metric_values(struct resultsdb *db, const struct resultsdb_query *q,
			    struct resultsdb_value **out, size_t *n, char **err)
{
	sqlite3 *sql = resultsdb_sqlite(db);
	struct resultsdb_value *v = NULL;
	size_t nv = 0, alloc = 0;
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(sql, values_sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, q->game, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 2, q->run_name, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 3, q->metric, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 4, q->batch, -1, SQLITE_STATIC);
	if (rc != SQLITE_OK) {
		ret = resultsdb_fail(db, rc, err, "cannot read metric values from");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct resultsdb_value *r;

		if (nv == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		r = &v[nv++];
		r->value = sqlite3_column_double(st, 0);
		r->run_id = resultsdb_column_strdup(st, 1);
		r->batch = resultsdb_column_strdup(st, 2);
		r->boot_id = resultsdb_column_strdup(st, 3);
		r->kernel_release = resultsdb_column_strdup(st, 4);
		r->started_utc = resultsdb_column_strdup(st, 5);
	}
	if (rc != SQLITE_DONE) {
		ret = resultsdb_fail(db, rc, err, "cannot read metric values from");
		goto out;
	}
	*out = v;
	*n = nv;
	v = NULL;
	nv = 0;
out:
	sqlite3_finalize(st);
	resultsdb_values_free(v, nv);
	return ret;
}

void resultsdb_values_free(struct resultsdb_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].run_id);
		free(v[i].batch);
		free(v[i].boot_id);
		free(v[i].kernel_release);
		free(v[i].started_utc);
	}
	free(v);
}
