/*
 * mhsummary LOG.csv [MANGOHUD-VERSION]: the four MangoHud summary numbers
 * hitchbench computes (analysis/metrics/mangohud-summary.c) from a MangoHud
 * log's frame times, printed the way MangoHud prints them in _summary.csv
 * ("%.1f", comma separated), for tests/game/t9040 to compare with the
 * summary MangoHud wrote. The log is read by the importer first, for what
 * it tells of the file: the frame time unit its first log has (whole
 * microseconds from 0.6.x, milliseconds from 0.6.9 on: log.frametime_unit)
 * and, when no version is given, the version whose formula is used
 * (log.version). The frame times are then every logged row's, as MangoHud
 * counted them (the importer may drop rows that are no frame).
 * Exit 0, 1 when the log cannot be read, 2 on usage.
 */
#include "import/import.h"
#include "metrics/mangohud-summary.h"
#include "mhlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct import_opts o = IMPORT_OPTS_DEFAULT;
	struct import_series log;
	struct strbuf err = STRBUF_INIT;
	struct mangohud_summary s;
	enum mangohud_formula f;
	const char *unit, *version;
	uint64_t *ns = NULL;
	char *src = NULL;
	size_t n = 0;
	int columns, rc = 1;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: mhsummary LOG.csv [MANGOHUD-VERSION]\n");
		return 2;
	}
	import_series_init(&log);
	if (import_read(IMPORT_MANGOHUD, argv[1], &o, &log, &src, &err) < 0) {
		fprintf(stderr, "mhsummary: %s\n", err.buf);
		goto out;
	}
	/* one unit per appended log ("us,ms"): mhlog reads the first log */
	unit = kvfile_get(&log.info, "frametime_unit");
	if (unit && strncmp(unit, "us", 2) == 0)
		ns = mhlog_frametimes(argv[1], 1e3, &n, &columns);
	else if (unit && strncmp(unit, "ms", 2) == 0)
		ns = mhlog_frametimes(argv[1], 1e6, &n, &columns);
	if (!ns || n == 0) {
		fprintf(stderr, "mhsummary: cannot read frame times (in '%s') from '%s'\n", unit ? unit : "?",
			argv[1]);
		goto out;
	}
	version = argc == 3 ? argv[2] : kvfile_get(&log.info, "version");
	f = mangohud_formula_for_version(version);
	if (mangohud_summary_compute(ns, n, f, &s) != 0)
		goto out;
	printf("%.1f,%.1f,%.1f,%.1f\n", s.low01, s.low1, s.p97, s.avg);
	fprintf(stderr, "mhsummary: %zu rows, %d columns, frame times in %.2s, MangoHud %s formula (%s)\n", n,
		columns, unit, mangohud_formula_name(f), version ? version : "?");
	rc = 0;
out:
	free(ns);
	free(src);
	strbuf_release(&err);
	import_series_release(&log);
	return rc;
}
