/*
 * Fuzz target: key=value files (common/text/kvfile.c), what bench.txt and
 * result.txt of a run directory are read with. A parsed file is formatted
 * again and parsed back: it must come back the same. Read as bench.txt
 * (env= may repeat, no other key): a parsed file holds no other key twice,
 * so that a writer would write it.
 */
#include "text/kvfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kvfile kf, again;
	char *text = fuzz_text(data, size), *out;
	const char *why = NULL;
	size_t first;
	int line = 0;

	kvfile_init_repeats(&kf, kvfile_bench_repeats);
	kvfile_init_repeats(&again, kvfile_bench_repeats);
	if (kvfile_parse_len(&kf, text, size, &line, &why) < 0) {
		if (!why || line < 1)
			abort();
	} else {
		if (kvfile_find_repeat(&kf, 0, &first) >= 0)
			abort();
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
