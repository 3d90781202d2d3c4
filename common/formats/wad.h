/*
 * Doom WAD files: finding a lump (a named entry) in an IWAD or PWAD. The
 * dsda-doom recipe plays a demo stored as a lump in Freedoom's IWAD; the
 * game wants it as a file, so the recipe's prepare step extracts it
 * (harness/wadlump.c) from what Debian ships, reproducibly.
 *
 * Layout (little-endian): "IWAD"|"PWAD", int32 lump count, int32 directory
 * offset; the directory holds count entries of {int32 offset, int32 size,
 * char name[8] (NUL-padded)}.
 */
#ifndef HB_WAD_H
#define HB_WAD_H

#include <stddef.h>

/* Finds the first lump named name (case-insensitive, at most 8 chars).
 * 0 with *off and *size set; -EINVAL when data is not a WAD (*why says
 * why), -ENOENT when there is no such lump. */
int wad_find_lump(const void *data, size_t len, const char *name, size_t *off, size_t *size,
		  const char **why);

#endif
