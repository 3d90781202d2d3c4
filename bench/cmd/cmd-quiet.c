/*
 * hitchbench quiet: quiets the machine as a batch would before a run, and
 * leaves it quiet, for manual sessions (measuring by hand, profiling).
 * The journal it leaves belongs to a "manual" session: it is not a dead
 * runner's, so a batch will not undo it behind the user's back; running
 * quiet again adds to it, and "hitchbench thaw" gives everything back.
 */
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "quiet/quiet.h"
#include "quiet/thaw.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

static const char quiet_usage[] =
	"usage: hitchbench quiet [--profile NAME|PATH] [--what TEXT]\n"
	"\n"
	"Quiets the machine by the steps of a profile (stop services, sync, drop\n"
	"caches, compact memory, CPU governor, delay accounting, an optional\n"
	"BENCHMARK RUNNING screen), waits until it is idle, prints what it did,\n"
	"and leaves it quiet until 'hitchbench thaw'. Every changed setting is\n"
	"journaled first in $HITCHBENCH_STATE_DIR (default /var/lib/hitchbench\n"
	"for root, ~/.local/state/hitchbench otherwise).\n"
	"\n"
	"  --profile   a profile name (recipes/quiet/NAME.ini) or path; default 'default'\n"
	"  --what      what runs, for the BENCHMARK RUNNING screen\n";

static void print_notes(const struct strbuf *notes)
{
	if (notes->len)
		fprintf(stderr, "%s", notes->buf);
}

/* Ctrl-C during the idle wait ends the wait, not the journal's writing. */
static int block_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static int parse_args(int argc, char **argv, const char **profile, const char **what)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "what", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			*profile = optarg;
			break;
		case 'w':
			*what = optarg;
			break;
		case 'h':
			fputs(quiet_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(quiet_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error(quiet_usage, "quiet takes no arguments, not '%s'", argv[optind]);
	return HB_EXIT_OK;
}

/* The profile quiet_apply() follows, found and loaded: 0, or the exit code. */
static int load_profile(const char *arg, struct context *ctx, struct quiet_profile *prof)
{
	struct strbuf err = STRBUF_INIT;
	char *path = quiet_profile_find(arg, ctx->recipe_dirs, ARRAY_SIZE(ctx->recipe_dirs));
	int ret = HB_EXIT_OK;

	if (!path) {
		error_msg("no quiet profile '%s' (looked for quiet/%s.ini in the recipe directories)", arg, arg);
		return HB_EXIT_USAGE;
	}
	if (quiet_profile_load(path, prof, &err) < 0) {
		fprintf(stderr, "%s\n", err.buf);
		ret = HB_EXIT_USAGE;
	}
	free(path);
	strbuf_release(&err);
	return ret;
}

/* What quiet_apply() did (r), said: the record, and how the machine stays. */
static int print_outcome(int r, const struct kvfile *record, const struct thaw_journal *j,
			 const struct strbuf *err)
{
	for (size_t i = 0; i < record->n; i++)
		printf("%s=%s\n", record->items[i].key, record->items[i].value);
	if (r == -EINTR) {
		printf("# interrupted; what was changed stays so until 'hitchbench thaw'\n");
		return HB_EXIT_INTERRUPTED;
	}
	if (r < 0 && r != -EIO) {
		error_msg("%s", err->buf);
		return HB_EXIT_FAILURE;
	}
	printf("# the machine stays quiet; 'hitchbench thaw' gives it back (journal: %s)\n",
	       j->exists ? j->path : "none, nothing was changed");
	return r == -EIO ? HB_EXIT_FAILURE : HB_EXIT_OK;
}

int cmd_quiet(int argc, char **argv, struct context *ctx)
{
	const char *profile_arg = "default", *what = NULL;
	struct quiet_profile prof;
	struct thaw_journal j;
	struct thaw_report rep;
	struct strbuf err = STRBUF_INIT;
	struct kvfile record;
	struct quiet_opts qo = { .wake_fd = -1 };
	int r, ret = parse_args(argc, argv, &profile_arg, &what);

	if (ret != HB_EXIT_OK)
		return hb_args_exit(ret);
	quiet_profile_init(&prof);
	thaw_journal_init(&j);
	thaw_report_init(&rep);
	kvfile_init(&record);
	ret = load_profile(profile_arg, ctx, &prof);
	if (ret != HB_EXIT_OK)
		goto out;
	if (thaw_journal_open(&j, NULL, THAW_MANUAL, &err) < 0 ||
	    thaw_recover(&j, &rep, &err) < 0) {
		print_notes(&rep.notes);
		error_msg("%s", err.buf);
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	print_notes(&rep.notes);
	qo.what = what;
	qo.wake_fd = block_signals();
	r = quiet_apply(&prof, &j, &qo, &record, &err);
	ret = print_outcome(r, &record, &j, &err);
	if (qo.wake_fd >= 0)
		close(qo.wake_fd);
out:
	kvfile_release(&record);
	thaw_report_release(&rep);
	thaw_journal_release(&j);
	quiet_profile_release(&prof);
	strbuf_release(&err);
	return ret;
}
