/*
 * Fuzz target: the profile record (common/formats/profilerecord.c), the
 * profile recorder's profile.rec.zst as the text its reader parses after
 * zstd. Every sample the parser takes is then looked up as the analysis
 * does (its thread, its stack's frames, the map of each user address), so
 * an id the parser let through that points nowhere shows here.
 */
#include "base/util.h"
#include "formats/profilerecord.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct profrec p;

	if (profrec_parse((const char *)data, size, "profile.rec.zst", &p, &err) == 0) {
		for (size_t i = 0; i < p.n_sample; i++) {
			const struct prof_thread *t = profrec_thread(&p, p.sample[i].tid);
			const struct prof_stack *s = &p.stack[p.sample[i].stack - 1];

			for (uint32_t k = 0; k < s->nk; k++)
				(void)s->kfn[k][0];
			for (uint32_t k = 0; k < s->n - s->nk; k++)
				(void)profrec_map(&p, t ? t->pid : 0, s->ip[k]);
		}
		profrec_release(&p);
	}
	strbuf_release(&err);
	return 0;
}
