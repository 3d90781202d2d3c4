/*
 * hitchbench-stallrec: the stall recorder. Beside a game (the STALLS
 * switch) it samples, every period (10 ms by default), what the game's main
 * thread is doing and what the machine's memory and disks are doing, into
 * a live record in /dev/shm (common/formats/stallrecord.h), packed into the run
 * directory (stalls.rec.zst) when it ends. hitchbench stalls then gives
 * every stall frame a cause (docs/stalls.md).
 *
 * It must not change what it measures. Every file it reads is opened once
 * (again only when the game's pid changes) and re-read with pread into
 * static buffers; a sample allocates nothing, logs nothing and takes no
 * lock the game takes; it sleeps to absolute deadlines at a low priority
 * (nice 10 unless --nice says otherwise). It measures its own CPU time,
 * per sample and per part, and ends with a line saying what it cost.
 *
 * The game's pid comes with --pid, or later with SIGUSR1 sent by sigqueue()
 * with the pid as its value (the switch does that at every pass). The
 * record's "pid" column says which process each sample is of; a process
 * that presents frames (the frame file's records name it) takes over from
 * a wrapper that launched it.
 *
 * With --bpf it records the game's threads from the kernel's own events
 * as well (stallrec-bpf.c: every wait, its cause and its waker, into
 * waits.rec.zst), and samples the machine at --bpf-period-ms (100) for what
 * BPF does not see (memory counters, PSI). Where BPF cannot start it says
 * why and samples at --period-ms as without it.
 */
#include "base/message.h"
#include "stallrec-internal.h"
#include "system/cpulist.h"
#include "base/exitcodes.h"
#include "system/helperproc.h"
#include "system/fsroot.h"
#include "system/sandbox.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <linux/capability.h>
#include <time.h>
#include <unistd.h>

static const char *const part_names[P_COUNT] = {
	"main", "proc", "delay", "psi", "vmstat", "disks", "x", "kswapd", "gpu", "stack",
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hitchbench-stallrec --out FILE [--live FILE] [--pid PID] [--period-ms N]\n"
		"                           [--frames FILE] [--xserver PID] [--cpu LIST] [--nice N]\n"
		"                           [--duration S] [--nowrite] [--ready FILE] [--cgroup DIR]\n"
		"                           [--bpf FILE] [--bpf-live FILE] [--bpf-period-ms N]\n"
		"                           [--bpf-min-us N] [--bpf-stack-us N]\n"
		"                           [--bpf-faults counters|tracepoint|perf] [--bpf-all-threads]\n"
		"\n"
		"  --out FILE       the packed record when it ends (stalls.rec.zst)\n"
		"  --live FILE      the live record while it runs (default /dev/shm/hitchbench-stallrec.PID)\n"
		"  --pid PID        the game; later pids come by sigqueue(SIGUSR1, pid)\n"
		"  --period-ms N    one sample every N ms (default 10)\n"
		"  --frames FILE    the run's frame file, for the presents so far\n"
		"  --xserver PID    the X server to watch (default: the first Xorg/Xvfb/Xwayland)\n"
		"  --cpu LIST       run on these CPUs only\n"
		"  --nice N         scheduling niceness (default 10)\n"
		"  --duration S     stop after S seconds (default: at SIGTERM or SIGINT)\n"
		"  --nowrite        sample without writing the record (the recorder's own effect)\n"
		"  --ready FILE     create FILE once sampling can start (and a pid be sent)\n"
		"  --cgroup DIR     the game's own cgroup (v2): its PSI files, not the system's\n"
		"  --bpf FILE       also record every wait of the game's threads from the kernel's\n"
		"                   events (BPF) into FILE (waits.rec.zst); falls back to sampling,\n"
		"                   saying why, where BPF cannot start\n"
		"  --bpf-live FILE  its live record (default /dev/shm/hitchbench-waits.PID)\n"
		"  --bpf-period-ms N  the sampling period while BPF records (default 100)\n"
		"  --bpf-min-us N   record off-CPU intervals from N us (default 1000)\n"
		"  --bpf-stack-us N  kernel stacks of the main thread's sleeps from N us, and of\n"
		"                   their wakers (default 10000: a stack walk costs tens of us)\n"
		"  --bpf-faults counters|tracepoint|perf  a thread's page faults from its own\n"
		"                   counters at each switch (default), x86's tracepoint (with\n"
		"                   the last fault's address) or the major-fault perf event\n"
		"  --bpf-all-threads  a line for every wait of every thread (default: of each\n"
		"                   process's main thread, the others' counted in the trailer)\n"
		"\n"
		"Files under /proc and /sys are read below $HITCHBENCH_ROOT (default /); the\n"
		"record's format is docs/formats.md's \"Stall record\".\n");
}

/* The mean CPU time inside a light (0) or full (1) sample, us, over those
 * measured (one in WORK_EVERY). */
static double work_us(const struct recorder *rc, int full)
{
	return rc->work_n[full] ? (double)rc->work_ns[full] / 1e3 / (double)rc->work_n[full] : 0;
}

static void cost_line(const struct recorder *rc, uint64_t cpu_ns, uint64_t wall_ns,
		      struct kvfile *trailer)
{
	double per = rc->samples ? (double)cpu_ns / 1e3 / (double)rc->samples : 0;
	double pct = wall_ns ? 100.0 * (double)cpu_ns / (double)wall_ns : 0;
	uint64_t light = rc->samples - rc->full_samples;
	/* the work of a sample, without the wakeup that starts it (which a
	 * thread sleeping to any deadline pays: on a VM, tens of us) */
	double work = rc->samples ? (work_us(rc, 0) * (double)light +
				     work_us(rc, 1) * (double)rc->full_samples) / (double)rc->samples : 0;

	fprintf(stderr, "stallrec: %llu samples, own CPU %.3f s (%.2f%% of a thread, %.1f us a sample); "
		"the sampling itself %.1f us a sample (%llu light %.1f us, %llu full %.1f us), the "
		"rest is waking up\n",
		(unsigned long long)rc->samples, (double)cpu_ns / 1e9, pct, per, work,
		(unsigned long long)light, work_us(rc, 0), (unsigned long long)rc->full_samples,
		work_us(rc, 1));
	kvfile_addf(trailer, "samples", "%llu", (unsigned long long)rc->samples);
	kvfile_addf(trailer, "cpu_us", "%llu", (unsigned long long)(cpu_ns / 1000));
	kvfile_addf(trailer, "wall_us", "%llu", (unsigned long long)(wall_ns / 1000));
	kvfile_addf(trailer, "us_per_sample", "%.2f", per);
	kvfile_addf(trailer, "cpu_pct", "%.3f", pct);
	kvfile_addf(trailer, "full_samples", "%llu", (unsigned long long)rc->full_samples);
	kvfile_addf(trailer, "work_us_per_sample", "%.2f", work);
	kvfile_addf(trailer, "work_us_light", "%.2f", work_us(rc, 0));
	kvfile_addf(trailer, "work_us_full", "%.2f", work_us(rc, 1));
	kvfile_addf(trailer, "late_samples", "%llu", (unsigned long long)rc->late);
	kvfile_addf(trailer, "missed_deadlines", "%llu", (unsigned long long)rc->missed);
	kvfile_addf(trailer, "stacks", "%llu", (unsigned long long)rc->stacks);
	{
		uint64_t pauses, paused_ns;

		helper_pause_stats(&pauses, &paused_ns);
		if (pauses)
			kvfile_addf(trailer, "paused", "%llu times, %.3f s in all (a flip run's side without the "
				    "recorder: no rows then)", (unsigned long long)pauses, (double)paused_ns / 1e9);
	}
	kvfile_addf(trailer, "cost_how", "own thread CPU time over all samples; the sampling "
		    "itself (work_us_*) by the thread CPU clock around one sample in %d; a full "
		    "row's parts by the same clock on one full row in %d (main: the wait channel "
		    "and system call; the main thread's state, read on every row, is not a part)",
		    WORK_EVERY, PART_EVERY);
	for (int p = 0; p < P_COUNT; p++) {
		char key[32];

		snprintf(key, sizeof(key), "cost.%s_ns", part_names[p]);
		kvfile_addf(trailer, key, "%.0f",
			    rc->part_samples ? (double)rc->part_ns[p] / (double)rc->part_samples : 0);
	}
}

static const char *stop_name(void)
{
	return helper_stop_sig == SIGINT ? "SIGINT" : helper_stop_sig == SIGTERM ? "SIGTERM" : "duration";
}

/* A frame file the game tampered with, said once on stderr (the STALLS
 * switch marks the run invalid from this line) and in the trailer: the
 * recorder goes on sampling, with the frame count it last trusted. */
static void say_frames_tampered(struct recorder *rc, struct kvfile *trailer)
{
	const char *why = rc->have_frames ? hb_frames_view_tampered(&rc->frames) : NULL;

	if (!why)
		return;
	if (!rc->frames_said)
		fprintf(stderr, "stallrec-frames: tampered: %s\n", why);
	rc->frames_said = true;
	if (trailer)
		kvfile_addf(trailer, "frames", "tampered: %s", why);
}

/* Packs the live record into the run directory. */
static int finish(struct recorder *rc, uint64_t cpu_ns, uint64_t wall_ns)
{
	struct strbuf err = STRBUF_INIT;
	struct stallrec r;
	char self[SANDBOX_FD_PATH_LEN];
	int ret = 0, live_fd;

	if (rc->have_frames) {
		hb_frames_view_check(&rc->frames);
		say_frames_tampered(rc, NULL);
	}
	if (rc->nowrite) {
		struct kvfile t;

		kvfile_init(&t);
		cost_line(rc, cpu_ns, wall_ns, &t);
		kvfile_release(&t);
		return 0;
	}
	if (rc->live.h && rc->live.h->count >= rc->live.h->capacity)
		error_msg("the record filled up after %llu samples",
			(unsigned long long)rc->live.h->count);
	/* read back through the file it made, not by its name (sandbox.h) */
	live_fd = dup(rc->live.fd);
	stallrec_live_close(&rc->live);
	ret = live_fd < 0 ? -errno : stallrec_load(sandbox_fd_path(live_fd, self), &r, &err);
	if (ret == 0) {
		cost_line(rc, cpu_ns, wall_ns, &r.trailer);
		say_frames_tampered(rc, &r.trailer);
		kvfile_add(&r.trailer, "stop", stop_name());
		ret = stallrec_write(&r, rc->out_path, &err);
		stallrec_release(&r);
	}
	if (ret < 0)
		error_msg("%s (the live record stays at %s)", err.len ? err.buf : strerror(-ret),
			rc->live_path);
	else
		unlink(rc->live_path);
	if (live_fd >= 0)
		close(live_fd);
	strbuf_release(&err);
	return ret;
}

/* What main is told beyond the recorder's own fields. */
struct args {
	int period_ms, niceness, pid, duration_s;
	const char *cpus, *ready;
	int bpf_period_ms, bpf_min_us, bpf_stack_us;
	struct stallbpf_opts bpf;
};

/* Every fd closed (-1) before anything is opened. */
static void recorder_reset(struct recorder *rc)
{
	memset(rc, 0, sizeof(*rc));
	rc->vmstat_fd = rc->x_stat_fd = rc->x_wchan_fd = -1;
	rc->psi_fd[0] = rc->psi_fd[1] = rc->psi_fd[2] = -1;
	rc->ts.fd = -1;
	rc->g.stat_fd = rc->g.task_stat_fd = rc->g.wchan_fd = rc->g.syscall_fd = -1;
	rc->g.schedstat_fd = rc->g.stack_fd = rc->g.fd_dir = -1;
	rc->last_pair_us = -1;
}

/* One option into rc or a. The parser contract (exitcodes.h): HB_EXIT_OK, HB_ARGS_DONE or the exit code. */
static int parse_one(int opt, struct recorder *rc, struct args *a)
{
	switch (opt) {
	case 'o': rc->out_path = optarg; return 0;
	case 'l': rc->live_path = optarg; return 0;
	case 'f': rc->frames_path = optarg; return 0;
	case 'c': a->cpus = optarg; return 0;
	case 'W': rc->nowrite = true; return 0;
	case 'r': a->ready = optarg; return 0;
	case 'g': rc->cgroup_dir = optarg; return 0;
	case 'p': return opt_int_range("--pid", optarg, 1, 1 << 30, &a->pid);
	case 'P': return opt_int_range("--period-ms", optarg, 1, 60000, &a->period_ms);
	case 'x': return opt_int_range("--xserver", optarg, 1, 1 << 30, &rc->x_pid);
	case 'n': return opt_int_range("--nice", optarg, -20, 19, &a->niceness);
	case 'd': return opt_int_range("--duration", optarg, 1, 1 << 24, &a->duration_s);
	case 'B': a->bpf.out_path = optarg; return 0;
	case 'L': a->bpf.live_path = optarg; return 0;
	case 'Q': return opt_int_range("--bpf-period-ms", optarg, 1, 60000, &a->bpf_period_ms);
	case 'M': return opt_int_range("--bpf-min-us", optarg, 1, 1000000, &a->bpf_min_us);
	case 'K': return opt_int_range("--bpf-stack-us", optarg, 1, 10000000, &a->bpf_stack_us);
	case 'F':
		if (strcmp(optarg, "counters") == 0)
			a->bpf.faults = STALLBPF_FAULTS_COUNTERS;
		else if (strcmp(optarg, "tracepoint") == 0)
			a->bpf.faults = STALLBPF_FAULTS_TRACEPOINT;
		else if (strcmp(optarg, "perf") == 0)
			a->bpf.faults = STALLBPF_FAULTS_PERF;
		else {
			error_msg("--bpf-faults: counters, tracepoint or perf, not '%s'", optarg);
			return HB_EXIT_USAGE;
		}
		return 0;
	case 'A': a->bpf.all_threads = true; return 0;
	case 'h': usage(stdout); return HB_ARGS_DONE;
	default: usage(stderr); return HB_EXIT_USAGE;
	}
}

/* The parser contract (exitcodes.h): HB_EXIT_OK, HB_ARGS_DONE or the exit code. */
static int parse_args(int argc, char **argv, struct recorder *rc, struct args *a)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "live", required_argument, NULL, 'l' },
		{ "pid", required_argument, NULL, 'p' },
		{ "period-ms", required_argument, NULL, 'P' },
		{ "frames", required_argument, NULL, 'f' },
		{ "xserver", required_argument, NULL, 'x' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "nice", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "nowrite", no_argument, NULL, 'W' },
		{ "ready", required_argument, NULL, 'r' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "bpf", required_argument, NULL, 'B' },
		{ "bpf-live", required_argument, NULL, 'L' },
		{ "bpf-period-ms", required_argument, NULL, 'Q' },
		{ "bpf-min-us", required_argument, NULL, 'M' },
		{ "bpf-faults", required_argument, NULL, 'F' },
		{ "bpf-stack-us", required_argument, NULL, 'K' },
		{ "bpf-all-threads", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, r;

	*a = (struct args){ .period_ms = 10, .niceness = 10, .bpf_period_ms = 100, .bpf_min_us = 1000,
			    .bpf_stack_us = 10000 };
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		if ((r = parse_one(opt, rc, a)) != 0)
			return r;
	if (optind != argc || (!rc->out_path && !rc->nowrite)) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	return 0;
}

/* Signals, niceness, CPUs. 0, or -1 (a bad --cpu, said). */
static int set_up_process(const struct args *a)
{
	/* signals first: the switch sends the game's pid as soon as the live
	 * record exists, and that is created last */
	helper_signals_install();
	if (setpriority(PRIO_PROCESS, 0, a->niceness) < 0)
		error_msg("cannot set nice %d: %s", a->niceness,
			strerror(errno));
	if (a->cpus) {
		cpu_set_t set;

		if (cpu_list_parse(a->cpus, &set) < 0 || sched_setaffinity(0, sizeof(set), &set) < 0) {
			error_msg("--cpu %s: not CPUs this machine has",
				a->cpus);
			return -1;
		}
	}
	return 0;
}

/* Finds what this machine offers and opens it, each said in meta. */
static void find_sources(struct recorder *rc, int pid, struct strbuf *meta)
{
	char release[128];

	strbuf_addf(meta, "period_us=%llu\n", (unsigned long long)(rc->period_ns / 1000));
	strbuf_addf(meta, "clock_pair=%llu %llu\n", (unsigned long long)mono_ns(),
		    (unsigned long long)real_ns());
	strbuf_addf(meta, "clk_tck=%ld\n", sysconf(_SC_CLK_TCK));
	strbuf_addf(meta, "root=%s\n", fsroot());
	if (fsroot_read_line("proc/sys/kernel/osrelease", release, sizeof(release)) == 0)
		strbuf_addf(meta, "kernel=%s\n", release);
	choose_delay_source(rc, meta);
	choose_schedstat(rc, meta);
	rc->stack_ok = geteuid() == 0;
	strbuf_addf(meta, "sources.stack=%s\n", rc->stack_ok ? "yes (blocked 50 ms, every 250 ms, "
		    "1000 at most)" : "no (not root)");
	open_vmstat(rc);
	find_disks(rc);
	describe_swaps(meta);
	find_processes(rc);
	if (rc->x_pid) {
		struct proc_stat st;

		rc->x_stat_fd = open_rel("proc/%d/stat", rc->x_pid);
		rc->x_wchan_fd = open_rel("proc/%d/wchan", rc->x_pid);
		strbuf_addf(meta, "sources.x=%d %s\n", rc->x_pid,
			    proc_stat_read(rc->x_pid, &st) == 0 ? st.comm : "?");
	} else {
		strbuf_addstr(meta, "sources.x=none (no X server found)\n");
	}
	strbuf_addf(meta, "sources.kswapd=%zu\n", rc->n_kswapd);
	if (rc->frames_path) {
		const char *why = NULL;
		int r = hb_frames_view_open(&rc->frames, rc->frames_path, &why);

		rc->have_frames = r == 0;
		if (r < 0)
			strbuf_addf(meta, "sources.frames=none (%s: %s)\n", rc->frames_path,
				    r == -EINVAL && why ? why : strerror(-r));
	}
	if (rc->have_frames || !rc->frames_path)
		strbuf_addf(meta, "sources.frames=%s\n", rc->have_frames ? rc->frames_path : "none");
	strbuf_addstr(meta, "sources.gpu=drm fdinfo (drm-total-*) of the fds found 1, 5 and 30 s "
		      "in, on every 10th full row\n");
	open_psi(rc, pid, meta);
	game_open(rc, pid);
}

/* With --bpf: the kernel's events too, and the sampling period for what
 * they do not cover; where BPF cannot start, why, and the period as asked. */
static void start_bpf(struct recorder *rc, struct args *a, struct strbuf *meta)
{
	struct strbuf why = STRBUF_INIT;

	if (!a->bpf.out_path)
		return;
	a->bpf.min_off_ns = (uint64_t)a->bpf_min_us * 1000;
	a->bpf.stack_min_ns = (uint64_t)a->bpf_stack_us * 1000;
	rc->bpf = stallbpf_start(&a->bpf, &why);
	if (rc->bpf) {
		rc->period_ns = (uint64_t)a->bpf_period_ms * NSEC_PER_MSEC;
		strbuf_addf(meta, "sources.bpf=yes (the wait record beside it; sampling every %d ms)\n",
			    a->bpf_period_ms);
		if (a->pid > 0)
			stallbpf_follow(rc->bpf, a->pid);
		rc->bpf_pid = a->pid;
	} else {
		/* the switch takes this line into bench.txt */
		fprintf(stderr, "stallbpf: fallback: %s; sampling every %d ms instead\n", why.buf,
			a->period_ms);
		strbuf_addf(meta, "sources.bpf=no (%s)\n", why.buf);
	}
	strbuf_release(&why);
}

/* A pid sent since the last look: opened, and followed with BPF. */
static void take_pid(struct recorder *rc)
{
	int pid = helper_take_pid();

	if (pid < 0)
		return;
	game_open(rc, pid);
	if (rc->bpf)
		stallbpf_follow(rc->bpf, pid);
}

/* A flip run's side without the recorder (sigqueue(SIGUSR2, HELPER_PAUSE),
 * helperproc.h): nothing sampled and the BPF programs detached until it is
 * resumed; the sampling record shows the pause as a gap between rows, the
 * wait record as a pause and a resume line. The next sample is due at once. */
static void pause_while_asked(struct recorder *rc, uint64_t *next)
{
	struct strbuf err = STRBUF_INIT;

	if (rc->bpf)
		stallbpf_pause(rc->bpf);
	while (helper_paused() && !helper_stop_sig) {
		helper_wait_resumed(0);
		take_pid(rc);
	}
	if (rc->bpf && !helper_stop_sig && stallbpf_resume(rc->bpf, &err) < 0)
		error_msg("BPF: the programs could not be attached again after a pause: %s", err.buf);
	strbuf_release(&err);
	*next = mono_ns();
}

/* Samples every period on absolute deadlines until a stop signal or
 * duration_s (0: none); a late sample skips the deadlines it missed. */
static void record_loop(struct recorder *rc, int duration_s)
{
	uint64_t start = mono_ns(), next = start;
	uint64_t end = duration_s ? start + (uint64_t)duration_s * NSEC_PER_SEC : 0;

	while (!helper_stop_sig && (!end || next < end)) {
		uint64_t now;
		int r;

		/* a pid arriving wakes the sleep early: it is slept again (with
		 * BPF it is followed at once, then the wait goes on) */
		r = rc->bpf ? stallbpf_wait(rc->bpf, next, &helper_stop_sig)
			    : sleep_until(next, &helper_stop_sig);
		if (r != 0 && r != 2)
			break;
		take_pid(rc);
		if (helper_paused()) {
			pause_while_asked(rc, &next);
			continue;
		}
		if (r == 2)
			continue;
		follow_presenter(rc);
		if (rc->bpf && rc->g.pid > 0 && rc->g.pid != rc->bpf_pid)
			stallbpf_follow(rc->bpf, rc->g.pid);
		rc->bpf_pid = rc->g.pid;
		sample(rc);
		if (!rc->frames_said)
			say_frames_tampered(rc, NULL);
		next += rc->period_ns;
		now = mono_ns();
		if (now > next) {
			/* late by a whole period or more: skip what cannot be kept */
			uint64_t behind = (now - next) / rc->period_ns + 1;

			rc->late++;
			rc->missed += behind;
			next += behind * rc->period_ns;
		}
	}
}

/* After its setup (docs/man/hitchbench-stallrec.1, PRIVILEGES): what the
 * loop still opens is the /proc files of each pass's game, another user's:
 * CAP_SYS_PTRACE (wchan, syscall, the fd names), CAP_DAC_READ_SEARCH
 * (syscall and stack are mode 0400, the game's), CAP_SYS_ADMIN (the kernel
 * stack is root's alone), each measured by taking it away (CAP_PERFMON,
 * which lets profrec read maps, does not do for these). Its live
 * record, in the run's staging directory, it reads back through its own
 * fd (sandbox_fd_path). */
static const int narrowed_to[] = { CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_SYS_ADMIN };

int main(int argc, char **argv)
{
	static struct recorder rc;
	struct strbuf meta = STRBUF_INIT, err = STRBUF_INIT;
	struct args a;
	uint64_t start, cpu0;
	char *live_default = NULL, *bpf_live_default = NULL;
	int r;

	msg_program("hitchbench-stallrec");

	recorder_reset(&rc);
	r = parse_args(argc, argv, &rc, &a);
	if (r != 0)
		return hb_args_exit(r);
	if (set_up_process(&a) < 0)
		return HB_EXIT_USAGE;
	rc.period_ns = (uint64_t)a.period_ms * NSEC_PER_MSEC;
	rc.clk_tck = (uint64_t)sysconf(_SC_CLK_TCK);
	if (!rc.live_path)
		rc.live_path = live_default = xasprintf("/dev/shm/hitchbench-stallrec.%d", (int)getpid());
	if (a.bpf.out_path && !a.bpf.live_path)
		a.bpf.live_path = bpf_live_default = xasprintf("/dev/shm/hitchbench-waits.%d", (int)getpid());
	start_bpf(&rc, &a, &meta);
	find_sources(&rc, a.pid, &meta);
	if (set_up_record(&rc, &meta, &err) < 0) {
		error_msg("%s", err.buf);
		return HB_EXIT_FAILURE;
	}
	strbuf_release(&meta);
	helper_ready(a.ready);
	/* CAP_SYS_ADMIN last: kept only for the stacks it reads */
	if (sandbox_narrow(narrowed_to, ARRAY_SIZE(narrowed_to) - !rc.stack_ok,
			   (const char *[]){ rc.out_path, a.bpf.out_path, NULL }, msg_lines) < 0)
		return HB_EXIT_FAILURE;
	cpu0 = thread_cpu_ns();
	start = mono_ns();
	record_loop(&rc, a.duration_s);
	r = finish(&rc, thread_cpu_ns() - cpu0 - (rc.bpf ? stallbpf_user_ns(rc.bpf) : 0),
		   mono_ns() - start);
	if (rc.bpf && stallbpf_finish(rc.bpf, stop_name(), &err) < 0) {
		error_msg("BPF: %s (the live record stays at %s)", err.buf,
			a.bpf.live_path);
		r = -1;
	}
	free(live_default);
	free(bpf_live_default);
	strbuf_release(&err);
	return r < 0 ? HB_EXIT_FAILURE : 0;
}
