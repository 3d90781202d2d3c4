/*
 * libFuzzer harness: what `hitchbench import FILE` does without --format on
 * any bytes: the format told from the text (analysis/import/import-detect.c),
 * then that format's reader on the same bytes, as the command would.
 */
#include "import/import.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reader of format f, or NULL (hook: a frame file, fuzzed as frames). */
static int (*reader_of(enum import_format f))(const char *, size_t, const char *, const struct import_opts *,
					       struct import_series *, struct strbuf *)
{
	switch (f) {
	case IMPORT_MANGOHUD:
		return import_mangohud_parse;
	case IMPORT_PRESENTMON:
	case IMPORT_OCAT:
	case IMPORT_FRAMEVIEW:
		return import_presentmon_parse;
	case IMPORT_GALLIUM_HUD:
		return import_gallium_parse;
	case IMPORT_CAPFRAMEX:
		return import_capframex_parse;
	default:
		return NULL;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "log.csv", "frametime_(ms)" };
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct import_opts o = IMPORT_OPTS_DEFAULT;
		struct strbuf why = STRBUF_INIT, err = STRBUF_INIT;
		struct import_series s;
		enum import_format f;

		import_series_init(&s);
		if (import_detect_text(text, size, names[i], &f, &why) == 0 && reader_of(f))
			reader_of(f)(text, size, names[i], &o, &s, &err);
		import_series_release(&s);
		strbuf_release(&why);
		strbuf_release(&err);
	}
	free(text);
	return 0;
}
