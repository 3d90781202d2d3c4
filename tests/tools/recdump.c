/*
 * recdump: a stall record as text, for tests and for people curious about
 * what the recorder wrote.
 *
 *   recdump FILE [COLUMN...]
 *
 * Prints "meta KEY=VALUE" and "trailer KEY=VALUE" lines, "columns NAME...",
 * "rows N", then the named columns as tab-separated rows (string columns
 * as their strings, main.state and the other state columns as letters).
 * Reads a packed record (stalls.rec.zst) or a live one.
 */
#include "base/exitcodes.h"
#include "formats/stallrecord.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

static bool is_string_col(const char *name)
{
	return strcmp(name, "main.wchan") == 0 || strcmp(name, "main.syscall") == 0 ||
	       strcmp(name, "main.fd") == 0 || strcmp(name, "x.wchan") == 0;
}

static bool is_state_col(const char *name)
{
	size_t n = strlen(name);

	return n >= 6 && strcmp(name + n - 6, ".state") == 0;
}

int main(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct stallrec r;
	int cols[64];
	int n = argc - 2;

	if (argc < 2 || n > 64) {
		fprintf(stderr, "usage: recdump FILE [COLUMN...]\n");
		return HB_EXIT_USAGE;
	}
	if (stallrec_load(argv[1], &r, &err) < 0) {
		fprintf(stderr, "recdump: %s\n", err.buf);
		return HB_EXIT_FAILURE;
	}
	for (size_t i = 0; i < r.meta.n; i++)
		printf("meta %s=%s\n", r.meta.items[i].key, r.meta.items[i].value);
	for (size_t i = 0; i < r.trailer.n; i++)
		printf("trailer %s=%s\n", r.trailer.items[i].key, r.trailer.items[i].value);
	printf("rows %zu\n", r.n_rows);
	for (int k = 0; k < n; k++) {
		cols[k] = stallrec_find(&r, argv[k + 2]);
		if (cols[k] < 0) {
			fprintf(stderr, "recdump: the record has no column '%s'\n", argv[k + 2]);
			stallrec_release(&r);
			return HB_EXIT_USAGE;
		}
	}
	for (size_t i = 0; n > 0 && i < r.n_rows; i++) {
		for (int k = 0; k < n; k++) {
			const char *name = r.col_name[cols[k]];
			int64_t v = stallrec_col(&r, cols[k])[i];

			if (k)
				putchar('\t');
			if (is_string_col(name))
				printf("%s", stallrec_str(&r, v));
			else if (is_state_col(name))
				printf("%c", v > 32 && v < 127 ? (char)v : '-');
			else
				printf("%lld", (long long)v);
		}
		putchar('\n');
	}
	stallrec_release(&r);
	return 0;
}
