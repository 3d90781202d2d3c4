/*
 * libFuzzer harness: common/text/csv.c on any bytes in each of its modes,
 * touching every field it returns (so a pointer out of its buffer shows)
 * and checking what csv.h promises: at most CSV_MAX_FIELDS fields, line
 * numbers that never go back, fields that are NUL-terminated strings.
 */
#include "text/csv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned modes[] = { 0, CSV_TRIM | CSV_SKIP_EMPTY, CSV_BLANKS, CSV_BLANKS | CSV_SKIP_EMPTY };
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct csv_record rec;
		struct csv c;
		int line = 0, r;
		size_t bytes = 0;

		csv_init(&c, text, size, modes[m]);
		while ((r = csv_next(&c, &rec)) > 0) {
			if (rec.n > CSV_MAX_FIELDS || rec.line < line || rec.last_line < rec.line)
				abort();
			line = rec.last_line;
			for (size_t i = 0; i < rec.n; i++)
				bytes += strlen(rec.f[i]);
		}
		if (bytes > size || (r < 0 && !c.why))
			abort();
		csv_release(&c);
	}
	free(text);
	return 0;
}
