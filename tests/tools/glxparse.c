/*
 * glxparse: bench/runner/provenance-gl.c from the command line, for
 * tests/cli/t0500-provenance-gl.sh, which checks that what glxinfo -B says
 * on this machine's X server today still parses.
 *
 *   glxparse [FILE]                 glxinfo_parse() of FILE (or stdin): the
 *                                   bench.txt pairs it adds; exit 1 if none
 *   glxparse --probe GLXINFO [SECONDS]
 *                                   provenance_gl() as ourselves with our
 *                                   environment: the pairs it adds
 */
#include "base/exitcodes.h"
#include "text/kvfile.h"
#include "runner/provenance.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static int print_pairs(const struct kvfile *kf)
{
	char *text = kvfile_format(kf);

	fputs(text, stdout);
	free(text);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "glxparse: cannot write: %s\n", strerror(errno));
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct kvfile kf;
	struct strbuf in = STRBUF_INIT;
	int r, rc;

	kvfile_init(&kf);
	if (argc >= 3 && !strcmp(argv[1], "--probe")) {
		double timeout = 10;

		if (argc > 4 || (argc == 4 && (safe_atod(argv[3], &timeout) < 0 || timeout <= 0))) {
			fprintf(stderr, "usage: glxparse --probe GLXINFO [SECONDS]\n");
			return HB_EXIT_USAGE;
		}
		r = provenance_gl(&kf, argv[2], environ, NULL, timeout);
		rc = print_pairs(&kf);
		kvfile_release(&kf);
		return r < 0 ? HB_EXIT_FAILURE : rc;
	}
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: glxparse [FILE] | glxparse --probe GLXINFO [SECONDS]\n");
		return HB_EXIT_USAGE;
	}
	if (argc == 2) {
		char *text;

		r = read_file(argv[1], &text, NULL);
		if (r < 0) {
			fprintf(stderr, "glxparse: cannot read '%s': %s\n", argv[1], strerror(-r));
			return HB_EXIT_FAILURE;
		}
		strbuf_addstr(&in, text);
		free(text);
	} else {
		char chunk[4096];
		ssize_t n;

		while ((n = read(0, chunk, sizeof(chunk))) > 0)
			strbuf_add(&in, chunk, (size_t)n);
	}
	r = glxinfo_parse(in.buf ? in.buf : "", &kf);
	strbuf_release(&in);
	if (r < 0) {
		fprintf(stderr, "glxparse: no \"OpenGL renderer string\" in the input\n");
		kvfile_release(&kf);
		return HB_EXIT_FAILURE;
	}
	rc = print_pairs(&kf);
	kvfile_release(&kf);
	return rc;
}
