/*
 * hitchbench target status NAME [BATCH...]: the target's batches as its
 * files say (batch.txt, runs.txt, whether the detached runner is alive),
 * over one connection. That connection is a login on the target: while a
 * batch the host started there is expected to be measuring, it is refused
 * unless --now, since the watcher there marks the run it lands in
 * interfered. (The table line is in cmd-target.c's dispatcher.)
 */
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "cmd/remote-run.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char status_usage[] =
	"usage: hitchbench target status NAME [BATCH...] [--now]\n"
	"\n"
	"The target's batches (all, or those named): id, game, status, runs done of\n"
	"planned, started and ended. One connection, which is a login on the target:\n"
	"while a batch started from here is expected to be measuring, it is refused.\n"
	"\n"
	"  --now   connect even then (the run being measured will be marked interfered)\n";

static void print_batches(const struct remote_list *l)
{
	printf("%-36s %-12s %-22s %-7s %-20s %s\n", "# batch", "game", "status", "runs", "started", "ended");
	for (size_t i = 0; i < l->n; i++) {
		const struct remote_batch *b = &l->v[i];
		const char *game = kvfile_get(&b->info, "game"), *start = kvfile_get(&b->info, "started_utc"),
			   *end = kvfile_get(&b->info, "ended_utc");
		char runs[48];

		snprintf(runs, sizeof(runs), "%zu/%zu", b->done, b->planned);
		printf("%-36s %-12s %-22s %-7s %-20s %s\n", b->id, game ? game : "-",
		       b->state == REMOTE_ENDED ? b->status : remote_state_name(b->state), runs, start ? start : "-",
		       end ? end : "-");
	}
}


int cmd_target_status(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "now", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct target_list targets;
	const struct ssh_target *t;
	struct remote_list list;
	struct argv_list dirs;
	struct ssh_conn conn;
	bool now = false;
	int c, ret = HB_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': now = true; break;
		case 'h':
			fputs(status_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(status_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	target_list_init(&targets);
	remote_list_init(&list);
	argv_init(&dirs);
	ret = remote_args(ctx, argc, argv, status_usage, &targets, &t, &dirs);
	if (ret != HB_EXIT_OK)
		goto out;
	ret = remote_open_list(ctx, t, now, &conn, &dirs, &list);
	if (ret != HB_EXIT_OK)
		goto out;
	ssh_close(&conn);
	for (size_t i = 0; i < list.n; i++)
		remote_record_look(ctx->results_dir, t->name, &list.v[i]);
	print_batches(&list);
out:
	argv_release(&dirs);
	remote_list_release(&list);
	target_list_release(&targets);
	return ret;
}
