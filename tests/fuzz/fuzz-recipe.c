/*
 * Fuzz target: recipes (bench/recipe/recipe*.c), INI text with the keys of
 * recipes/README.md, the end_line/start_line regexes compiled on the way.
 * The path names a directory that does not exist, so nothing outside the
 * input is read.
 */
#include "recipe/recipe.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct recipe r;
	char *text = fuzz_text(data, size);

	recipe_init(&r);
	recipe_parse_string(text, "/nonexistent-fuzz/recipe.ini", &r, &err);
	recipe_release(&r);
	strbuf_release(&err);
	free(text);
	return 0;
}
