/*
 * Fuzz target: the probe's file, probe.txt (common/formats/probefile.c
 * probe_result_parse), which report reads from a run directory.
 */
#include "formats/probefile.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct probe_result r;
	char *text = fuzz_text(data, size);

	memset(&r, 0, sizeof(r));
	if (probe_result_parse(text, &r, &err) == 0)
		probe_result_release(&r);
	strbuf_release(&err);
	free(text);
	return 0;
}
