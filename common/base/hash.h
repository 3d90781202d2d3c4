/*
 * SHA-256 of files and buffers (nettle), as lowercase hex: what a user can
 * check with sha256sum; and FNV-1a for the in-memory tables of the stall
 * recorders.
 */
#ifndef HB_HASH_H
#define HB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HB_SHA256_HEX_LEN 64

/* FNV-1a, 32 bits: a fast hash for in-memory tables (not for integrity). */
uint32_t fnv1a_32(const void *data, size_t len);

void sha256_hex(const void *data, size_t len, char out[HB_SHA256_HEX_LEN + 1]);
/* 0 or -errno. */
int sha256_file_hex(const char *path, char out[HB_SHA256_HEX_LEN + 1]);
/* What is left to read of fd, read in pieces (a file of any size in a
 * fixed buffer: the runner on a 256 MB target hashes its run directory).
 * 0 or -errno. */
int sha256_fd_hex(int fd, char out[HB_SHA256_HEX_LEN + 1]);

#endif
