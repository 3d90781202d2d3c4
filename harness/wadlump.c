/*
 * hitchbench-wadlump WAD LUMP OUTFILE: writes one lump of a WAD to a file.
 * Recipes use it in a prepare step to turn a demo shipped inside a Debian
 * IWAD (Freedoom's DEMO1..DEMO4) into the file a timedemo wants.
 */
#include "base/message.h"
#include "base/exitcodes.h"
#include "base/util.h"
#include "formats/wad.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *why = NULL;
	size_t len, off, size;
	char *data;
	int r;

	msg_program("hitchbench-wadlump");

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: hitchbench-wadlump WAD LUMP OUTFILE\n");
		return HB_EXIT_OK;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: hitchbench-wadlump WAD LUMP OUTFILE\n");
		return HB_EXIT_USAGE;
	}
	r = read_file(argv[1], &data, &len);
	if (r < 0) {
		error_msg("cannot read '%s': %s", argv[1], strerror(-r));
		return HB_EXIT_FAILURE;
	}
	r = wad_find_lump(data, len, argv[2], &off, &size, &why);
	if (r == -ENOENT)
		error_msg("'%s' has no lump '%s'", argv[1], argv[2]);
	else if (r < 0)
		error_msg("'%s': %s", argv[1], why);
	else if ((r = write_file_atomic(argv[3], data + off, size, 0644)) < 0)
		error_msg("cannot write '%s': %s", argv[3], strerror(-r));
	free(data);
	return r < 0 ? (r == -ENOENT || r == -EINVAL ? HB_EXIT_USAGE : HB_EXIT_FAILURE) : HB_EXIT_OK;
}
