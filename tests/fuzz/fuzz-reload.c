/*
 * Fuzz target: a game's reload rule, gamedb/GAME/analysis.ini
 * (analysis/run/reload.c), its line regex compiled on the way.
 */
#include "run/reload.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct reload_rule r;
	char *text = fuzz_text(data, size);

	reload_rule_init(&r);
	if (reload_rule_parse_string(text, "analysis.ini", &r, &err) == 0)
		free(reload_rule_describe(&r));
	reload_rule_release(&r);
	strbuf_release(&err);
	free(text);
	return 0;
}
