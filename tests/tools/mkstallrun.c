/*
 * mkstallrun: the hand-made stall run (stallrun.h) as a run directory, for
 * tests/cli/t1000-stalls.sh.
 *
 *   mkstallrun sampled|exact DIR   writes DIR/bench.txt, frames.bin and
 *                                  stalls.rec.zst (DIR is made if missing)
 *   mkstallrun --cases sampled|exact   the stalls it holds, one a line:
 *                                  name cause decided section
 */
#include "base/exitcodes.h"
#include "stallrun.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

static int parse_kind(const char *s, enum stallrun_kind *kind)
{
	if (!strcmp(s, "sampled"))
		*kind = STALLRUN_SAMPLED;
	else if (!strcmp(s, "exact"))
		*kind = STALLRUN_EXACT;
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	enum stallrun_kind kind;
	int r;

	if (argc == 3 && !strcmp(argv[1], "--cases") && parse_kind(argv[2], &kind) == 0) {
		size_t n;
		const struct stallrun_case *c = stallrun_cases(kind, &n);

		for (size_t i = 0; i < n; i++)
			printf("%s %s %s %s\n", c[i].name, c[i].cause, c[i].decided, c[i].section);
		return HB_EXIT_OK;
	}
	if (argc != 3 || parse_kind(argv[1], &kind) < 0) {
		fputs("usage: mkstallrun sampled|exact DIR\n       mkstallrun --cases sampled|exact\n",
		      stderr);
		return HB_EXIT_USAGE;
	}
	r = mkdir_p(argv[2], 0755);
	if (r == 0)
		r = stallrun_write(argv[2], kind);
	if (r < 0) {
		fprintf(stderr, "mkstallrun: cannot write '%s': %s\n", argv[2], strerror(-r));
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}
