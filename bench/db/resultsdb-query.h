/*
 * Read-only queries over the results database for the commands that
 * decide (compare, regress): one metric's values of the valid runs of a
 * game's run name. Beside resultsdb.h, which keeps importing and listing.
 */
#ifndef HB_RESULTSDB_QUERY_H
#define HB_RESULTSDB_QUERY_H

#include <stddef.h>

#include "db/resultsdb.h"

struct resultsdb_query {
	const char *game;
	const char *run_name;     /* variant@switches, or the variant alone for runs without switches */
	const char *metric;       /* metric_defs[].name */
	const char *batch;        /* batch_uuid, or NULL for any batch (and none) */
	const char *machine;      /* a host name or machine id, or NULL for any machine */
};

struct resultsdb_value {
	double value;
	char *run_id;             /* bench.txt run_id */
	/* NULL when bench.txt did not say */
	char *batch, *boot_id, *kernel_release, *started_utc;
	char *host, *machine_id;  /* schema 4 */
};
/* A machine as comparisons tell machines apart: its machine id, else its
 * host name, else "(unknown)" (static storage, or one of the two). */
const char *resultsdb_machine_key(const char *machine_id, const char *host);

/* How many machines the values come from (resultsdb_machine_key(): values
 * saying neither count as one unknown machine), and the first two told
 * apart in *a and *b (pointing into v). */
size_t resultsdb_values_machines(const struct resultsdb_value *v, size_t n, const char **a,
				 const char **b);

/* The metric's values of the runs that count: status "ok" (not "invalid":
 * its data passed the checks of analysis/run/run-check.c) and not marked
 * invalid (invalid NULL or 0), of the game whose run_name (the variant for
 * runs made before run names existed) is q->run_name, in start order.
 * Runs without a row for the metric are left out. *out (free with
 * resultsdb_values_free) and *n written only on success; none gives NULL
 * and 0. 0 or -errno with a message in err (see resultsdb.h). */
int resultsdb_metric_values(struct resultsdb *db, const struct resultsdb_query *q,
			    struct resultsdb_value **out, size_t *n, struct strbuf *err);
/* resultsdb_values_free(NULL, 0) is safe. */
void resultsdb_values_free(struct resultsdb_value *v, size_t n);

/* A run of the same game and run name (and batch) that does not count. */
struct resultsdb_excluded {
	char *name;               /* the run directory's name */
	/* "invalid: WHY" (a failed integrity check, schema 3), the status of a
	 * run that failed, or "invalid=1 (REASON)" (marked by an observer) */
	char *why;
};
/* The runs resultsdb_metric_values() leaves out for not counting (q->metric
 * is not looked at), in start order, so that a command can say which and
 * why. *out (free with resultsdb_excluded_free) and *n written only on
 * success. 0 or -errno with a message in err. */
int resultsdb_excluded_runs(struct resultsdb *db, const struct resultsdb_query *q,
			    struct resultsdb_excluded **out, size_t *n, struct strbuf *err);
void resultsdb_excluded_free(struct resultsdb_excluded *v, size_t n);

#endif
