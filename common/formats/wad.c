/*
 * Reading a WAD's directory (see wad.h).
 */
#include "formats/wad.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int wad_find_lump(const void *data, size_t len, const char *name, size_t *off, size_t *size,
		  const char **why)
{
	const unsigned char *p = data;
	uint32_t count, dir;

	if (strlen(name) == 0 || strlen(name) > 8) {
		*why = "a lump name has 1 to 8 characters";
		return -EINVAL;
	}
	if (len < 12 || (memcmp(p, "IWAD", 4) != 0 && memcmp(p, "PWAD", 4) != 0)) {
		*why = "not a WAD file (no IWAD/PWAD header)";
		return -EINVAL;
	}
	count = le32(p + 4);
	dir = le32(p + 8);
	if (dir > len || count > (len - dir) / 16) {
		*why = "the WAD's directory lies outside the file";
		return -EINVAL;
	}
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *e = p + dir + 16 * (size_t)i;
		char lump[9];
		uint32_t lo = le32(e), ls = le32(e + 4);

		memcpy(lump, e + 8, 8);
		lump[8] = '\0';
		if (strcasecmp(lump, name) != 0)
			continue;
		if (lo > len || ls > len - lo) {
			*why = "the lump lies outside the file";
			return -EINVAL;
		}
		*off = lo;
		*size = ls;
		return 0;
	}
	return -ENOENT;
}
