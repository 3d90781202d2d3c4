/*
 * The paired sequential test of each two-cell batch among report's
 * arguments (what `hitchbench compare --paired BATCH` prints, through
 * abtest.h), for the HTML report's verdicts. Command-layer code: it loads
 * batches and run directories.
 */
#ifndef HB_REPORT_PAIRED_H
#define HB_REPORT_PAIRED_H

#include <stddef.h>

#include "report/report-html.h"

/* For each argument that is a batch directory (it has batch.txt) of
 * exactly two cells, the test's lines, titled with the batch; into *out
 * (*n of them; free with report_paired_free()). A batch that is not two
 * cells is none; one that does not open or read is said in *out (its
 * text the reason). Never fails. */
void report_paired_tests(char **args, int n, struct report_html_text **out, size_t *n_out);
void report_paired_free(struct report_html_text *t, size_t n);

#endif
