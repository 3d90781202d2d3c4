/*
 * What every fuzz target shares. The Makefile includes this header into each
 * tests/fuzz/fuzz-*.c (-include), so a target is one function,
 * LLVMFuzzerTestOneInput(), that hands the bytes to one parser and releases
 * everything it got back: a leak is a finding too.
 */
#ifndef HB_FUZZ_H
#define HB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string, for parsers that take text; a NUL
 * byte inside stays there (what a reader of the file would get). The
 * caller frees it. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
