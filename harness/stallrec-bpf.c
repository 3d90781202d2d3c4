/*
 * The stall recorder's BPF path (STALLS=bpf; docs/stalls.md): loads the
 * kernel program (harness/bpf/stallbpf.bpf.c, through the skeleton bpftool
 * made of it), attaches it, follows the game's processes, drains its ring
 * buffer on the recorder's clock into the live wait record
 * (common/formats/waitrecord.h; the lines are made in stallrec-bpfwrite.c), and
 * when the run ends packs the record with its cost: the kernel's own run
 * time of each program (bpf_stats) and this thread's CPU time.
 *
 * Whatever stops it from starting (no BTF, not allowed, a kernel without
 * an event it needs, a build without BPF) is said in one sentence: the
 * recorder then samples as it would without it (the fallback).
 */
#include "base/message.h"
#include "stallrec-internal.h"
#include "base/exitcodes.h"
#include "system/fsroot.h"
#include "system/sandbox.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HB_NO_BPF

struct stallbpf *stallbpf_start(const struct stallbpf_opts *o, struct strbuf *err)
{
	strbuf_addstr(err, "this build has no BPF program (a cross build, or made with STALLBPF=0)");
	return NULL;
}

void stallbpf_follow(struct stallbpf *b, pid_t pid)
{
}

int stallbpf_wait(struct stallbpf *b, uint64_t deadline_ns, const volatile sig_atomic_t *stop)
{
	return sleep_until(deadline_ns, stop);
}

int stallbpf_finish(struct stallbpf *b, const char *stop, struct strbuf *err)
{
	return 0;
}

uint64_t stallbpf_user_ns(const struct stallbpf *b)
{
	return 0;
}

void stallbpf_pause(struct stallbpf *b)
{
}

int stallbpf_resume(struct stallbpf *b, struct strbuf *err)
{
	return 0;
}

#else

#include "stallrec-bpf.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/perf_event.h>
#include <sys/epoll.h>
#include <sys/syscall.h>

/* libbpf's own messages go to the recorder's log, warnings and errors only */
static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	fputs("libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

/* Says in why what failed and the error errno holds (read before anything
 * else can change it); -errno. */
__attribute__((format(printf, 2, 3)))
static int failed(struct strbuf *err, const char *fmt, ...)
{
	int e = errno ? errno : EIO;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	strbuf_addf(err, ": %s", strerror(e));
	return -e;
}

/* Whether the running kernel has the tracepoint (its BTF type btf_trace_NAME). */
static bool have_tracepoint(const struct btf *vmlinux, const char *name)
{
	char type[96];

	snprintf(type, sizeof(type), "btf_trace_%s", name);
	return vmlinux && btf__find_by_name_kind(vmlinux, type, BTF_KIND_TYPEDEF) > 0;
}

/* What stops BPF before anything is loaded; 0 when nothing does. */
static int preflight(struct strbuf *err)
{
	int fd = fsroot_open("sys/kernel/btf/vmlinux", O_RDONLY);

	if (fd < 0) {
		strbuf_addstr(err, "the kernel has no BTF (/sys/kernel/btf/vmlinux is missing: "
			      "CONFIG_DEBUG_INFO_BTF is off)");
		return -ENOENT;
	}
	close(fd);
	return 0;
}

/* Chooses the optional programs the kernel has events for and the fault
 * counting asked for; the scheduler's switch, waking and fork are
 * required. */
static int choose_programs(struct stallbpf *b, struct strbuf *err)
{
	static const char *const required[] = {
		"sched_switch", "sched_waking", "sched_process_fork",
	};
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct stallbpf_skel *s = b->skel;
	bool fault_tp, fault_perf;

	if (!vmlinux)
		return failed(err, "cannot read the kernel's BTF");
	for (size_t i = 0; i < ARRAY_SIZE(required); i++)
		if (!have_tracepoint(vmlinux, required[i])) {
			strbuf_addf(err, "the kernel has no %s tracepoint with BTF", required[i]);
			btf__free(vmlinux);
			return -ENOENT;
		}
	b->have_rq_insert = have_tracepoint(vmlinux, "block_rq_insert");
	b->have_rq_issue = have_tracepoint(vmlinux, "block_rq_issue");
	b->have_rq_complete = have_tracepoint(vmlinux, "block_rq_complete") &&
			      (b->have_rq_insert || b->have_rq_issue);
	/* the tracepoint asked for where there is none: the perf event */
	fault_tp = b->opts.faults == STALLBPF_FAULTS_TRACEPOINT && have_tracepoint(vmlinux, "page_fault_user");
	fault_perf = b->opts.faults != STALLBPF_FAULTS_COUNTERS && !fault_tp;
	btf__free(vmlinux);
	bpf_program__set_autoload(s->progs.hb_rq_insert, b->have_rq_insert && b->have_rq_complete);
	bpf_program__set_autoload(s->progs.hb_rq_issue, b->have_rq_issue && b->have_rq_complete);
	bpf_program__set_autoload(s->progs.hb_rq_complete, b->have_rq_complete);
	bpf_program__set_autoload(s->progs.hb_fault, fault_tp);
	bpf_program__set_autoload(s->progs.hb_fault_major, fault_perf);
	b->faults_perf = fault_perf;
	b->faults_tp = fault_tp;
	return 0;
}

/* A major-fault software event on every CPU, the program on each. */
static int attach_perf_faults(struct stallbpf *b, struct strbuf *err)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_PAGE_FAULTS_MAJ,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_ADDR,
	};
	int n = libbpf_num_possible_cpus();

	b->perf_links = zalloc((size_t)(n > 0 ? n : 1) * sizeof(*b->perf_links));
	for (int cpu = 0; cpu < n; cpu++) {
		int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		struct bpf_link *l;

		if (fd < 0) {
			if (errno == ENODEV)    /* a possible CPU that is not present */
				continue;
			return failed(err, "perf_event_open(page-faults-major, cpu %d)", cpu);
		}
		l = bpf_program__attach_perf_event(b->skel->progs.hb_fault_major, fd);
		if (!l) {
			int r = failed(err, "attaching the major-fault program on cpu %d", cpu);

			close(fd);
			return r;
		}
		b->perf_links[b->n_perf_links++] = l;
	}
	return 0;
}

static int attach_all(struct stallbpf *b, struct strbuf *err)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, b->skel->obj) {
		struct bpf_link *l;

		if (!bpf_program__autoload(p) || p == b->skel->progs.hb_fault_major)
			continue;
		if (b->n_links == ARRAY_SIZE(b->links)) {
			strbuf_addf(err, "more programs than the %zu links kept", ARRAY_SIZE(b->links));
			return -E2BIG;
		}
		l = bpf_program__attach(p);
		if (!l)
			return failed(err, "cannot attach %s", bpf_program__name(p));
		b->links[b->n_links++] = l;
	}
	return b->faults_perf ? attach_perf_faults(b, err) : 0;
}

/* Every program detached (a flip run's side without the recorder): the
 * kernel runs none of them until stallbpf_resume(). */
static void detach_all(struct stallbpf *b)
{
	for (size_t i = 0; i < b->n_links; i++)
		bpf_link__destroy(b->links[i]);
	for (size_t i = 0; i < b->n_perf_links; i++)
		bpf_link__destroy(b->perf_links[i]);
	free(b->perf_links);
	b->perf_links = NULL;
	b->n_links = b->n_perf_links = 0;
}

void stallbpf_pause(struct stallbpf *b)
{
	char v[32];

	if (b->paused)
		return;
	detach_all(b);
	stallbpf_drain(b);
	b->paused = true;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)mono_ns());
	stallbpf_line(b, "pause", v);
	b->pauses++;
}

/* A thread off the CPU when the programs were detached would come back
 * with an interval spanning the pause, and a request in flight with one
 * spanning it: every thread's open interval (and its running time from
 * before the pause) belongs to the epoch before, which the programs then
 * ignore, and every request seen is forgotten (the totals are kept: a
 * line's differences are read within one stretch of recording,
 * docs/formats.md). Only while detached. */
static void forget_open(struct stallbpf *b)
{
	int rfd = bpf_map__fd(b->skel->maps.requests);
	__u64 rnext;

	b->skel->bss->epoch++;
	/* the first key again each time: the last was deleted */
	while (bpf_map_get_next_key(rfd, NULL, &rnext) == 0 && bpf_map_delete_elem(rfd, &rnext) == 0)
		;
	b->skel->bss->counts.requests_open = 0;
}

int stallbpf_resume(struct stallbpf *b, struct strbuf *err)
{
	uint64_t t0 = mono_ns();
	char v[32];
	int r;

	if (!b->paused)
		return 0;
	forget_open(b);
	r = attach_all(b, err);
	b->paused = false;
	b->resume_ns += mono_ns() - t0;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)mono_ns());
	stallbpf_line(b, "resume", v);
	return r;
}

/* Opens, sizes, loads and attaches. 0 or -errno with why. */
static int load(struct stallbpf *b, struct strbuf *err)
{
	int r;

	libbpf_set_print(libbpf_log);
	b->skel = stallbpf_skel__open();
	if (!b->skel)
		return failed(err, "cannot open the BPF program");
	b->skel->rodata->min_off_ns = b->opts.min_off_ns;
	b->skel->rodata->stack_min_ns = b->opts.stack_min_ns;
	b->skel->rodata->waits_all_threads = b->opts.all_threads;
	b->skel->rodata->fault_counters = b->opts.faults == STALLBPF_FAULTS_COUNTERS;
	if ((r = choose_programs(b, err)) < 0)
		return r;
	r = stallbpf_skel__load(b->skel);
	if (r) {
		if (r == -EPERM || r == -EACCES)
			strbuf_addf(err, "not allowed to load BPF programs (%s): needs root, or "
				    "CAP_BPF and CAP_PERFMON", strerror(-r));
		else
			strbuf_addf(err, "the kernel refused the BPF program: %s (libbpf's reason "
				    "is in the log above)", strerror(-r));
		return r;
	}
	return attach_all(b, err);
}

static void describe(struct stallbpf *b)
{
	struct bpf_program *p;
	struct strbuf progs = STRBUF_INIT;
	char v[256];

	snprintf(v, sizeof(v), "%llu", (unsigned long long)b->opts.min_off_ns);
	stallbpf_meta(b, "min_off_ns", v);
	snprintf(v, sizeof(v), "%llu (the main thread's sleeps from this long, and their wakers)",
		 (unsigned long long)b->opts.stack_min_ns);
	stallbpf_meta(b, "stack_min_ns", v);
	snprintf(v, sizeof(v), "%llu %llu", (unsigned long long)mono_ns(),
		 (unsigned long long)real_ns());
	stallbpf_meta(b, "clock_pair", v);
	if (fsroot_read_line("proc/sys/kernel/osrelease", v, sizeof(v)) == 0)
		stallbpf_meta(b, "kernel", v);
	bpf_object__for_each_program(p, b->skel->obj)
		if (bpf_program__autoload(p))
			strbuf_addf(&progs, "%s%s:%s", progs.len ? " " : "", bpf_program__name(p),
				    bpf_program__section_name(p));
	stallbpf_meta(b, "attach", progs.buf);
	strbuf_release(&progs);
	stallbpf_meta(b, "faults", b->faults_perf ? "perf page-faults-major (major faults only)"
			  : b->faults_tp ? "tracepoint exceptions:page_fault_user (every user fault)"
			  : "counters min_flt+maj_flt (every fault, no address)");
	stallbpf_meta(b, "off_threads", b->opts.all_threads ? "all"
			  : "main (each process's main thread)");
	stallbpf_meta(b, "delays", fsroot_read_line("proc/sys/kernel/task_delayacct", v, sizeof(v)) == 0 &&
			  strcmp(v, "1") == 0 ? "yes" : "no (kernel.task_delayacct=0)");
	snprintf(v, sizeof(v), "%u", (unsigned)bpf_map__max_entries(b->skel->maps.events));
	stallbpf_meta(b, "ringbuf_bytes", v);
	stallbpf_meta_devices(b);
}

struct stallbpf *stallbpf_start(const struct stallbpf_opts *o, struct strbuf *err)
{
	struct stallbpf *b = zalloc(sizeof(*b));
	sigset_t usr1;

	b->opts = *o;
	b->stats_fd = -1;
	if (preflight(err) < 0 || load(b, err) < 0 || stallbpf_writer_open(b, err) < 0) {
		stallbpf_free(b);
		return NULL;
	}
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.events), stallbpf_on_event, b, NULL);
	if (!b->rb) {
		failed(err, "cannot map the ring buffer");
		stallbpf_free(b);
		return NULL;
	}
	/* the kernel's run time of each program, for the cost; not fatal */
	b->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (b->stats_fd < 0)
		snprintf(b->stats_why, sizeof(b->stats_why), "%s", strerror(errno));
	if (ksyms_load(&b->ksyms, "proc/kallsyms", &b->ksyms_why) < 0)
		error_msg("BPF: stacks unnamed: %s", b->ksyms_why.buf);
	describe(b);
	/* a pid sent by SIGUSR1 wakes the wait at once, never between the
	 * check and the wait: it is blocked but inside epoll_pwait */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &b->wait_mask);
	sigdelset(&b->wait_mask, SIGUSR1);
	b->t0 = mono_ns();
	return b;
}

void stallbpf_follow(struct stallbpf *b, pid_t pid)
{
	struct stallbpf_skel__bss *bss = b->skel->bss;
	__u32 n = __atomic_load_n(&bss->n_follow, __ATOMIC_ACQUIRE);
	char v[64];

	for (__u32 i = 0; i < n && i < ARRAY_SIZE(bss->follow_tgid); i++)
		if (bss->follow_tgid[i] == (__u32)pid)
			return;
	n = __atomic_fetch_add(&bss->n_follow, 1, __ATOMIC_ACQ_REL);
	if (n >= ARRAY_SIZE(bss->follow_tgid)) {
		error_msg("BPF: cannot follow pid %d: %zu processes "
			"followed already", (int)pid, ARRAY_SIZE(bss->follow_tgid));
		return;
	}
	__atomic_store_n(&bss->follow_tgid[n], (__u32)pid, __ATOMIC_RELEASE);
	snprintf(v, sizeof(v), "%d\t%llu", (int)pid, (unsigned long long)mono_ns());
	stallbpf_line(b, "follow", v);
}

int stallbpf_wait(struct stallbpf *b, uint64_t deadline_ns, const volatile sig_atomic_t *stop)
{
	int epfd = ring_buffer__epoll_fd(b->rb);

	for (;;) {
		struct epoll_event ev;
		uint64_t now = mono_ns();
		int ms, n;

		if (stop && *stop)
			return 1;
		if (now >= deadline_ns)
			break;
		ms = (int)((deadline_ns - now + 999999) / 1000000);
		n = epoll_pwait(epfd, &ev, 1, ms, &b->wait_mask);
		if (n < 0 && errno == EINTR) {
			if (stop && *stop)
				return 1;
			stallbpf_drain(b);
			return 2;
		}
		if (n > 0)
			stallbpf_drain(b);     /* half full: the kernel woke us */
	}
	stallbpf_drain(b);
	return 0;
}

/* The kernel's run time of every loaded program, into the trailer. */
static void program_costs(struct stallbpf *b, struct kvfile *t, uint64_t *run_ns, uint64_t *runs)
{
	struct bpf_program *p;

	*run_ns = *runs = 0;
	bpf_object__for_each_program(p, b->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		char key[96];

		memset(&info, 0, sizeof(info));
		if (bpf_program__fd(p) < 0 || bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) < 0)
			continue;
		snprintf(key, sizeof(key), "prog.%s.run_ns", bpf_program__name(p));
		kvfile_addf(t, key, "%llu", (unsigned long long)info.run_time_ns);
		snprintf(key, sizeof(key), "prog.%s.runs", bpf_program__name(p));
		kvfile_addf(t, key, "%llu", (unsigned long long)info.run_cnt);
		*run_ns += info.run_time_ns;
		*runs += info.run_cnt;
	}
}

static void cost(struct stallbpf *b, struct kvfile *t)
{
	uint64_t wall = mono_ns() - b->t0, user = b->drain_ns, run_ns, runs;
	double kpct, upct;

	program_costs(b, t, &run_ns, &runs);
	kpct = wall ? 100.0 * (double)run_ns / (double)wall : 0;
	upct = wall ? 100.0 * (double)user / (double)wall : 0;
	kvfile_addf(t, "events", "off %llu bio %llu", (unsigned long long)b->n_off,
		    (unsigned long long)b->n_bio);
	kvfile_addf(t, "lost", "%llu", (unsigned long long)b->lost);
	if (b->pauses)
		kvfile_addf(t, "pauses", "%llu (a flip run's side without the recorder; attaching again took "
			    "%.2f ms on average)", (unsigned long long)b->pauses,
			    (double)b->resume_ns / 1e6 / (double)b->pauses);
	kvfile_addf(t, "follow_overflow", "%llu", (unsigned long long)b->skel->bss->follow_overflow);
	kvfile_addf(t, "wall_us", "%llu", (unsigned long long)(wall / 1000));
	kvfile_addf(t, "user_cpu_us", "%llu", (unsigned long long)(user / 1000));
	kvfile_addf(t, "ns_per_event", "%.0f", runs ? (double)run_ns / (double)runs : 0);
	kvfile_addf(t, "kernel_cpu_pct", "%.4f", kpct);
	kvfile_addf(t, "user_cpu_pct", "%.4f", upct);
	kvfile_add(t, "cost_how", b->stats_fd >= 0 ?
		   "kernel: the programs' own run time (bpf_stats, kernel.bpf_stats_enabled on for the "
		   "run), without the tracepoints' dispatch; user: the recorder thread's CPU time "
		   "inside its drains of the ring buffer (reading, naming, writing), its wakeups "
		   "being the sampling rows'" :
		   "kernel: not measured (bpf_stats could not be enabled); user: the recorder "
		   "thread's CPU time inside its drains of the ring buffer");
	if (b->stats_fd < 0)
		kvfile_add(t, "bpf_stats", b->stats_why);
	fprintf(stderr, "stallbpf: %llu waits and %llu block requests recorded (%llu lost); kernel "
		"%.3f ms over %llu program runs (%.0f ns a run, %.4f%% of a CPU); user %.3f ms "
		"(%.4f%% of a CPU); over %.1f s\n", (unsigned long long)b->n_off,
		(unsigned long long)b->n_bio, (unsigned long long)b->lost, (double)run_ns / 1e6,
		(unsigned long long)runs, runs ? (double)run_ns / (double)runs : 0, kpct,
		(double)user / 1e6, upct, (double)wall / 1e9);
}

uint64_t stallbpf_user_ns(const struct stallbpf *b)
{
	return b->drain_ns;
}

int stallbpf_finish(struct stallbpf *b, const char *stop, struct strbuf *err)
{
	char self[SANDBOX_FD_PATH_LEN];
	struct kvfile t;
	int r, live_fd;

	stallbpf_drain(b);
	kvfile_init(&t);
	cost(b, &t);
	kvfile_add(&t, "stop", stop);
	/* read back through the file it wrote, not by its name (sandbox.h) */
	live_fd = b->out ? dup(fileno(b->out)) : -1;
	stallbpf_writer_close(b);
	if (live_fd < 0) {
		r = -EBADF;
		strbuf_addf(err, "%s: the live wait record is not open", b->opts.live_path);
	} else {
		r = waitrec_pack(sandbox_fd_path(live_fd, self), b->opts.out_path, &t, err);
		close(live_fd);
	}
	if (r == 0)
		unlink(b->opts.live_path);
	kvfile_release(&t);
	stallbpf_free(b);
	return r;
}

void stallbpf_free(struct stallbpf *b)
{
	if (!b)
		return;
	ring_buffer__free(b->rb);
	detach_all(b);
	stallbpf_skel__destroy(b->skel);
	if (b->stats_fd >= 0)
		close(b->stats_fd);
	stallbpf_writer_close(b);
	ksyms_release(&b->ksyms);
	strbuf_release(&b->ksyms_why);
	free(b);
}

#endif
