/*
 * Fuzz target: SHA256SUMS lists (common/formats/sha256sums.c), the file a pull
 * trusts to say a copied run is whole: parsed, formatted and parsed again;
 * the second parse must give back every path and checksum the first did.
 */
#include "formats/sha256sums.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf why = STRBUF_INIT, out = STRBUF_INIT;
	struct sha256sums s, again;

	if (sha256sums_parse((const char *)data, size, &s, &why) == 0) {
		sha256sums_format(&s, &out);
		if (sha256sums_parse(out.buf ? out.buf : "", out.len, &again, &why) != 0 ||
		    again.n != s.n)
			abort();
		for (size_t i = 0; i < s.n; i++)
			if (strcmp(s.v[i].path, again.v[i].path) != 0 ||
			    strcmp(s.v[i].hex, again.v[i].hex) != 0)
				abort();
		sha256sums_release(&again);
	}
	sha256sums_release(&s);
	strbuf_release(&why);
	strbuf_release(&out);
	return 0;
}
