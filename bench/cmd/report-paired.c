/*
 * The paired tests of report's two-cell batches (see report-paired.h): the
 * same steps as compare --paired, ab.txt's options where the batch has
 * them, the lines ab_print_all() prints.
 */
#include "cmd/report-paired.h"
#include "batch/abtest.h"
#include "batch/batch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The test's lines over batch dir, or why there are none (*text), or
 * -EINVAL when the batch is not two cells. */
static int paired_text(const char *dir, char **text)
{
	struct strbuf err = STRBUF_INIT;
	struct ab_test t;
	struct batch b;
	char *a_name = NULL, *b_name = NULL;
	size_t len;
	FILE *mem;
	int r;

	batch_init(&b);
	ab_test_init(&t);
	r = ab_test_open(&t, &b, dir, ".", &err);
	if (r == -EDOM) {
		r = -EINVAL;    /* not two cells: no paired test to show */
		goto out;
	}
	if (r < 0) {
		*text = xasprintf("cannot read the batch: %s", err.buf ? err.buf : strerror(-r));
		r = 0;
		goto out;
	}
	a_name = ab_cell_name(&b, 0);
	b_name = ab_cell_name(&b, 1);
	ab_test_update(&t, &b, NULL);
	mem = open_memstream(text, &len);
	if (!mem)
		abort();
	ab_print_all(mem, &t, a_name, b_name);
	fclose(mem);
out:
	free(a_name);
	free(b_name);
	ab_test_release(&t);
	batch_release(&b);
	strbuf_release(&err);
	return r;
}

void report_paired_tests(char **args, int n, struct report_html_text **out, size_t *n_out)
{
	*out = zalloc((n > 0 ? (size_t)n : 1) * sizeof(**out));
	*n_out = 0;
	for (int i = 0; i < n; i++) {
		char *info = xasprintf("%s/batch.txt", args[i]), *runs = xasprintf("%s/runs.txt", args[i]);
		/* (batch_open() opens runs.txt to append: only one that is there,
		 * so that a report writes nothing) */
		bool batch = access(info, F_OK) == 0 && access(runs, F_OK) == 0;
		char *text = NULL;

		free(info);
		free(runs);
		if (!batch || paired_text(args[i], &text) < 0)
			continue;
		(*out)[*n_out].title = xasprintf("paired sequential test over the rounds of %s "
						 "(hitchbench compare --paired)", args[i]);
		(*out)[(*n_out)++].text = text;
	}
}

void report_paired_free(struct report_html_text *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)t[i].title);
		free((char *)t[i].text);
	}
	free(t);
}
