/*
 * Fuzz target: the game prefetch's lists (common/prefetch/prefetch-list.c), parsed,
 * formatted and parsed again: the second parse must take what the format
 * wrote.
 */
#include "prefetch/prefetch.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf out = STRBUF_INIT;
	struct pf_list l, again;
	char *text = fuzz_text(data, size);
	int line = 0;

	pf_list_init(&l);
	pf_list_init(&again);
	if (pf_list_parse(text, &l, &line) == 0) {
		(void)pf_list_bytes(&l);
		pf_list_format(&l, &out);
		if (pf_list_parse(out.buf, &again, &line) != 0 || again.n != l.n)
			abort();
	}
	pf_list_release(&l);
	pf_list_release(&again);
	strbuf_release(&out);
	free(text);
	return 0;
}
