/*
 * The report as one self-contained HTML page (hitchbench report --format
 * html): the table with every definition under it, the provenance and
 * noise of the runs, per group (game and run name) its percentile curves
 * and a frame-time histogram, per run its frame times with stalls,
 * warm-up and reloads and, where it has a stall record or a wait record,
 * why it stalled, the verdicts between the groups of a game, and the runs
 * left out with why. Pictures are drawn by gnuplot (plot.h) into a
 * temporary directory and inlined as SVG; the page loads nothing (no
 * script, no font, no URL), so it opens offline. Everything read from
 * files is HTML-escaped.
 *
 * The numbers are report.c's (the table, its '#' notes), stalltable.h's
 * and stats.h's (stats_compare(), as `hitchbench compare` decides): this
 * family only lays them out. docs/report-html.md says what the page holds.
 */
#ifndef HB_REPORT_HTML_H
#define HB_REPORT_HTML_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"
#include "base/util.h"

/* A block of text the page shows as it is (escaped), under a title. */
struct report_html_text {
	const char *title;
	const char *text;
};

struct report_html_opts {
	const struct report_opts *report;  /* the table's options and how metrics are computed */
	const char *command;    /* the command line, shown in the heading (may be NULL) */
	const char *tmpdir;     /* where pictures are drawn; NULL: $TMPDIR, else /tmp */
	const char *gnuplot;    /* NULL: $HITCHBENCH_GNUPLOT, else "gnuplot" */
	/* The rows come from the results database: a run directory that is
	 * not there (moved, another machine's) is said on the page, and is no
	 * problem (the numbers are the database's). */
	bool from_db;
	/* The paired sequential tests of two-cell batches (bench's, as
	 * compare --paired prints them), shown with the verdicts. */
	const struct report_html_text *paired;
	size_t n_paired;
	/* A link above the heading (the lab's site: back to its index); NULL:
	 * none. */
	const char *back_href, *back_text;
};

/* Writes the page for rows[0..n) to out. What could not be made (a
 * picture gnuplot failed to draw, a run directory that does not load, a
 * stall record that does not read) is said on the page where it belongs
 * and, one line each, in problems; *n_problems counts them. Returns 0, or
 * -errno (of the stream, or of making the temporary directory). */
int report_html_write(FILE *out, const struct report_row *rows, size_t n,
		      const struct report_html_opts *opts, struct strbuf *problems,
		      size_t *n_problems);

/* The page's style sheet (CSS), which other pages made of the same parts
 * (the lab's site, bench/site/) share. */
extern const char report_html_style[];

/* Writes s to out with &, <, >, " and ' as entities and control
 * characters other than tab and newline as U+FFFD, so that text from a
 * file can neither make markup nor break the page. NULL writes "-". */
void html_escape(FILE *out, const char *s);

/* The SVG document svg (gnuplot's) as an element to put inside HTML: the
 * XML prolog, doctype and comments before <svg dropped, and every id
 * (and each reference to one: href="#x", url(#x)) prefixed with prefix,
 * so that pictures on one page do not take each other's definitions. A
 * new string, or NULL when svg holds no <svg ...> ... </svg> element. */
char *html_svg_inline(const char *svg, const char *prefix);

#endif
