/*
 * Fuzz target: the live stall record (common/formats/stallrecord-live.c),
 * the file the recorder fills in the staging directory and the runner
 * reads back (a killed recorder's, to pack it). The input's first 8 bytes
 * are made the live magic, so every input reaches the live reader
 * (fuzz-stallrec reaches it only when it finds the magic); a record read
 * is walked: every row's strings and every stack.
 */
#include "formats/stallrecord.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct stallrec r;
	unsigned char *copy;

	if (size < 8)
		return 0;
	copy = malloc(size);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	memcpy(copy, HB_STALLREC_LIVE_MAGIC, 8);
	stallrec_init(&r);
	if (stallrec_parse_bytes(copy, size, "stalls.live", &r, &err) == 0) {
		size_t sum = 0;

		for (size_t i = 0; i < r.n_rows; i++)
			for (size_t c = 0; c < r.n_cols; c++)
				sum += strlen(stallrec_str(&r, r.v[c * r.rows_alloc + i]));
		for (size_t i = 0; i < r.n_stack; i++)
			sum += strlen(r.stack[i].text);
		for (size_t c = 0; c < r.n_cols; c++)
			sum += strlen(r.col_name[c]);
		if (sum == SIZE_MAX)
			abort(); /* keeps the walk */
		stallrec_release(&r);
	}
	strbuf_release(&err);
	free(copy);
	return 0;
}
