/*
 * Fuzz target: key=value files (common/text/kvfile.c), what bench.txt and
 * result.txt of a run directory are read with. A parsed file is formatted
 * again and parsed back: it must come back the same. Read as bench.txt
 * (env= may repeat, no other key): what parsed formats back into a file
 * that parses the same way.
 */
#include "text/kvfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kvfile kf, again;
	char *text = fuzz_text(data, size), *out;
	const char *why = NULL;
	int line = 0;

	kvfile_init_repeats(&kf, kvfile_bench_repeats);
	kvfile_init_repeats(&again, kvfile_bench_repeats);
	if (kvfile_parse_len(&kf, text, size, &line, &why) < 0) {
		if (!why || line < 1)
			abort();
	} else {
		/* read back with the same allowance: no other key twice */
		out = kvfile_format(&kf);
		if (kvfile_parse(&again, out, &line) != 0 || again.n != kf.n)
			abort();
		for (size_t i = 0; i < kf.n; i++)
			if (strcmp(kf.items[i].key, again.items[i].key) ||
			    strcmp(kf.items[i].value, again.items[i].value))
				abort();
		free(out);
	}
	kvfile_release(&kf);
	kvfile_release(&again);
	free(text);
	return 0;
}
