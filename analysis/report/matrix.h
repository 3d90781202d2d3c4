/*
 * The matrix: how each game and run name (variant@switches) did in each
 * batch, or on each kernel, one table per metric, so a change across
 * batches or kernels shows along a row. Built from report rows (run
 * directories or the database) by hitchbench matrix, which writes one CSV
 * per metric (results/matrix/<metric>.csv); the plots read those files.
 *
 * CSV layout (one file per metric; RFC 4180 quoting, "\n" line ends):
 *   game,run,<col>.median,<col>.min,<col>.max,<col>.n,...
 * one 4-column group per column (batch id, or kernel release), one line per
 * (game, run name) sorted by game then run name. A cell is over the
 * counted runs (report.h: valid, plus disturbed with include_interfered) of
 * that row in that column that have the metric: median (the mean of the two
 * middle values for an even count), min, max with the metric's decimals,
 * and n, how many runs; a cell without such runs is four empty fields.
 */
#ifndef HB_MATRIX_H
#define HB_MATRIX_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"

enum matrix_by {
	MATRIX_BY_BATCH,        /* columns: batch ids, earliest run first */
	MATRIX_BY_KERNEL,       /* columns: kernel releases, in version order */
};

struct matrix {
	enum matrix_by by;
	size_t n_rows, n_cols;
	const char **row_game, **row_name;  /* point into the rows built from */
	const char **col;                   /* batch ids or kernel releases (likewise) */
	struct run_stats *cell;             /* [row * n_cols + col] */
	size_t n_without;                   /* rows given without a batch id / kernel release */
};

/* "batch" / "kernel". 0 or -EINVAL. */
int matrix_by_parse(const char *s, enum matrix_by *out);
/* "batch" / "kernel". */
const char *matrix_by_name(enum matrix_by by);

void matrix_init(struct matrix *m);
void matrix_release(struct matrix *m);
/* Builds the matrix of rows[0..n): a row per (game, variant) and a column
 * per batch (row->batch; ordered by the earliest started_utc of its runs,
 * then by id) or per kernel (row->kernel; ordered by strverscmp, so 6.9
 * comes before 6.10) that some row has; rows without one are counted in
 * n_without and left out. The rows must outlive m. 0 or -EINVAL. */
int matrix_build(struct matrix *m, const struct report_row *rows, size_t n, enum matrix_by by,
		 bool include_interfered);
/* Whether some cell has the metric (its CSV is written only then). */
bool matrix_has(const struct matrix *m, enum metric_id id);
/* Writes the metric's CSV (layout above). 0 or -errno of the stream. */
int matrix_write_csv(FILE *out, const struct matrix *m, enum metric_id id);

#endif
