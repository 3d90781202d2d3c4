/*
 * Fuzz target: evemu recordings (common/input/evemurec.c), descriptions and events,
 * and the check of a recording a recipe plays, as each part it may be given.
 */
#include "input/evemurec.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct evemu_recording r;
	char *text = fuzz_text(data, size);

	evemu_init(&r);
	evemu_parse(&r, "fuzz.evemu", text, &err);
	evemu_release(&r);
	for (int part = EVEMU_WHOLE; part <= EVEMU_EVENTS; part++) {
		strbuf_reset(&err);
		evemu_init(&r);
		evemu_check_play(&r, "fuzz.evemu", text, (enum evemu_part)part, &err);
		evemu_release(&r);
	}
	strbuf_release(&err);
	free(text);
	return 0;
}
