/*
 * A test-only reader of a MangoHud log's frame times, shared by
 * tests/unit/test-lows.c, test-import-mangohud-versions.c and
 * tests/tools/mhsummary.c. Not the importer (that
 * is analysis' work): it reads the `frametime` column of the rows after the
 * first "fps,..." header line and nothing else. MangoHud 0.6.x writes whole
 * microseconds there, 0.6.9 and later milliseconds with a fraction; the
 * caller says which (frametime_unit_ns).
 */
#ifndef HB_TEST_MHLOG_H
#define HB_TEST_MHLOG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frame times in ns, *n of them, malloc'ed; *columns = the header's column
 * count. NULL when the file cannot be read, has no frametime column or a
 * short row. */
static inline uint64_t *mhlog_frametimes(const char *path, double frametime_unit_ns, size_t *n,
					 int *columns)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int col = -1;
	size_t cap = 1024;
	uint64_t *ns = malloc(cap * sizeof(*ns));

	*n = 0;
	*columns = 0;
	if (!f || !ns)
		goto fail;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok;
		int i = 0;

		if (col < 0) {
			if (strncmp(line, "fps,", 4) != 0)
				continue;
			for (tok = strtok_r(line, ",\r\n", &save); tok; tok = strtok_r(NULL, ",\r\n", &save), i++)
				if (strcmp(tok, "frametime") == 0)
					col = i;
			*columns = i;
			if (col < 0)
				goto fail;
			continue;
		}
		if (strncmp(line, "fps,", 4) == 0 || strncmp(line, "os,", 3) == 0)
			break;  /* a second log appended to the same file */
		for (tok = strtok_r(line, ",\r\n", &save); tok && i < col; tok = strtok_r(NULL, ",\r\n", &save))
			i++;
		if (!tok)
			goto fail;
		if (*n == cap) {
			uint64_t *more = realloc(ns, (cap *= 2) * sizeof(*ns));

			if (!more)
				goto fail;
			ns = more;
		}
		ns[(*n)++] = (uint64_t)(strtod(tok, NULL) * frametime_unit_ns + 0.5);
	}
	if (col < 0)
		goto fail;
	fclose(f);
	return ns;
fail:
	if (f)
		fclose(f);
	free(ns);
	return NULL;
}

/* The first four values of a _summary.csv ("0.1% Min FPS", "1% Min FPS",
 * "97% Percentile FPS", "Average FPS") as printed: 0, or -1 when the file
 * cannot be read or is short. */
static inline int mhlog_summary(const char *path, char fields[4][32])
{
	FILE *f = fopen(path, "r");
	char line[1024];
	char *save = NULL, *tok;
	int ok;

	if (!f)
		return -1;
	ok = fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f);  /* header, values */
	fclose(f);
	if (!ok)
		return -1;
	tok = strtok_r(line, ",\r\n", &save);
	for (int i = 0; i < 4; i++, tok = strtok_r(NULL, ",\r\n", &save)) {
		if (!tok)
			return -1;
		snprintf(fields[i], sizeof(fields[i]), "%s", tok);
	}
	return 0;
}

#endif
