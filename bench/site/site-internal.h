/*
 * What the site's files share (site.h is the API): the model made from the
 * database once per build, the state of the previous build, and the page
 * writer that keeps a page whose content did not change.
 *   site.c        the build: lock, state, model, pages, what is left over
 *   site-state.c  site.state read and written
 *   site-model.c  runs into machines, batches, series and their points;
 *                 the change points
 *   site-html.c   the pages' shared head, links, and the trend's SVG
 *   site-pages.c  index, trend, machine and verdict pages
 *   site-batch.c  batch pages (the HTML report of the batch's runs)
 */
#ifndef HB_SITE_INTERNAL_H
#define HB_SITE_INTERNAL_H

#include "site/site.h"
#include "db/resultsdb-site.h"
#include "stats/changepoint.h"
#include "base/util.h"

#include <stdio.h>

/* The noise metrics every machine page draws, after the trend metrics in
 * the values read. */
#define SITE_NOISE_METRICS 2

/* A change point of one machine's series, as found and as kept in
 * site.state between builds. */
struct site_change {
	char *page;                 /* the trend page (relative path) */
	char *machine;              /* the machine's key */
	char *label;                /* the machine as shown */
	char *game, *run_name, *metric;
	char *kernel_before, *kernel_after;
	char *batch_after;          /* the first batch after the change (its page) */
	char *found_utc;            /* the build that first found it */
	double percent, lo, hi;     /* size and its 95% interval, % of the median before */
	double p;                   /* the permutation test's p */
	double before, after;       /* the medians either side */
	bool is_new;                /* found by this build */
};

/* A page of the previous build: its path and what it was built from. */
struct site_page_state {
	char *path;
	char *fingerprint;
};

struct site_state {
	char *generator;            /* the program that built it */
	char *built_utc;
	struct site_page_state *pages;
	size_t n_pages;
	struct site_change *changes;
	size_t n_changes;
};

void site_state_init(struct site_state *s);
void site_state_release(struct site_state *s);
/* Reads path into s; a missing file is an empty state. 0, or -errno with a
 * message in err (-EINVAL: "PATH:LINE: what is wrong"). */
int site_state_read(const char *path, struct site_state *s, struct strbuf *err);
/* Writes s to path, atomically. 0 or -errno. */
int site_state_write(const char *path, const struct site_state *s);
/* site_state_read()'s and site_state_write()'s halves: text[0..len) (NUL
 * after it; split in place) named path in messages, and s as text (a new
 * string). Exported for the fuzz target tests/fuzz/fuzz-sitestate.c. */
int site_state_parse(char *text, size_t len, const char *path, struct site_state *s, struct strbuf *err);
char *site_state_format(const struct site_state *s);
/* The previous build's fingerprint of page, or NULL. */
const char *site_state_page(const struct site_state *s, const char *path);
void site_state_add_page(struct site_state *s, const char *path, const char *fingerprint);
void site_change_release(struct site_change *c);

/* One point of a trend: the counted runs of one batch (or of no batch on
 * one kernel) of a game's run name on one machine. */
struct site_point {
	const char *batch;          /* its batch, NULL: the loose runs of kernel */
	const char *kernel;
	const char *started;        /* its first run's start */
	const char *href_from_root; /* its page, from the site's root */
	size_t *runs;               /* indexes into model.runs */
	size_t n_runs;
};

/* A game's run name on one machine: its points in kernel order. */
struct site_series {
	const char *game, *run_name, *machine;  /* machine: its key */
	struct site_point *points;
	size_t n_points;
	size_t without_kernel;      /* counted runs that do not say their kernel */
};

struct site_machine {
	char *key;                  /* machine id, else host name, else "(unknown)" */
	char *label;                /* host name (and the id's first 8), as shown */
	char *href_from_root;       /* machine/NAME.html */
	size_t shown;               /* its place where machines are listed: by label */
	size_t runs, counted, batches;
	char **kernels;             /* in version order */
	size_t n_kernels;
};

struct site_batch {
	struct resultsdb_site_batch *b;   /* NULL: the loose runs of a machine and kernel */
	char *machine;              /* key */
	char *kernel;
	char *href_from_root;       /* batch/NAME.html or loose/MACHINE/KERNEL.html */
	char *ab_href_from_root;    /* batch/NAME.ab.html for a batch of hitchbench ab, else NULL */
	size_t *runs;               /* every run of it, counted or not */
	size_t n_runs;
	const char *started;
};

struct site_model {
	const struct site_opts *o;
	const char **metric_names; /* the trend metrics, then the noise metrics */
	size_t n_values;
	struct resultsdb_site_run *runs;
	size_t n_runs;
	struct resultsdb_site_batch *db_batches;
	size_t n_db_batches;
	struct resultsdb_site_machine *db_machines;
	size_t n_db_machines;
	struct site_machine *machines;  /* by key */
	size_t n_machines;
	struct site_machine **shown;    /* the machines as listed: by label */
	struct site_batch *batches;     /* real batches, then loose groups */
	size_t n_batches;
	struct site_series *series;     /* by game, run name, machine */
	size_t n_series;
	size_t *slots;                  /* the points' runs (site_point.runs point here) */
};

/* Reads the database into m. 0 or -errno with a message in err. */
int site_model_load(struct site_model *m, struct resultsdb *db, const struct site_opts *o,
		    struct strbuf *err);
void site_model_release(struct site_model *m);
const struct site_machine *site_model_machine(const struct site_model *m, const char *key);
/* The trend page of a game's run name and metric, from the root. A new string. */
char *site_trend_href(const char *game, const char *run_name, const char *metric);

/* A point's statistics for value v (an index into metric_names): median,
 * min, max of its counted runs with the value; n 0 when none has it. */
struct site_point_stats {
	double median, min, max;
	size_t n;
};
/* Each point's of series s, for value v: a new array of s->n_points,
 * made once for all that a trend page draws and fingerprints. */
struct site_point_stats *site_series_stats(const struct site_model *m, const struct site_series *s, size_t v);

/* The change points of one series (its points' statistics ps, of value
 * v): E-divisive over the points' medians, splits only between kernels.
 * Appended to *out (*n of them), found_utc and is_new left for the
 * caller. 0 or -errno. */
int site_series_changes(const struct site_model *m, const struct site_series *s,
			const struct site_point_stats *ps, size_t v, const char *page,
			struct site_change **out, size_t *n);

/* The build in progress. */
struct site_build {
	const struct site_opts *o;
	struct resultsdb *db;
	struct site_model m;
	struct site_state old, now;
	struct site_stats *stats;
	struct strbuf *problems;
	int dirfd;
};

/* Keeps the page at path (relative) with content: written when its SHA-256
 * differs from the previous build's, or when the file is gone. 0 or -errno
 * with a message in err. */
int site_put_page(struct site_build *b, const char *path, const char *content, size_t len,
		  struct strbuf *err);
/* Whether the page at path was built from fingerprint by the previous
 * build and is still there: then it is kept as it is (and counted). */
bool site_page_fresh(struct site_build *b, const char *path, const char *fingerprint);
/* Writes the page at path, made from fingerprint, with content. */
int site_put_page_fp(struct site_build *b, const char *path, const char *fingerprint,
		     const char *content, size_t len, struct strbuf *err);

/* HTML of the pages (site-html.c). A page opens with site_html_head()
 * (title, the style, the way back to the index from depth) and ends with
 * site_html_foot(). */
void site_html_head(FILE *f, const char *title, const char *root, const struct site_opts *o);
void site_html_foot(FILE *f, const struct site_opts *o);
/* The relative path from a page at depth d (0: the root) to the root: "",
 * "../", "../../", ... (static storage). */
const char *site_root(int depth);
/* A number as the page shows it. */
void site_html_number(FILE *f, double v, int decimals);

/* One machine's series of metric v drawn as an SVG trend: points with
 * their spread, each a link to its batch; kernel boundaries; change
 * points changes[0..n) (of this series). root: the way to the site's root. */
void site_svg_trend(FILE *f, const struct site_model *m, const struct site_series *s,
		    const struct site_point_stats *ps, size_t v, const struct site_change *changes,
		    size_t n_changes, const char *root);
/* A machine's noise (values v0 and v1, the noise metrics) per batch over
 * time, each point a link to its batch. */
void site_svg_noise(FILE *f, const struct site_model *m, const struct site_machine *mach,
		    const char *root);

/* The pages (site-pages.c, site-batch.c). 0 or -errno with a message in err. */
int site_write_trends(struct site_build *b, struct site_change **changes, size_t *n_changes,
		      struct strbuf *err);
int site_write_index(struct site_build *b, const struct site_change *changes, size_t n_changes,
		     struct strbuf *err);
int site_write_machines(struct site_build *b, struct strbuf *err);
int site_write_batches(struct site_build *b, struct strbuf *err);

#endif
