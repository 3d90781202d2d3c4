/*
 * The files `hitchbench plot matrix` and `plot trend` draw from, read into
 * plot.h's structs: a metric's matrix CSV (docs/formats.md) and the trend
 * TSV of `hitchbench regress --format tsv`. They come from outside (an
 * edited or truncated file is possible), so every line is checked and a
 * bad one is refused with "path:line: what is wrong".
 */
#ifndef HB_PLOT_INPUTS_H
#define HB_PLOT_INPUTS_H

#include "plot/plot.h"

/* The metric a file is about: its base name without ext ("results/matrix/
 * p99_ms.csv", ".csv" -> "p99_ms"). The caller frees it. */
char *plot_metric_of(const char *path, const char *ext);

/* Parses a matrix CSV (text buf, read from path, which names errors and
 * gives the metric: its base name without ".csv"). 0, or -EINVAL with
 * "path:line: what is wrong" in err. */
int plot_matrix_parse(const char *path, const char *buf, struct plot_matrix *m, struct strbuf *err);
void plot_matrix_release(struct plot_matrix *m);

/* Parses a trend TSV: an optional header line starting with "kernel",
 * '#' comments, then "kernel median min max n change p magnitude" rows
 * (tab- or blank-separated; change is 0/1, yes/no or true/false; p and
 * magnitude may be "-" or empty where change is 0). *pts (kernel strings
 * inside it) is freed with plot_trend_release(). 0, or -EINVAL with
 * "path:line: what is wrong" in err. */
int plot_trend_parse(const char *path, const char *buf, struct plot_trend_point **pts,
		     size_t *n, struct strbuf *err);
void plot_trend_release(struct plot_trend_point *pts, size_t n);

#endif
