/*
 * hitchbench interference-scan: what saved run directories still show of
 * someone using the machine during the run (analysis/interference/intfscan.h), as a
 * list of suspects with their evidence; --write adds the new ones to the
 * interfered file (analysis/interference/interfered.h), which report and matrix read.
 */
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "interference/interfered.h"
#include "interference/intfscan.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char scan_usage[] =
	"usage: hitchbench interference-scan [--write] [--interfered FILE] [--gamedb DIR] RUNDIR...\n"
	"\n"
	"  RUNDIR             a run directory, a batch directory or a directory of them\n"
	"  --write            add the suspects not yet listed to the interfered file\n"
	"  --interfered FILE  the interfered file (default: results/interfered.txt)\n"
	"  --gamedb DIR       look for GAME/interference.ini here first\n"
	"\n"
	"Exit: 0 no suspect, 5 suspects found, 1 the interfered file could not be written,\n"
	"2 bad usage or input.\n";

/* Evidence items in an interfered file's reason: the rest are counted. */
#define REASON_ITEMS 6

struct scan_totals {
	size_t runs, suspects, xserver, kernel, game, exempt, outside;
};

/* listed: its entry in the interfered file, or NULL; added: the entry is
 * one this scan made (the run was named twice). */
static void print_suspect(const struct intf_scan *s, const struct interfered_entry *listed,
			  bool added)
{
	struct strbuf sb = STRBUF_INIT;

	printf("%s: suspect, %zu piece%s of evidence (logs read: %s)", s->name, s->n,
	       s->n == 1 ? "" : "s", s->logs_read.buf);
	if (!s->base)
		printf("; times unknown (bench.txt has no clock_pair, pass.1.start_ns nor first_frame_ns)");
	else if (strcmp(s->base, "the first frame"))
		printf("; times after %s (no first frame)", s->base);
	if (listed && added)
		printf("; named twice, added once");
	else if (listed)
		printf("; already listed: %s", listed->why);
	printf("\n");
	for (size_t i = 0; i < s->n; i++) {
		const struct intf_evidence *e = &s->v[i];

		strbuf_reset(&sb);
		intf_evidence_describe(e, &sb);
		printf("  %s:%d: %s: %s\n", e->log, e->line, sb.buf, e->text);
		if (e->why && (i == 0 || !s->v[i - 1].why || strcmp(s->v[i - 1].detail, e->detail)))
			printf("    why it is a player's: %s\n", e->why);
	}
	strbuf_release(&sb);
}

/* "RUN  interference-scan: SUMMARY\n" for the run, named by its directory's
 * name, or by its run_id when the name is not one interfered.txt accepts.
 * NULL when neither is. */
static char *entry_line(const struct intf_scan *s, const char *path)
{
	char *summary = intf_scan_summary(s, REASON_ITEMS);
	const char *names[] = { s->name, s->run_id };
	char *line = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(names) && !line; i++) {
		struct interfered_list probe;
		struct strbuf err = STRBUF_INIT;

		if (!names[i])
			continue;
		interfered_init(&probe);
		line = xasprintf("%s  interference-scan: %s\n", names[i], summary);
		if (interfered_parse(&probe, line, path, &err) < 0 || probe.n != 1) {
			free(line);
			line = NULL;
		}
		interfered_release(&probe);
		strbuf_release(&err);
	}
	free(summary);
	return line;
}

/* Appends text to path (created when missing), after a newline when the
 * file does not end with one. 0 or -errno. */
static int append_file(const char *path, const char *text)
{
	char *old = NULL;
	size_t len = 0;
	int fd, r = read_file(path, &old, &len);

	if (r < 0 && r != -ENOENT)
		return r;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(old);
		return -errno;
	}
	r = 0;
	if (len && old[len - 1] != '\n')
		r = write_all(fd, "\n", 1);
	if (r == 0)
		r = write_all(fd, text, strlen(text));
	if (close(fd) < 0 && r == 0)
		r = -errno;
	free(old);
	return r;
}

static void print_notes(const struct scan_totals *t)
{
	printf("# scanned %zu run%s: %zu suspect%s\n", t->runs, t->runs == 1 ? "" : "s", t->suspects,
	       t->suspects == 1 ? "" : "s");
	printf("# read: an X server log (xserver.log, Xorg.*.log) in %zu, a kernel log (kernel.log, "
	       "dmesg.log) in %zu, game.log against its game's gamedb/GAME/interference.ini in %zu\n",
	       t->xserver, t->kernel, t->game);
	if (!t->kernel)
		printf("# no run keeps a kernel log: the runner saves none (USB and input lines of the "
		       "kernel cannot be checked)\n");
	printf("# times: seconds after the run's first frame (bench.txt first_frame_ns), else after "
	       "its start (clock_pair); load = before the first frame, warm-up, window and after "
	       "the window from window_start_ns/window_end_ns\n");
	printf("# the X server's and the kernel's stamps and game.log's are CLOCK_MONOTONIC, as "
	       "bench.txt's; xN = N like lines, each within %.0f s of the one before\n", INTF_BURST_S);
	printf("# left out: %zu line%s of the harness's own input devices ('%s...', or under "
	       "/devices/virtual/input/ in a kernel log), %zu stamped line%s outside their run's time\n",
	       t->exempt, t->exempt == 1 ? "" : "s", INTF_HARNESS_DEVICE, t->outside,
	       t->outside == 1 ? "" : "s");
	printf("# no evidence is no proof: key presses, mouse motion, a controller and logins "
	       "leave no trace in these logs\n");
}

struct scan_args {
	const char *interfered_path, *gamedb;
	bool write;
};

static int parse_options(int argc, char **argv, struct scan_args *a)
{
	static const struct option opts[] = {
		{ "write", no_argument, NULL, 'w' },
		{ "interfered", required_argument, NULL, 'i' },
		{ "gamedb", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			a->write = true;
			break;
		case 'i':
			a->interfered_path = optarg;
			break;
		case 'g':
			a->gamedb = optarg;
			break;
		case 'h':
			fputs(scan_usage, stdout);
			return HB_ARGS_DONE;
		default:
			return usage_error(scan_usage, "bad option");
		}
	}
	if (optind >= argc)
		return usage_error(scan_usage, "interference-scan wants run directories");
	return HB_EXIT_OK;
}

/* Each run's logs read: false when a file was bad (said, once each). */
static bool scan_runs(const struct argv_list *list, const char *const *dirs, size_t n_dirs,
		      struct intf_scan *scans)
{
	struct strbuf err = STRBUF_INIT;
	char *last_err = NULL;
	bool bad = false;

	for (size_t i = 0; i < list->n; i++) {
		intf_scan_init(&scans[i]);
		strbuf_reset(&err);
		if (intf_scan_run(list->v[i], dirs, n_dirs, &scans[i], &err) < 0) {
			/* a game's bad interference.ini is said once, not once a run */
			if (!last_err || strcmp(last_err, err.buf))
				error_msg("%s", err.buf);
			free(last_err);
			last_err = xstrdup(err.buf);
			bad = true;
		}
	}
	free(last_err);
	strbuf_release(&err);
	return !bad;
}

/* What --write adds to the interfered file, and how many it found there. */
struct scan_additions {
	struct strbuf lines;
	size_t appended, already;
};

/* The totals and a suspect's lines for each scan; with add, the lines of
 * the suspects the interfered file (listed, at path) does not hold yet. */
static void list_suspects(const struct intf_scan *scans, size_t n, struct interfered_list *listed,
			  const char *path, struct scan_additions *add, struct scan_totals *t)
{
	struct strbuf err = STRBUF_INIT;
	size_t n_listed = listed->n;

	for (size_t i = 0; i < n; i++) {
		const struct intf_scan *s = &scans[i];
		const struct interfered_entry *e = interfered_find(listed, s->run_id, s->name);
		bool added = e && (size_t)(e - listed->v) >= n_listed;
		char *line;

		t->runs++;
		t->xserver += !!(s->logs & INTF_LOG_XSERVER);
		t->kernel += !!(s->logs & INTF_LOG_KERNEL);
		t->game += !!(s->logs & INTF_LOG_GAME);
		t->exempt += s->exempt;
		t->outside += s->outside;
		if (!s->n)
			continue;
		t->suspects++;
		print_suspect(s, e, added);
		if (!add)
			continue;
		if (e) {
			add->already += !added;
			continue;
		}
		line = entry_line(s, path);
		if (!line) {
			warn_msg("%s: neither its name nor a run_id can name it in %s: not written",
				 s->name, path);
			continue;
		}
		/* the same run named twice (a batch and its run) is added once */
		if (interfered_parse(listed, line, path, &err) == 0) {
			strbuf_addstr(&add->lines, line);
			add->appended++;
		}
		free(line);
	}
	strbuf_release(&err);
}

int cmd_interference_scan(int argc, char **argv, struct context *ctx)
{
	struct scan_args a = { 0 };
	const char *dirs[1 + ARRAY_SIZE(ctx->gamedb_dirs)];
	struct interfered_list listed;
	struct argv_list list;
	struct intf_scan *scans = NULL;
	struct scan_totals t = { 0 };
	struct scan_additions add = { .lines = STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	char *path;
	int ret = parse_options(argc, argv, &a);

	if (ret != HB_EXIT_OK)
		return hb_args_exit(ret);
	dirs[0] = a.gamedb;
	for (size_t i = 0; i < ARRAY_SIZE(ctx->gamedb_dirs); i++)
		dirs[i + 1] = ctx->gamedb_dirs[i];

	/* the interfered file first: a bad one stops everything (it need not exist) */
	path = a.interfered_path ? xstrdup(a.interfered_path) : xasprintf("%s/interfered.txt", ctx->results_dir);
	interfered_init(&listed);
	argv_init(&list);
	if (interfered_read(&listed, path, 1, &err) < 0) {
		error_msg("%s", err.buf);
		ret = HB_EXIT_USAGE;
		goto out;
	}
	ret = rundir_args_expand(argv + optind, argc - optind, &list);
	if (ret != HB_EXIT_OK)
		goto out;
	scans = zalloc((list.n ? list.n : 1) * sizeof(*scans));
	if (!scan_runs(&list, dirs, ARRAY_SIZE(dirs), scans)) {
		error_msg("nothing written: fix the files above first");
		ret = HB_EXIT_USAGE;
		goto out;
	}
	list_suspects(scans, list.n, &listed, path, a.write ? &add : NULL, &t);
	print_notes(&t);
	if (a.write) {
		int r = add.lines.len ? append_file(path, add.lines.buf) : 0;

		if (r < 0) {
			error_msg("cannot append to '%s': %s", path, strerror(-r));
			ret = HB_EXIT_FAILURE;
			goto out;
		}
		printf("# --write: %zu run%s added to %s, %zu already listed there\n", add.appended,
		       add.appended == 1 ? "" : "s", path, add.already);
	}
	ret = t.suspects ? HB_EXIT_SUSPECTS : HB_EXIT_OK;
out:
	for (size_t i = 0; scans && i < list.n; i++)
		intf_scan_release(&scans[i]);
	free(scans);
	argv_release(&list);
	interfered_release(&listed);
	strbuf_release(&err);
	strbuf_release(&add.lines);
	free(path);
	return ret;
}
