/*
 * /proc/kallsyms into sorted arrays (ksyms.h). Lines are "ADDR TYPE NAME
 * [MODULE]"; text symbols are types t and T. A line that does not read is
 * skipped, not fatal: the file is the kernel's, and one odd line must not
 * cost every name.
 */
#include "system/ksyms.h"
#include "system/fsroot.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct sym {
	uint64_t addr;
	uint32_t name;
};

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ksyms_parse(struct ksyms *k, const char *text, struct strbuf *err)
{
	struct strbuf names = STRBUF_INIT;
	struct sym *s = NULL;
	size_t n = 0, cap = 0, nonzero = 0;

	memset(k, 0, sizeof(*k));
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
		char *after;
		uint64_t a = strtoull(p, &after, 16);
		const char *name;
		size_t len;

		if (after > p && after + 3 < end && after[0] == ' ' && (after[1] == 't' || after[1] == 'T') &&
		    after[2] == ' ') {
			name = after + 3;
			len = strcspn(name, " \t\n");
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				s = xrealloc(s, cap * sizeof(*s));
			}
			s[n].addr = a;
			s[n++].name = (uint32_t)names.len;
			strbuf_add(&names, name, len);
			strbuf_addch(&names, '\0');
			nonzero += a != 0;
		}
		p = nl ? nl + 1 : end;
	}
	if (n && !nonzero) {
		free(s);
		strbuf_release(&names);
		strbuf_addstr(err, "kallsyms: every address is 0 (hidden from this user: kernel.kptr_restrict)");
		return -EPERM;
	}
	qsort(s, n, sizeof(*s), by_addr);
	k->addr = zalloc((n + 1) * sizeof(*k->addr));
	k->name = zalloc((n + 1) * sizeof(*k->name));
	for (size_t i = 0; i < n; i++) {
		k->addr[i] = s[i].addr;
		k->name[i] = s[i].name;
	}
	k->n = n;
	k->names = strbuf_detach(&names);
	free(s);
	return 0;
}

int ksyms_load(struct ksyms *k, const char *rel, struct strbuf *err)
{
	char *text = NULL;
	int r = fsroot_read_all(rel, &text);

	memset(k, 0, sizeof(*k));
	if (r < 0) {
		strbuf_addf(err, "%s: %s", rel, strerror(-r));
		return r;
	}
	r = ksyms_parse(k, text, err);
	free(text);
	return r;
}

void ksyms_release(struct ksyms *k)
{
	free(k->addr);
	free(k->name);
	free(k->names);
	memset(k, 0, sizeof(*k));
}

const char *ksyms_name(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	if (!k->n || addr < k->addr[0])
		return NULL;
	/* the last symbol at or below addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->addr[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return k->names + k->name[lo];
}
