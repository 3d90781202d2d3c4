/*
 * Fuzz target: results/interfered.txt (analysis/interference/interfered.c), then a
 * look-up in what it gave.
 */
#include "interference/interfered.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct interfered_list list;
	char *text = fuzz_text(data, size);

	interfered_init(&list);
	if (interfered_parse(&list, text, "interfered.txt", &err) == 0 && list.n)
		interfered_find(&list, list.v[0].run, NULL);
	interfered_release(&list);
	strbuf_release(&err);
	free(text);
	return 0;
}
