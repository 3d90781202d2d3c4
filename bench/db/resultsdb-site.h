/*
 * What the lab's site (bench/site/site.h) reads of the results database,
 * all of it in a few whole-table queries rather than a query a page: a
 * lab's database holds 100,000 runs and more, and a refresh after each
 * job must take seconds (docs/site.md has the figures). Beside
 * resultsdb-query.h, which answers one question at a time.
 */
#ifndef HB_RESULTSDB_SITE_H
#define HB_RESULTSDB_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/resultsdb.h"

/* A batch row (NULL: batch.txt did not say; a batch named by runs but
 * not imported itself has its uuid alone). */
struct resultsdb_site_batch {
	char *uuid, *path, *game, *variants, *tokens, *status, *started_utc, *ended_utc;
	char *host, *machine_id, *kernel_release, *harness_command;
	int64_t rounds;             /* -1: not said */
};

/* A run as the site places it. */
struct resultsdb_site_run {
	int64_t id;                 /* the row id: runs are listed in its order */
	char *run_uuid, *batch, *host, *machine_id, *game, *run_name, *kernel_release, *started_utc;
	/* it counts: status "ok" and not marked invalid (as compare and
	 * regress take runs, resultsdb-query.h) */
	bool counts;
	/* Everything the run's report row shows, as one line of text (its
	 * columns, how many metric and provenance rows it has and the sum of
	 * its metric values): two readings of an unchanged run give the same
	 * text, so that a page built from runs is made again only when one of
	 * them changed. */
	char *fingerprint;
	/* the metrics asked for, in the order asked; have[i] false: no row */
	double *v;
	bool *have;
};

/* Every batch, by started_utc (none first), then uuid; batches that runs
 * name but that were never imported themselves come too (their uuid
 * alone). *out and *n written only on success. 0 or -errno with a
 * message in err. */
int resultsdb_site_batches(struct resultsdb *db, struct resultsdb_site_batch **out, size_t *n,
			   struct strbuf *err);
void resultsdb_site_batches_free(struct resultsdb_site_batch *b, size_t n);

/* Every run, by row id, with the values of metrics[0..n_metrics) (names
 * as metric_defs[]). *out and *n written only on success. 0 or -errno with
 * a message in err. */
int resultsdb_site_runs(struct resultsdb *db, const char *const *metrics, size_t n_metrics,
			struct resultsdb_site_run **out, size_t *n, struct strbuf *err);
void resultsdb_site_runs_free(struct resultsdb_site_run *r, size_t n);

/* What a machine is, from its runs: one row per host, machine id, CPU
 * and GPU seen together, with the first and last start and the count. */
struct resultsdb_site_machine {
	char *host, *machine_id, *cpu_model, *gpu;
	char *first_utc, *last_utc;
	int64_t runs;
};
int resultsdb_site_machines(struct resultsdb *db, struct resultsdb_site_machine **out, size_t *n,
			    struct strbuf *err);
void resultsdb_site_machines_free(struct resultsdb_site_machine *m, size_t n);

/* The runs of one batch, as resultsdb_list() gives runs (the report's
 * rows) with their provenance (as resultsdb_load_provenance() fills it,
 * read in one query rather than one a run), or with batch NULL the runs
 * of no batch on the machine (a host name or machine id) and kernel: the
 * site's page for runs made outside batches. *out and *n written only on
 * success. 0 or -errno with a message in err. */
int resultsdb_list_batch(struct resultsdb *db, const char *batch, const char *machine,
			 const char *kernel, struct resultsdb_run **out, size_t *n, struct strbuf *err);

#endif
