/*
 * Fuzz target: the lab site's state (bench/site/site-state.c), which the
 * site command reads from the site's directory, a directory others may be
 * able to write, before it writes and removes pages. A state that parses
 * must name only relative paths inside the site, each page once, and
 * format back into text that parses to the same state.
 */
#include "site/site-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct site_state s, s2;
	char *text = fuzz_text(data, size), *out;

	if (site_state_parse(text, size, "site.state", &s, &err) == 0) {
		for (size_t i = 0; i < s.n_pages; i++)
			if (!rel_path_valid(s.pages[i].path) || (i && !strcmp(s.pages[i].path, s.pages[i - 1].path)))
				abort();
		for (size_t i = 0; i < s.n_changes; i++)
			if (!rel_path_valid(s.changes[i].page) || !rel_path_valid(s.changes[i].batch_after))
				abort();
		out = site_state_format(&s);
		strbuf_reset(&err);
		if (site_state_parse(out, strlen(out), "site.state", &s2, &err) != 0 || s2.n_pages != s.n_pages ||
		    s2.n_changes != s.n_changes || !s.generator != !s2.generator)
			abort();
		for (size_t i = 0; i < s.n_pages; i++)
			if (strcmp(s.pages[i].path, s2.pages[i].path) || strcmp(s.pages[i].fingerprint, s2.pages[i].fingerprint))
				abort();
		for (size_t i = 0; i < s.n_changes; i++)
			if (strcmp(s.changes[i].label, s2.changes[i].label) || strcmp(s.changes[i].found_utc, s2.changes[i].found_utc))
				abort();
		free(out);
		site_state_release(&s2);
		site_state_release(&s);
	} else if (!err.len) {
		abort();
	}
	strbuf_release(&err);
	free(text);
	return 0;
}
