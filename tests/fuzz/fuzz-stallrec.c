/*
 * Fuzz target: the stall record (common/formats/stallrecord*.c). The input is what a
 * run directory's stalls.rec.zst holds: a zstd frame, decompressed under
 * the reader's limit, then the packed layout; or, when it starts with the
 * live magic, the recorder's live file. Inputs that are not zstd go to
 * the packed parser directly, so the fuzzer reaches it without having to
 * learn zstd.
 */
#include "formats/stallrecord.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct stallrec r;

	stallrec_init(&r);
	if (stallrec_parse_bytes(data, size, "stalls.rec.zst", &r, &err) == 0)
		stallrec_release(&r);
	strbuf_reset(&err);
	if (stallrec_parse_packed(data, size, &r, &err) == 0) {
		for (size_t i = 0; i < r.n_rows; i++)
			(void)stallrec_str(&r, stallrec_at(&r, SR_WCHAN, i));
		stallrec_release(&r);
	}
	strbuf_release(&err);
	return 0;
}
