/*
 * Fuzz target: quiet profiles (bench/quiet/quiet-profile.c, recipes/quiet/NAME.ini).
 */
#include "quiet/quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct quiet_profile p;
	char *text = fuzz_text(data, size);

	quiet_profile_init(&p);
	quiet_profile_parse(text, "fuzz.ini", &p, &err);
	quiet_profile_release(&p);
	strbuf_release(&err);
	free(text);
	return 0;
}
