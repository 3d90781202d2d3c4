/*
 * libFuzzer harness: analysis/import/import-mangohud.c on any bytes, as a file a
 * game's MangoHud (or a crash) could leave. Both ways of reading it: as a
 * log of frames and as an interval import.
 */
#include "import/import.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (int interval = 0; interval < 2; interval++) {
		struct import_opts o = IMPORT_OPTS_DEFAULT;
		struct import_series s;
		struct strbuf err = STRBUF_INIT;

		o.interval = interval;
		import_series_init(&s);
		import_mangohud_parse(text, size, "fuzz.csv", &o, &s, &err);
		import_series_release(&s);
		strbuf_release(&err);
	}
	free(text);
	return 0;
}
