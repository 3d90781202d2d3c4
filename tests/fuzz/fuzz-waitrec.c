/*
 * Fuzz target: the wait record (common/formats/waitrecord.c), the BPF recorder's
 * waits.rec.zst as the text its reader parses after zstd. Every line the
 * parser takes is then looked up as the analysis does (its thread, its
 * stacks, its disk), so an id the parser let through that points nowhere
 * shows here.
 */
#include "base/util.h"
#include "formats/waitrecord.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct waitrec w;

	if (waitrec_parse((const char *)data, size, "waits.rec.zst", &w, &err) == 0) {
		for (size_t i = 0; i < w.n_off; i++) {
			const struct wr_stack *s = waitrec_stack(&w, w.off[i].stack);

			(void)waitrec_thread(&w, w.off[i].waker_tid);
			(void)waitrec_stack(&w, w.off[i].waker_stack);
			for (size_t k = 0; s && k < s->n; k++)
				(void)s->fn[k][0];
		}
		for (size_t i = 0; i < w.n_bio; i++)
			(void)waitrec_dev_name(&w, w.bio[i].major, w.bio[i].minor);
		waitrec_release(&w);
	}
	strbuf_release(&err);
	return 0;
}
