/*
 * mhsummary LOG.csv [0.6.8|0.8]: the four MangoHud summary numbers hitchbench
 * computes (analysis/metrics/mangohud-summary.c) from a MangoHud log's frame times,
 * printed the way MangoHud prints them in _summary.csv ("%.1f", comma
 * separated), for tests/game/t9040 to compare with the summary MangoHud
 * wrote. The formula is the one given, else inferred from the log's columns:
 * 12 columns with whole-microsecond frame times are MangoHud 0.6.x.
 * Exit 0, 1 when the log cannot be read, 2 on usage.
 */
#include "metrics/mangohud-summary.h"
#include "mhlog.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	enum mangohud_formula f;
	struct mangohud_summary s;
	uint64_t *ns;
	size_t n;
	int columns;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: mhsummary LOG.csv [MANGOHUD-VERSION]\n");
		return 2;
	}
	/* 0.6.x writes 12 columns and whole microseconds; later, ms (0.6.9+) */
	ns = mhlog_frametimes(argv[1], 1000, &n, &columns);
	if (ns && argc < 3 && columns > 12) {
		free(ns);
		ns = mhlog_frametimes(argv[1], 1e6, &n, &columns);
	}
	if (!ns || n == 0) {
		fprintf(stderr, "mhsummary: cannot read frame times from '%s'\n", argv[1]);
		free(ns);
		return 1;
	}
	f = argc == 3 ? mangohud_formula_for_version(argv[2]) : columns > 12 ? MH_08 : MH_068;
	if (mangohud_summary_compute(ns, n, f, &s) != 0) {
		free(ns);
		return 1;
	}
	printf("%.1f,%.1f,%.1f,%.1f\n", s.low01, s.low1, s.p97, s.avg);
	fprintf(stderr, "mhsummary: %zu rows, %d columns, MangoHud %s formula\n", n, columns,
		mangohud_formula_name(f));
	free(ns);
	return 0;
}
