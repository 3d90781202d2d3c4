/*
 * Fuzz target: the thaw journal (bench/quiet/thaw-journal.c), which root's
 * thaw reads to write values back into /proc and /sys. A journal that
 * parses must hold only what thaw may act on (a file entry's path under
 * proc/ or sys/ without '.' or '..' names, an owner pid 2 to THAW_PID_MAX),
 * and format back into text that parses to the same journal.
 */
#include "quiet/thaw.h"
#include "base/util.h"

static void check_entries(const struct thaw_owner *o, const struct thaw_entry *e, size_t n)
{
	if (o->pid < 2 || o->pid > THAW_PID_MAX || !o->boot_id || !o->root || !o->since)
		abort();
	for (size_t i = 0; i < n; i++)
		if (e[i].kind == THAW_FILE_SETTING &&
		    (!rel_path_valid(e[i].key) ||
		     (strncmp(e[i].key, "proc/", 5) != 0 && strncmp(e[i].key, "sys/", 4) != 0)))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct thaw_owner o, o2;
	struct thaw_entry *e = NULL, *e2 = NULL;
	char *text = fuzz_text(data, size), *out;
	size_t n = 0, n2 = 0;
	int line = 0;

	if (thaw_parse(text, &o, &e, &n, &line, &err) == 0) {
		check_entries(&o, e, n);
		out = thaw_format(&o, e, n);
		strbuf_reset(&err);
		if (thaw_parse(out, &o2, &e2, &n2, &line, &err) != 0 || n2 != n || o2.pid != o.pid ||
		    o2.starttime != o.starttime || o2.session != o.session ||
		    strcmp(o2.boot_id, o.boot_id) || strcmp(o2.root, o.root) || strcmp(o2.since, o.since))
			abort();
		for (size_t i = 0; i < n; i++)
			if (e2[i].kind != e[i].kind || strcmp(e2[i].key, e[i].key) ||
			    strcmp(e2[i].value, e[i].value))
				abort();
		free(out);
		thaw_entries_free(e2, n2);
		thaw_owner_release(&o2);
		thaw_entries_free(e, n);
		thaw_owner_release(&o);
	} else if (line < 0 || !err.len) {
		abort();
	}
	strbuf_release(&err);
	free(text);
	return 0;
}
