/*
 * What the parts of the HTML report share (report-html.h): the page being
 * written, escaped output, and the pictures. Every call into the plot
 * library (plot.h) is in report-html-plots.c and nowhere else, so that a
 * change of that library's API touches one small file.
 */
#ifndef HB_REPORT_HTML_INTERNAL_H
#define HB_REPORT_HTML_INTERNAL_H

#include "report/report-html.h"
#include "run/run.h"

#include <stdarg.h>

struct stall_table;

struct html_page {
	FILE *out;
	const struct report_row *rows;
	size_t n;
	const struct report_html_opts *o;
	const struct report_opts *ro;
	struct report_group *grp;       /* report_groups() of the rows */
	size_t n_grp;
	/* the text table's number columns (as report.c chose them), and
	 * whether it has the noise and why columns after them */
	enum metric_id cols[M_COUNT];
	size_t n_cols;
	bool noise_col, why_col;
	char *workdir;                  /* a temporary directory for the pictures */
	unsigned figures;               /* drawn so far: each picture's ids are fN- */
	struct strbuf *problems;
	size_t *n_problems;
};

/* html_escape() of a formatted string. */
void html_escapef(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Something that could not be made: said on the page (escaped) and added
 * to the problems. */
void html_problem(struct html_page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A note on the page (escaped), in a box of its own. */
void html_note(struct html_page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Opens a section with an anchor id (ours, not escaped) and a heading. */
void html_section(struct html_page *p, const char *id, const char *heading);
/* A metric's value as the table prints it (its decimals), "-" when unset. */
void html_metric(FILE *out, const struct metrics *m, enum metric_id id);
/* The rows' index of a group's counted runs (report_row_excluded() NULL),
 * into idx (room for p->n); how many. */
size_t html_group_runs(const struct html_page *p, const struct report_group *g, size_t *idx);

/* report-html-prov.c: the provenance and noise; the runs left out. */
void html_provenance(struct html_page *p);
void html_excluded(struct html_page *p);
/* report-html-runs.c: the groups' and the runs' sections. */
void html_groups(struct html_page *p);
void html_runs(struct html_page *p);
/* report-html-stalls.c: a run's stall table (analysis/stalls/stalltable.h):
 * nothing when the run has neither record. */
void html_stall_table(struct html_page *p, const struct stall_table *t);
/* report-html-verdicts.c: the verdicts between the groups of each game. */
void html_verdicts(struct html_page *p);

/* report-html-plots.c. Each draws a picture into p->workdir and writes it
 * to the page as <figure> with the SVG inline and caption (escaped) as
 * its <figcaption>; 0, or -errno with why in err (nothing written). The
 * runs are loaded, each with two frames at least: a run's frames over
 * time; a group's runs' percentile curves (one per run) and the histogram
 * of their window's frames pooled. group: the page's group (p->grp) they
 * are of, whose hue they are drawn in. */
/* A flip run's picture: its segments' fps by side over time and the
 * running estimate over its blocks (f from run_flip_analyse()). */
struct run_flip;
int html_figure_flip(struct html_page *p, const struct run *run, const struct run_flip *f,
		     const char *caption, struct strbuf *err);
int html_figure_frames(struct html_page *p, const struct run *run, unsigned group,
		       const char *caption, struct strbuf *err);
int html_figure_percentiles(struct html_page *p, const struct run *const *runs, size_t n,
			    unsigned group, const char *caption, struct strbuf *err);
int html_figure_histogram(struct html_page *p, const struct run *const *runs, size_t n,
			  unsigned group, const char *caption, struct strbuf *err);

#endif
