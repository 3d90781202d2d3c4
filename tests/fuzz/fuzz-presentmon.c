/*
 * libFuzzer harness: analysis/import/import-presentmon.c (PresentMon 1.x/2.x and
 * FrameView CSV) on any bytes, with the default choice of process and
 * with one asked for.
 */
#include "import/import.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const process[] = { NULL, "dwm.exe", "1" };
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; i < sizeof(process) / sizeof(process[0]); i++) {
		struct import_opts o = IMPORT_OPTS_DEFAULT;
		struct import_series s;
		struct strbuf err = STRBUF_INIT;

		o.process = process[i];
		import_series_init(&s);
		import_presentmon_parse(text, size, "fuzz.csv", &o, &s, &err);
		import_series_release(&s);
		strbuf_release(&err);
	}
	free(text);
	return 0;
}
