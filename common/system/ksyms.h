/*
 * The kernel's symbols (/proc/kallsyms, read below the fsroot), to name the
 * functions of a kernel stack's addresses. Text symbols only, sorted once;
 * a lookup is a binary search. Addresses are all zero to a reader the
 * kernel hides them from (kernel.kptr_restrict): then nothing is named and
 * ksyms_load says so.
 */
#ifndef HB_KSYMS_H
#define HB_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;

struct ksyms {
	uint64_t *addr;         /* ascending */
	uint32_t *name;         /* offsets into names */
	size_t n;
	char *names;
};

/* Reads rel (normally "proc/kallsyms") under the fsroot. 0, -ENOENT, or
 * -EPERM when every address is zero (hidden), with why in err. */
int ksyms_load(struct ksyms *k, const char *rel, struct strbuf *err);
/* Parses kallsyms text (the same, for tests). */
int ksyms_parse(struct ksyms *k, const char *text, struct strbuf *err);
void ksyms_release(struct ksyms *k);
/* The function holding addr, or NULL (below the first, or no symbols). */
const char *ksyms_name(const struct ksyms *k, uint64_t addr);

#endif
