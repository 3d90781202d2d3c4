/*
 * libFuzzer harness: analysis/import/import-gallium.c (a Gallium HUD dump,
 * `frametime_(ms)`) on any bytes, read per frame and as samples.
 */
#include "import/import.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double period[] = { 0, 0.5 };
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; i < sizeof(period) / sizeof(period[0]); i++) {
		struct import_opts o = IMPORT_OPTS_DEFAULT;
		struct import_series s;
		struct strbuf err = STRBUF_INIT;

		o.gallium_period_s = period[i];
		import_series_init(&s);
		import_gallium_parse(text, size, "fuzz", &o, &s, &err);
		import_series_release(&s);
		strbuf_release(&err);
	}
	free(text);
	return 0;
}
