/*
 * SHA-256 through nettle (see hash.h).
 */
#include "hash.h"
#include "util.h"

#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>

void sha256_hex(const void *data, size_t len, char out[HB_SHA256_HEX_LEN + 1])
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	sha256_digest(&ctx, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

int sha256_file_hex(const char *path, char out[HB_SHA256_HEX_LEN + 1])
{
	char *data;
	size_t len;
	int r = read_file(path, &data, &len);

	if (r < 0)
		return r;
	sha256_hex(data, len, out);
	free(data);
	return 0;
}
