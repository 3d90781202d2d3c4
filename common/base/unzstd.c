/*
 * Bounded zstd decompression (see unzstd.h).
 */
#include "base/unzstd.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* the first four bytes of every zstd frame (RFC 8878) */
static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

int unzstd(const void *data, size_t len, size_t max, struct strbuf *out, const char **why)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_inBuffer in = { data, len, 0 };
	size_t chunk = ZSTD_DStreamOutSize(), left = 1, start = out->len;
	char *buf = zalloc(chunk);
	int r = 0;

	if (!d)
		abort();
	if (len == 0) {
		*why = "empty, not zstd data";
		r = -EINVAL;
	}
	/* until the input is used up and the last frame has given all it
	 * holds (zstd may hold output back until asked again) */
	while (r == 0 && (in.pos < in.size || left != 0)) {
		ZSTD_outBuffer o = { buf, chunk, 0 };
		size_t was = in.pos;

		left = ZSTD_decompressStream(d, &o, &in);
		if (ZSTD_isError(left)) {
			*why = ZSTD_getErrorName(left);
			r = -EINVAL;
			break;
		}
		if (o.pos > max - (out->len - start)) {
			*why = "it decompresses to more than the largest such file read";
			r = -EFBIG;
			break;
		}
		strbuf_add(out, buf, o.pos);
		if (o.pos == 0 && in.pos == was && left != 0) {
			*why = "the zstd data is cut short";
			r = -EINVAL;
		}
	}
	free(buf);
	ZSTD_freeDCtx(d);
	return r;
}

int read_maybe_zstd(const char *path, const char *what, size_t max, bool plain_ok, struct strbuf *out,
		    struct strbuf *err)
{
	const char *why = NULL;
	char *data;
	size_t len;
	int r = read_file(path, &data, &len);

	if (r < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-r));
		return r;
	}
	if (!plain_ok || (len >= sizeof(zstd_magic) && memcmp(data, zstd_magic, sizeof(zstd_magic)) == 0)) {
		/* zstd says what else it is ("Unknown frame descriptor") */
		r = unzstd(data, len, max, out, &why);
		if (r < 0)
			strbuf_addf(err, "%s: not %s (%s)", path, what, why);
	} else if (len > max) {
		strbuf_addf(err, "%s: over %zu MiB: not read", path, max >> 20);
		r = -EFBIG;
	} else {
		strbuf_add(out, data, len);
	}
	free(data);
	return r;
}
