/*
 * SHA-256 through nettle, and FNV-1a (see hash.h).
 */
#include "base/hash.h"
#include "base/util.h"

#include <errno.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void digest_hex(struct sha256_ctx *ctx, char out[HB_SHA256_HEX_LEN + 1])
{
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_digest(ctx, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

void sha256_hex(const void *data, size_t len, char out[HB_SHA256_HEX_LEN + 1])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	digest_hex(&ctx, out);
}

int sha256_fd_hex(int fd, char out[HB_SHA256_HEX_LEN + 1])
{
	struct sha256_ctx ctx;
	uint8_t buf[64 * 1024];
	ssize_t n;

	sha256_init(&ctx);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		sha256_update(&ctx, (size_t)n, buf);
	}
	digest_hex(&ctx, out);
	return 0;
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

uint32_t fnv1a_32(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}
