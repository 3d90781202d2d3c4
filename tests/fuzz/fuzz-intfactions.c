/*
 * Fuzz target: a game's player actions, gamedb/GAME/interference.ini
 * (analysis/interference/intfscan.c intf_actions_parse: regexes compiled), then each
 * line of the input matched against them as game.log lines are.
 */
#include "interference/intfscan.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct intf_actions a;
	char *text = fuzz_text(data, size);

	intf_actions_init(&a);
	if (intf_actions_parse(&a, text, "interference.ini", &err) == 0) {
		for (char *line = text, *nl; line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			(void)intf_actions_match(&a, line);
		}
	}
	intf_actions_release(&a);
	strbuf_release(&err);
	free(text);
	return 0;
}
