/*
 * Fuzz target: the records a runner appends to while the game plays,
 * flip.txt (common/formats/flipfile.c flip_record_parse) and relay.txt
 * (common/formats/relayfile.c relay_record_parse), over their one line
 * walk (common/text/recordlines.c): the first byte picks the parser, the
 * rest is the file.
 */
#include "formats/flipfile.h"
#include "formats/relayfile.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	bool cut;

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		struct relay_record r;

		relay_record_init(&r);
		if (relay_record_parse((const char *)data + 1, size - 1, "relay.txt", &r, &cut, &err) == 0)
			(void)relay_turn_at(&r, r.n_ev ? r.ev[r.n_ev - 1].applied_ns : 0);
		relay_record_release(&r);
	} else {
		struct flip_record r;

		flip_record_init(&r);
		(void)flip_record_parse((const char *)data + 1, size - 1, "flip.txt", &r, &cut, &err);
		flip_record_release(&r);
	}
	strbuf_release(&err);
	return 0;
}
