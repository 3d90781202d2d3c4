/*
 * The lab's site (hitchbench site): the results database as static pages
 * anyone can open offline, plain HTML with inline SVG, no script and
 * nothing fetched from elsewhere:
 *
 *   index.html                  machines, games, the newest batches, and
 *                               every change point, newest found first
 *   trend/GAME/RUN_NAME/M.html  a metric across kernel versions, a panel
 *                               per machine: each point a batch's median
 *                               and spread, linked to its batch; change
 *                               points marked (E-divisive over the points)
 *   batch/BATCH.html            the batch's `report --format html` page
 *   batch/BATCH.ab.html         a batch of `hitchbench ab`: its verdict
 *   loose/MACHINE/KERNEL.html   the runs of no batch, by machine and kernel
 *   machine/MACHINE.html        what the machine is, what it ran, its noise
 *   site.state                  what was built from what (docs/formats.md)
 *
 * Built incrementally: a page is written only when what it shows
 * changed. Pages drawn from runs (batch pages) are skipped by a
 * fingerprint of their runs' rows before anything is drawn; the other
 * pages are made in memory and compared by their SHA-256. Names taken
 * from the database become file names only through site_file_name().
 * docs/site.md says what each page holds and how each number is computed.
 */
#ifndef HB_SITE_H
#define HB_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/metrics.h"

struct resultsdb;
struct strbuf;

struct site_opts {
	const char *out;                /* the site's directory (made when missing) */
	const enum metric_id *metrics;  /* the trend pages' metrics */
	size_t n_metrics;
	const char *generator;          /* "hitchbench VERSION": a new one draws every page again */
	const char *now_utc;            /* this build's time, ISO 8601 UTC */
	uint64_t seed;                  /* the change points' permutations */
	const char *tmpdir, *gnuplot;   /* for the batch pages' pictures (report-html.h) */
	/* The text of an ab batch's sequential test, read from its directory
	 * (what `compare --paired` prints), or NULL when it cannot be read
	 * there; a new string. Given by the command layer. */
	char *(*ab_text)(const char *batch_dir, void *arg);
	void *ab_arg;
};

struct site_stats {
	size_t pages, written, unchanged, removed;
	size_t change_points, new_change_points;
	size_t problems;                /* parts a page lacks (said on the page and in problems) */
};

/* Builds or refreshes the site. One build at a time per directory (a lock
 * file in it, waited for). What a page could not hold (a picture, a run
 * directory elsewhere) is said on the page and, one line each, in
 * problems. 0, or -errno with a message in err: the database could not be
 * read, a page could not be written, or site.state is damaged
 * (-EINVAL, "PATH:LINE: what is wrong"; nothing is written then). */
int site_build(struct resultsdb *db, const struct site_opts *o, struct site_stats *stats,
	       struct strbuf *problems, struct strbuf *err);

/* A name from the database as one file name, which is also a URL path
 * segment with nothing to escape: bytes A-Z a-z 0-9 . - _ are kept (a
 * leading '.' is not), every other byte is ~XX (lowercase hex), so that
 * two names never give one file name; an empty name is "~", and one longer
 * than 120 bytes keeps its first 96 (never half a ~XX) and ~~ and 16 hex
 * digits of its SHA-256. A new string. (Exported for the unit tests.) */
char *site_file_name(const char *name);

#endif
