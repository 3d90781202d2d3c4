/*
 * hitchbench-profrec: the profile recorder (the PROFILE switch). Beside a
 * game it samples where the game's threads spend their CPU time: the
 * kernel's software CPU clock on each thread, every 1/hz s of CPU time the
 * thread runs (--hz, 999 by default), each sample with the kernel's call
 * chain and the user's as far as frame pointers lead (profrec-perf.c).
 * The samples go to a live record in the run's staging directory, packed
 * into the run directory (profile.rec.zst, common/formats/profilerecord.h)
 * when it ends; `hitchbench profile` names their functions after the run.
 *
 * It must cost the game as little as it can: the kernel's sampling is
 * the game's cost (an interrupt and a stack walk per sample, charged to
 * the thread sampled: measured by flipping PROFILE in one run,
 * docs/profile.md); reading the rings is the recorder's, on a timer
 * (--drain-ms, 100), at nice 10, and said at the end: its CPU time per
 * sample and as a share of one CPU.
 *
 * The game's pid comes with --pid, or later with sigqueue(SIGUSR1) (the
 * switch sends it at every pass); SIGUSR2 pauses and resumes it (a flip
 * run, common/system/helperproc.h); SIGTERM ends it.
 */
#include "base/exitcodes.h"
#include "base/message.h"
#include "base/timeutil.h"
#include "formats/profilerecord.h"
#include "profrec-internal.h"
#include "system/fsroot.h"
#include "system/helperproc.h"
#include "system/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct args {
	const char *out, *live, *ready;
	int pid, hz, pages, max_stack, drain_ms, niceness, duration_s;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hitchbench-profrec --out FILE --live FILE [--pid PID] [--hz N] [--pages N]\n"
		"                          [--max-stack N] [--drain-ms N] [--nice N] [--duration S]\n"
		"                          [--ready FILE]\n"
		"  --out FILE        the packed record (profile.rec.zst) written when it ends\n"
		"  --live FILE       the record as it grows (a tmpfs file: the run's staging dir)\n"
		"  --pid PID         follow PID and its session now (else: the pids SIGUSR1 brings)\n"
		"  --hz N            samples per second of a thread's CPU time (default 999)\n"
		"  --pages N         ring buffer pages per thread event (default 128, a power of 2)\n"
		"  --max-stack N     frames a call chain keeps, kernel and user (default 64)\n"
		"  --drain-ms N      how often the rings are read (default 100)\n"
		"  --nice N          scheduling niceness (default 10)\n"
		"  --duration S      stop after S seconds (default: at SIGTERM)\n"
		"  --ready FILE      created once it takes signals\n");
}

/* The parser contract (exitcodes.h): HB_EXIT_OK, HB_ARGS_DONE or the exit code. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "live", required_argument, NULL, 'l' },
		{ "pid", required_argument, NULL, 'p' },
		{ "hz", required_argument, NULL, 'z' },
		{ "pages", required_argument, NULL, 'g' },
		{ "max-stack", required_argument, NULL, 'm' },
		{ "drain-ms", required_argument, NULL, 'd' },
		{ "nice", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'D' },
		{ "ready", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, r = 0;

	*a = (struct args){ .hz = 999, .pages = 128, .max_stack = 64, .drain_ms = 100, .niceness = 10 };
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1 && r == 0) {
		switch (opt) {
		case 'o': a->out = optarg; break;
		case 'l': a->live = optarg; break;
		case 'r': a->ready = optarg; break;
		case 'p': r = opt_int_range("--pid", optarg, 1, 1 << 30, &a->pid); break;
		case 'z': r = opt_int_range("--hz", optarg, 1, 100000, &a->hz); break;
		case 'g': r = opt_int_range("--pages", optarg, 1, 1 << 16, &a->pages); break;
		case 'm': r = opt_int_range("--max-stack", optarg, 1, HB_PROFREC_MAX_FRAMES, &a->max_stack); break;
		case 'd': r = opt_int_range("--drain-ms", optarg, 1, 10000, &a->drain_ms); break;
		case 'n': r = opt_int_range("--nice", optarg, -20, 19, &a->niceness); break;
		case 'D': r = opt_int_range("--duration", optarg, 1, 1 << 24, &a->duration_s); break;
		case 'h': usage(stdout); return HB_ARGS_DONE;
		default: usage(stderr); return HB_EXIT_USAGE;
		}
	}
	if (r)
		return r;
	if (a->pages & (a->pages - 1)) {
		error_msg("--pages: want a power of 2, not %d", a->pages);
		return HB_EXIT_USAGE;
	}
	if (optind != argc || !a->out || !a->live) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	return 0;
}

static void put_meta_num(struct strbuf *sb, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	profrec_put_meta(sb, key, buf);
}

/* The header and what the recorder found, before any data line. */
static void start_record(struct profrec_state *s, const struct args *a)
{
	char release[128], buf[160];
	struct strbuf why = STRBUF_INIT;

	profrec_put_header(&s->line);
	put_meta_num(&s->line, "hz", (uint64_t)a->hz);
	put_meta_num(&s->line, "period_ns", 1000000000ull / (uint64_t)a->hz);
	profrec_put_meta(&s->line, "clock", "CLOCK_MONOTONIC");
	profrec_put_meta(&s->line, "event", "software cpu-clock per thread, inherited");
	put_meta_num(&s->line, "max_stack", (uint64_t)a->max_stack);
	put_meta_num(&s->line, "ring_pages", (uint64_t)a->pages);
	if (fsroot_read_line("proc/sys/kernel/osrelease", release, sizeof(release)) == 0)
		profrec_put_meta(&s->line, "kernel", release);
	s->have_ksyms = ksyms_load(&s->ksyms, "proc/kallsyms", &why) == 0;
	snprintf(buf, sizeof(buf), "%s", s->have_ksyms ? "proc/kallsyms" : why.buf);
	profrec_put_meta(&s->line, "kernel_symbols", buf);
	strbuf_release(&why);
}

/* The trailer: what it recorded and what it cost. */
static void end_record(const struct profrec_state *s, struct kvfile *t, size_t events, uint64_t wall_ns,
		       uint64_t cpu_ns, const char *stop)
{
	kvfile_addf(t, "samples", "%" PRIu64, s->samples);
	kvfile_addf(t, "stacks", "%zu", s->n_stack);
	kvfile_addf(t, "threads", "%zu", s->n_thread);
	kvfile_addf(t, "maps", "%" PRIu64, s->maps);
	kvfile_addf(t, "lost", "%" PRIu64, s->lost);
	kvfile_addf(t, "events", "%zu", events);
	if (s->open_errors)
		kvfile_addf(t, "open_errors", "%" PRIu64 " (first: %s)", s->open_errors, s->first_open_error);
	kvfile_addf(t, "drains", "%" PRIu64, s->drains);
	kvfile_addf(t, "bytes", "%" PRIu64, s->bytes);
	kvfile_addf(t, "drain_cpu_us", "%" PRIu64, s->drain_ns / 1000);
	kvfile_addf(t, "cpu_us", "%" PRIu64, cpu_ns / 1000);
	kvfile_addf(t, "wall_us", "%" PRIu64, wall_ns / 1000);
	kvfile_addf(t, "cpu_pct", "%.3f", wall_ns ? 100.0 * (double)cpu_ns / (double)wall_ns : 0.0);
	kvfile_addf(t, "ns_per_sample", "%.0f", s->samples ? (double)s->drain_ns / (double)s->samples : 0.0);
	kvfile_add(t, "stop", stop);
}

/* After its setup (docs/man/hitchbench-profrec.1, PRIVILEGES): its loop
 * opens perf events on each pass's game threads, another user's, and reads
 * their maps and the build ids of the files they map. Each kept capability
 * was measured by taking it away: CAP_PERFMON (without it no sample at
 * all; it also lets it read another user's maps, CAP_SYS_PTRACE is not
 * needed), CAP_CHECKPOINT_RESTORE (map_files: the very file mapped, not a
 * name the game may have changed since), CAP_DAC_READ_SEARCH (a file in
 * the game's 0700 directories by name, where map_files has lost the range:
 * the hook in the staging directory). */
static const int narrowed_to[] = { CAP_PERFMON, CAP_DAC_READ_SEARCH, CAP_CHECKPOINT_RESTORE };

static int run(const struct args *a)
{
	struct profrec_state s;
	struct strbuf err = STRBUF_INIT;
	struct kvfile trailer;
	uint64_t t0 = mono_ns(), c0, w0, next, end_at;
	size_t events;
	char self[SANDBOX_FD_PATH_LEN];
	int ret = HB_EXIT_FAILURE, live_fd = -1, fd;

	profrec_state_init(&s);
	kvfile_init(&trailer);
	s.hz = (unsigned)a->hz;
	s.pages = (unsigned)a->pages;
	s.max_stack = (unsigned)a->max_stack;
	/* never through a symlink the game user put in its staging directory */
	fd = open(a->live, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	s.live = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!s.live) {
		error_msg("cannot create '%s': %s", a->live, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	start_record(&s, a);
	if (profrec_probe(&s, &err) < 0) {
		/* no record at all rather than a header without samples */
		error_msg("%s", err.buf);
		fclose(s.live);
		s.live = NULL;
		unlink(a->live);
		goto out;
	}
	profrec_drain(&s);
	/* its cost from here: the kernel's symbols read and sorted before
	 * the game starts are not the game's business */
	c0 = self_cpu_ns();
	w0 = mono_ns();
	if (a->pid)
		profrec_follow(&s, a->pid);
	helper_ready(a->ready);
	if (sandbox_narrow(narrowed_to, ARRAY_SIZE(narrowed_to), (const char *[]){ a->out, NULL }, msg_lines) < 0)
		goto out;
	next = mono_ns();
	end_at = a->duration_s ? t0 + (uint64_t)a->duration_s * 1000000000ull : UINT64_MAX;
	while (!helper_stop_sig && mono_ns() < end_at) {
		pid_t pid = helper_take_pid();

		if (pid > 0)
			profrec_follow(&s, pid);
		if (helper_paused() != s.paused)
			profrec_pause(&s, helper_paused());
		profrec_drain(&s);
		if (s.paused) {
			helper_wait_resumed(0);
			continue;
		}
		if (mono_ns() >= next) {
			next += (uint64_t)a->drain_ms * 1000000ull;
			if (next < mono_ns())
				next = mono_ns();
		}
		/* one sleep: a signal (a pid, a pause, the end) ends it early,
		 * so a flip's pause acts at once, not at the next drain */
		if (!helper_stop_sig)
			sleep_until_signal(next);
	}
	profrec_drain(&s);
	events = s.n_ev;
	profrec_close(&s);
	/* read back through the file it wrote, not by its name (sandbox.h) */
	live_fd = dup(fileno(s.live));
	if (live_fd < 0)
		strbuf_addf(&err, "%s: %s", a->live, strerror(errno));
	fclose(s.live);
	s.live = NULL;
	end_record(&s, &trailer, events, mono_ns() - w0, self_cpu_ns() - c0, helper_stop_sig == SIGINT ? "SIGINT" :
		   helper_stop_sig == SIGTERM ? "SIGTERM" : "duration");
	if (live_fd < 0 || profrec_pack(sandbox_fd_path(live_fd, self), a->out, &trailer, &err) < 0) {
		error_msg("%s", err.buf);
		goto out;
	}
	unlink(a->live);
	/* the line the switch puts into bench.txt */
	printf("profrec: %" PRIu64 " samples, %zu threads, %zu stacks, %" PRIu64 " lost; the recorder "
	       "%s%% of one CPU, %s ns a sample\n", s.samples, s.n_thread, s.n_stack, s.lost,
	       kvfile_get(&trailer, "cpu_pct"), kvfile_get(&trailer, "ns_per_sample"));
	fflush(stdout);
	ret = 0;
out:
	if (s.live)
		fclose(s.live);
	if (live_fd >= 0)
		close(live_fd);
	kvfile_release(&trailer);
	strbuf_release(&err);
	profrec_state_release(&s);
	return ret;
}

int main(int argc, char **argv)
{
	struct args a;
	int r;

	msg_program("hitchbench-profrec");
	r = parse_args(argc, argv, &a);
	if (r)
		return r == HB_ARGS_DONE ? 0 : r;
	helper_signals_install();
	if (setpriority(PRIO_PROCESS, 0, a.niceness) < 0)
		warn_msg("cannot set nice %d: %s", a.niceness, strerror(errno));
	return run(&a);
}
