/*
 * libFuzzer harness: what `hitchbench plot` reads, analysis/plot/plot.c's
 * plot_matrix_parse (a matrix CSV) and plot_trend_parse (a trend TSV), on
 * any bytes (both parsers on each input).
 */
#include "plot/plot.h"
#include "plot/plot-inputs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_trend_point *pts = NULL;
	struct plot_matrix m;
	char *text = malloc(size + 1);
	size_t n = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (plot_matrix_parse("results/matrix/p99_ms.csv", text, &m, &err) == 0)
		plot_matrix_release(&m);
	strbuf_reset(&err);
	if (plot_trend_parse("p99_ms.tsv", text, &pts, &n, &err) == 0)
		plot_trend_release(pts, n);
	strbuf_release(&err);
	free(text);
	return 0;
}
