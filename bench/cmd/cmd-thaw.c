/*
 * hitchbench thaw: gives the machine back after "hitchbench quiet", or
 * after a batch that was killed before it could thaw. Prints each
 * restored setting with what it read back; exit 1 when one did not come
 * back (the journal is then kept for another try).
 */
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "quiet/thaw.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char thaw_usage[] =
	"usage: hitchbench thaw\n"
	"\n"
	"Restores every setting 'hitchbench quiet' or a killed batch changed, in\n"
	"reverse order, from the journal in $HITCHBENCH_STATE_DIR (default\n"
	"/var/lib/hitchbench for root, ~/.local/state/hitchbench otherwise), and\n"
	"reads each back. Exit 0 when all came back or there was nothing to do,\n"
	"1 when one did not (the journal is kept).\n";

int cmd_thaw(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct thaw_journal j;
	struct thaw_report rep;
	struct strbuf err = STRBUF_INIT;
	int c, r, ret = HB_EXIT_OK;
	bool bad_journal;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(thaw_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(thaw_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error(thaw_usage, "thaw takes no arguments, not '%s'", argv[optind]);
	thaw_journal_init(&j);
	thaw_report_init(&rep);
	r = thaw_journal_open(&j, NULL, THAW_MANUAL, &err);
	/* a journal that breaks the format's rules (file:line said) */
	bad_journal = r == -EINVAL;
	if (r == 0 && !j.exists) {
		printf("nothing to thaw\n");
		goto out;
	}
	if (r == 0)
		r = thaw_restore(&j, &rep, &err);
	if (rep.notes.len)
		fprintf(stderr, "%s", rep.notes.buf);
	for (size_t i = 0; i < rep.n; i++) {
		struct strbuf line = STRBUF_INIT;

		thaw_result_describe(&rep.r[i], &line);
		fputs(line.buf, stdout);
		strbuf_release(&line);
	}
	if (r < 0) {
		error_msg("%s", err.buf);
		ret = bad_journal ? HB_EXIT_USAGE : HB_EXIT_FAILURE;
	} else if (rep.n) {
		printf("# %zu setting(s) restored\n", rep.n);
	}
out:
	thaw_report_release(&rep);
	thaw_journal_release(&j);
	strbuf_release(&err);
	return ret;
}
