/*
 * Stall causes from the wait record (analysis/stalls/stallwaits.h), on records made
 * in memory line by line, one rule of docs/stalls.md ("Decided by the
 * kernel's events") a test: a futex wait and its waker, a disk wait and
 * its block requests, a preemption, the time between recorded waits from
 * the cumulative counters and what the delay counters take out of it, the
 * swap kinds, the fault rule, the stack rules in their order, the edges
 * no line speaks for; the shares add up to the stall every time. And a run with both
 * records (tests/tools/stallrun.c's, a wait record added): the wait record
 * decides the stall it covers, the sampler the others.
 */
#include "text/argv.h"
#include "metrics/metrics.h"
#include "run/run.h"
#include "stalls/stallwaits.h"
#include "test.h"
#include "base/util.h"
#include "../tools/stallrun.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull
#define S0 (1000ull * 1000 * MS)        /* the stalls start here */
#define MAIN 4242
#define CLOSE_MS(a, b) \
	ck_assert_msg(fabs((a) * 1e3 - (b)) < 1e-6, "%s = %.6f ms, expected %.6f", #a, (a) * 1e3, (double)(b))

/* A record built in memory: the arrays are the test's own (freed here),
 * the meta is the record's. */
struct fx {
	struct waitrec w;
	struct stall_waits b;
	char **fn[16];
	struct stall st;
	struct argv_list lines;
};

static void fx_init(struct fx *f)
{
	static const struct wr_thread threads[] = {
		{ MAIN, MAIN, "game" }, { 4243, MAIN, "llvmpipe-3" }, { 812, 812, "Xorg" },
	};

	memset(f, 0, sizeof(*f));
	waitrec_init(&f->w);
	f->w.thread = zalloc(sizeof(threads));
	memcpy(f->w.thread, threads, sizeof(threads));
	f->w.n_thread = ARRAY_SIZE(threads);
	f->w.off = zalloc(32 * sizeof(*f->w.off));
	f->w.bio = zalloc(32 * sizeof(*f->w.bio));
	f->w.stack = zalloc(16 * sizeof(*f->w.stack));
	kvfile_add(&f->w.meta, "dev.254.0", "vda");
	kvfile_add(&f->w.meta, "dev.8.16", "sdb");
	argv_init(&f->lines);
}

static void fx_release(struct fx *f)
{
	for (size_t k = 0; k < f->w.n_stack; k++) {
		for (size_t i = 0; i < f->w.stack[k].n; i++)
			free(f->w.stack[k].fn[i]);
		free(f->w.stack[k].fn);
	}
	free(f->w.stack);
	free(f->w.thread);
	free(f->w.off);
	free(f->w.bio);
	f->w.stack = NULL;
	f->w.thread = NULL;
	f->w.off = NULL;
	f->w.bio = NULL;
	f->w.n_stack = f->w.n_thread = f->w.n_off = f->w.n_bio = 0;
	waitrec_release(&f->w);
	stall_waits_release(&f->b);
	argv_release(&f->lines);
}

/* A stack of the functions named, innermost first; its id. */
static uint32_t stack(struct fx *f, const char *fns)
{
	struct wr_stack *sk = &f->w.stack[f->w.n_stack++];
	char *copy = xstrdup(fns), *save = NULL;

	sk->fn = zalloc(HB_WAITREC_MAX_FRAMES * sizeof(*sk->fn));
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		sk->fn[sk->n++] = xstrdup(w);
	free(copy);
	return (uint32_t)f->w.n_stack;
}

/* S0 + ms (which may be negative), ns. */
static uint64_t at(double ms)
{
	return (uint64_t)((int64_t)S0 + (int64_t)(ms * (double)MS));
}

/* An off line of the main thread: ms from S0 (wake 0: none); the
 * cumulative run, runq and sleep times in ms; delay counters not kept. */
static struct wr_off *off(struct fx *f, char state, double off_ms, double on_ms, double wake_ms,
			  uint32_t stack_id, int32_t waker, double run, double runq, double sleep)
{
	struct wr_off *o = &f->w.off[f->w.n_off++];

	o->tid = MAIN;
	o->state = state;
	o->off_ns = at(off_ms);
	o->on_ns = at(on_ms);
	o->wake_ns = wake_ms ? at(wake_ms) : 0;
	o->stack = stack_id;
	o->waker_tid = waker;
	o->run_ns = (uint64_t)(run * MS);
	o->runq_ns = (uint64_t)(runq * MS);
	o->sleep_ns = (uint64_t)(sleep * MS);
	o->blkio_ns = o->swapin_ns = o->reclaim_ns = o->thrash_ns = o->compact_ns = -1;
	return o;
}

/* o's delay totals counted (delay accounting on), none charged yet: the
 * caller sets what its case charges */
static void counted(struct wr_off *o)
{
	o->blkio_ns = o->swapin_ns = o->reclaim_ns = o->thrash_ns = o->compact_ns = 0;
}

static void bio(struct fx *f, double start_ms, double done_ms, uint32_t major, uint32_t minor, char op,
		uint64_t bytes)
{
	struct wr_bio *b = &f->w.bio[f->w.n_bio++];

	b->tid = MAIN;
	b->start_ns = at(start_ms);
	b->done_ns = at(done_ms);
	b->major = major;
	b->minor = minor;
	b->op = op;
	b->bytes = bytes;
}

/* Attributes (S0 + from, S0 + to] and checks that the shares add up. */
static double run_stall(struct fx *f, const char *swaps, double from_ms, double to_ms)
{
	double sum = 0, nodata;

	stall_waits_init(&f->b, &f->w, swaps);
	nodata = stall_waits_attribute(&f->b, MAIN, at(from_ms), at(to_ms), &f->st, &f->lines);
	for (int c = 0; c < SC_COUNT; c++) {
		ck_assert(f->st.share_s[c] >= 0);
		sum += f->st.share_s[c];
	}
	CLOSE_MS(sum, to_ms - from_ms);
	ck_assert_int_eq(f->st.decided, SD_BPF);
	ck_assert_str_eq(stall_decider_name(f->st.decided), "bpf");
	ck_assert_int_eq(f->st.main_tid, MAIN);
	return nodata;
}

static void expect_lines(const struct fx *f, const char *const *want)
{
	size_t n = 0;

	for (; want[n]; n++) {
		ck_assert_msg(n < f->lines.n, "line %zu missing: '%s'", n, want[n]);
		ck_assert_str_eq(f->lines.v[n], want[n]);
	}
	ck_assert_msg(f->lines.n == n, "%zu lines, expected %zu; extra: '%s'", f->lines.n, n, f->lines.v[n]);
}

START_TEST(futex_waker_runq_preempted)
{
	static const char *const want[] = {
		"futex, woken by llvmpipe-3 (4243) after 212 ms, runnable 3 ms",
		"runnable 20 ms (preempted)",
		"running 25 ms between the recorded waits",
		NULL,
	};
	struct fx f;
	uint32_t futex;

	fx_init(&f);
	futex = stack(&f, "__schedule schedule futex_wait_queue futex_wait do_futex __x64_sys_futex");
	off(&f, 'S', -50, -40, -41, futex, 4243, 1000, 10, 500);
	/* (-40, 10]: 50 ms running; the wait (10, 222], its runq (222, 225] */
	off(&f, 'S', 10, 225, 222, futex, 4243, 1050, 11, 509);
	/* (225, 240] running; preempted (240, 260] */
	off(&f, 'R', 240, 260, 0, 0, -1, 1065, 14, 721);
	off(&f, 'S', 300, 310, 305, futex, 4243, 1105, 34, 721);
	ck_assert(run_stall(&f, NULL, 0, 250) < 1e-12);
	CLOSE_MS(f.st.share_s[SC_WAIT], 212);
	CLOSE_MS(f.st.share_s[SC_RUNQ], 13);
	CLOSE_MS(f.st.share_s[SC_CPU], 25);
	CLOSE_MS(f.st.exact_s[SC_WAIT], 212);
	ck_assert_int_eq(f.st.cause, SC_WAIT);
	expect_lines(&f, want);
	fx_release(&f);
}
END_TEST

START_TEST(disk_fault_io)
{
	static const char *const want[] = {
		"disk: vda, 3 reads 96 KiB, 180 ms, runnable 5 ms",
		"fault (filemap_fault), woken by an interrupt or the idle task after 30 ms",
		"io (state D), woken by thread 999 after 20 ms",
		"disk: sdb, 1 request 4 KiB, 10 ms",
		NULL,
	};
	struct fx f;
	uint32_t pf;

	fx_init(&f);
	pf = stack(&f, "io_schedule folio_wait_bit_common filemap_fault __do_fault handle_mm_fault "
		       "do_user_addr_fault exc_page_fault asm_exc_page_fault");
	/* a fault that read from vda: 3 reads inside its wait */
	off(&f, 'D', 0, 185, 180, pf, 0, 100, 0, 0);
	bio(&f, 1, 60, 254, 0, 'R', 32768);
	bio(&f, 61, 120, 254, 0, 'R', 32768);
	bio(&f, 121, 179, 254, 0, 'R', 32768);
	/* a fault that read nothing; a D wait without a stack or reads; one
	 * whose write hit sdb (a disk, not a swap device) */
	off(&f, 'D', 185, 215, 215, pf, 0, 100, 5, 180);
	off(&f, 'D', 215, 235, 235, 0, 999, 100, 5, 210);
	off(&f, 'D', 235, 245, 245, 0, -1, 100, 5, 230);
	bio(&f, 236, 240, 8, 16, 'W', 4096);
	off(&f, 'S', 245, 300, 0, 0, -1, 100, 5, 240);
	run_stall(&f, "zram0:zram", 0, 245);
	CLOSE_MS(f.st.share_s[SC_DISK], 190);
	CLOSE_MS(f.st.share_s[SC_RUNQ], 5);
	CLOSE_MS(f.st.share_s[SC_FAULT], 30);
	CLOSE_MS(f.st.share_s[SC_IO], 20);
	ck_assert_int_eq(f.st.cause, SC_DISK);
	expect_lines(&f, want);
	fx_release(&f);
}
END_TEST

/* The swap kinds: zram functions in the stack; the swap device the
 * block requests hit; the only swap device listed; plain swap. */
START_TEST(swap_kinds)
{
	static const struct {
		const char *swaps, *stack;
		int bios;
		enum stall_cause want;
	} cases[] = {
		{ "zram0:zram sdb:disk", "folio_wait_bit_common swap_read_folio do_swap_page handle_mm_fault", 1, SC_SWAP_DISK },
		{ "zram0:zram sdb:disk", "zram_read_page zram_bio_read swap_read_folio do_swap_page", 0, SC_SWAP_ZRAM },
		{ "vswap0:vram", "io_schedule swap_readpage.isra.0 do_swap_page", 0, SC_SWAP_VRAM },
		{ NULL, "io_schedule swapin_readahead do_swap_page", 0, SC_SWAP },
		{ "zram0:zram sdb:disk", "io_schedule swapin_readahead do_swap_page", 0, SC_SWAP },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fx f;

		fx_init(&f);
		off(&f, 'D', 0, 100, 100, stack(&f, cases[i].stack), 0, 0, 0, 0);
		if (cases[i].bios)
			bio(&f, 10, 90, 8, 16, 'R', 4096);
		run_stall(&f, cases[i].swaps, 0, 100);
		ck_assert_msg(f.st.cause == cases[i].want, "case %zu: %s, expected %s", i,
			      stall_cause_name(f.st.cause), stall_cause_name(cases[i].want));
		CLOSE_MS(f.st.share_s[cases[i].want], 100);
		fx_release(&f);
	}
}
END_TEST

/* The stack rules, first match in their order. */
START_TEST(stack_rules)
{
	static const struct {
		char state;
		const char *stack, *line;
		enum stall_cause want;
	} cases[] = {
		{ 'D', "__schedule try_to_free_pages __alloc_pages_slowpath handle_mm_fault", "reclaim (try_to_free_pages)", SC_RECLAIM },
		{ 'D', "reclaim_throttle __alloc_pages_slowpath __alloc_pages", "reclaim (__alloc_pages_slowpath)", SC_RECLAIM },
		{ 'D', "__schedule __alloc_pages_slowpath __alloc_pages", "io (state D)", SC_IO },
		{ 'S', "mem_cgroup_handle_over_high exit_to_user_mode_loop", "reclaim (mem_cgroup_handle_over_high)", SC_RECLAIM },
		{ 'S', "dma_fence_default_wait dma_fence_wait_timeout i915_gem_wait_ioctl drm_ioctl", "gpu (dma_fence_default_wait)", SC_GPU },
		{ 'S', "ttm_bo_vm_fault handle_mm_fault exc_page_fault", "gpu (ttm_bo_vm_fault)", SC_GPU },
		{ 'S', "schedule_hrtimeout_range do_poll.constprop.0 do_sys_poll __x64_sys_poll", "socket", SC_WAIT },
		{ 'S', "__skb_wait_for_more_packets __skb_recv_datagram", "socket", SC_WAIT },
		{ 'S', "do_nanosleep hrtimer_nanosleep common_nsleep", "sleep", SC_WAIT },
		{ 'S', "schedule pipe_read vfs_read", "other", SC_WAIT },
		{ 'I', "", "other", SC_WAIT },
		{ 'T', "", "unknown (state T)", SC_UNKNOWN },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fx f;
		char *line;

		fx_init(&f);
		off(&f, cases[i].state, 0, 100, 100, *cases[i].stack ? stack(&f, cases[i].stack) : 0, 812, 0, 0, 0);
		run_stall(&f, NULL, 0, 100);
		ck_assert_msg(f.st.cause == cases[i].want, "case %zu: %s, expected %s", i,
			      stall_cause_name(f.st.cause), stall_cause_name(cases[i].want));
		line = xasprintf("%s, woken by Xorg (812) after 100 ms", cases[i].line);
		ck_assert_str_eq(f.lines.v[0], line);
		free(line);
		fx_release(&f);
	}
}
END_TEST

/* Between recorded waits: run, runq and sleep from the counters' differences
 * (less the interval's own), then what the delay counters say was reclaim,
 * swap-in and block I/O (less what the recorded wait accounts for) taken
 * out of run and sleep. */
START_TEST(gap_delay_counters)
{
	static const char *const want[] = {
		"running 16 ms, runnable 16 ms, disk 24 ms (delay accounting), "
		"swap_zram 40 ms (delay accounting), reclaim 104 ms (delay accounting) between the recorded waits",
		NULL,
	};
	struct fx f;
	struct wr_off *a, *b;

	fx_init(&f);
	/* a disk wait of 10 ms (-20, -10]; the gap (-10, 240] is 250 ms */
	a = off(&f, 'D', -20, -10, -10, 0, 0, 1000, 0, 100);
	bio(&f, -19, -11, 254, 0, 'R', 4096);
	counted(a);
	a->blkio_ns = 50 * MS;
	/* over the gap: run 200, runq 20, sleep 30 (+10 the disk wait's own) */
	b = off(&f, 'S', 240, 300, 0, 0, -1, 1200, 20, 140);
	/* blkio +40, of which the disk wait is 10: 30 from sleep (all of it);
	 * swap-in 50 and reclaim 100 + compaction 20 + thrashing 10 from run
	 * (200: 20 left) */
	b->blkio_ns = 90 * MS;
	b->swapin_ns = 50 * MS;
	b->reclaim_ns = 100 * MS;
	b->compact_ns = 20 * MS;
	b->thrash_ns = 10 * MS;
	/* the stall (0, 200] holds 200 / 250 of the gap */
	run_stall(&f, "zram0:zram", 0, 200);
	CLOSE_MS(f.st.share_s[SC_SWAP_ZRAM], 50 * 0.8);
	CLOSE_MS(f.st.share_s[SC_RECLAIM], 130 * 0.8);
	CLOSE_MS(f.st.share_s[SC_DISK], 30 * 0.8);
	CLOSE_MS(f.st.share_s[SC_CPU], 20 * 0.8);
	CLOSE_MS(f.st.share_s[SC_RUNQ], 20 * 0.8);
	CLOSE_MS(f.st.share_s[SC_WAIT], 0);
	ck_assert_int_eq(f.st.cause, SC_RECLAIM);
	expect_lines(&f, want);
	fx_release(&f);
}
END_TEST

/* A zram swap-in runs for twice its delay: where the thread faulted
 * between two lines, that much more of the running time is the swap-in;
 * without faults, only the delay. */
START_TEST(zram_runs)
{
	for (int faulted = 0; faulted < 2; faulted++) {
		struct fx f;
		struct wr_off *a, *b;

		fx_init(&f);
		a = off(&f, 'S', -20, -10, -10, 0, -1, 0, 0, 0);
		b = off(&f, 'S', 240, 300, 0, 0, -1, 250, 0, 10);
		counted(a);
		counted(b);
		b->swapin_ns = 50 * MS;
		b->faults = faulted ? 1000 : 0;
		run_stall(&f, "zram0:zram", 0, 200);
		/* 200 of the gap's 250 ms */
		CLOSE_MS(f.st.share_s[SC_SWAP_ZRAM], (faulted ? 150 : 50) * 0.8);
		CLOSE_MS(f.st.share_s[SC_CPU], (faulted ? 100 : 200) * 0.8);
		ck_assert_int_eq(f.st.cause, faulted ? SC_SWAP_ZRAM : SC_CPU);
		ck_assert_str_eq(f.lines.v[0], faulted ? "running 80 ms, swap_zram 40 ms (delay accounting), swap_zram 80 ms "
					       "of the running (twice its delay: the decompression) between the recorded waits"
					     : "running 160 ms, swap_zram 40 ms (delay accounting) between the recorded waits");
		fx_release(&f);
	}
}
END_TEST

/* The fault rule: a thread that faulted ten times a millisecond of its
 * running or more, and was charged reclaim or swap-ins for 5% of it or
 * more, was serving a memory stall's faults: the rest of its running is
 * that stall's, in the ratio of the two delays, whatever share the
 * counters saw (a third of the reclaim in the recorded case). Too few
 * faults, or too little of a memory stall's delay, and it stays cpu. */
START_TEST(fault_rule)
{
	static const struct {
		double faults, reclaim, swapin;
		double want_reclaim, want_swap, want_cpu;
		enum stall_cause cause;
	} cases[] = {
		{ 45000, 300, 0, 900, 0, 0, SC_RECLAIM },       /* delay accounting saw a third */
		{ 900, 300, 0, 300, 0, 600, SC_CPU },           /* one fault a ms: its own work */
		{ 45000, 20, 0, 20, 0, 880, SC_CPU },           /* one brief reclaim, 2% */
		{ 45000, 100, 60, 562.5, 337.5, 0, SC_RECLAIM }, /* both: 800 ms in the ratio 100:60 */
		{ 15000, 0, 90, 0, 900, 0, SC_SWAP_ZRAM },      /* swap-ins, a tenth of them seen */
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fx f;
		struct wr_off *a, *b;

		fx_init(&f);
		/* the gap (-10, 890]: 900 ms of running */
		a = off(&f, 'S', -20, -10, -10, 0, -1, 0, 0, 0);
		b = off(&f, 'S', 890, 900, 0, 0, -1, 900, 0, 10);
		counted(a);
		counted(b);
		b->reclaim_ns = (int64_t)(cases[i].reclaim * MS);
		b->swapin_ns = (int64_t)(cases[i].swapin * MS);
		b->faults = (uint64_t)cases[i].faults;
		run_stall(&f, "zram0:zram", -10, 890);
		CLOSE_MS(f.st.share_s[SC_RECLAIM], cases[i].want_reclaim);
		CLOSE_MS(f.st.share_s[SC_SWAP_ZRAM], cases[i].want_swap);
		CLOSE_MS(f.st.share_s[SC_CPU], cases[i].want_cpu);
		ck_assert_int_eq(f.st.cause, cases[i].cause);
		if (i == 0)
			ck_assert_str_eq(f.lines.v[0], "reclaim 300 ms (delay accounting), reclaim 600 ms of the running "
						       "(45000 faults, 50 a ms: serving them) between the recorded waits");
		fx_release(&f);
	}
}
END_TEST

/* A thread that faulted while reads it issued were in flight: that time is
 * disk past the block delay, taken from its running (the faults' own work)
 * once the delay has taken its sleeps; without faults the reads are
 * readahead beside its work and change nothing. */
START_TEST(faults_with_reads_in_flight)
{
	for (int faulted = 0; faulted < 2; faulted++) {
		struct fx f;
		struct wr_off *a, *b;

		fx_init(&f);
		a = off(&f, 'S', -20, -10, -10, 0, -1, 0, 0, 0);
		/* b's sleep total has a's own 10 ms wait too */
		b = off(&f, 'S', 240, 300, 0, 0, -1, 200, 0, 60);
		counted(a);
		counted(b);
		b->blkio_ns = 40 * MS;
		b->faults = faulted ? 500 : 0;
		/* in flight 10..110 (two overlapping reads), one after the gap */
		bio(&f, 10, 70, 254, 0, 'R', 4096);
		bio(&f, 60, 110, 254, 0, 'R', 4096);
		bio(&f, 300, 310, 254, 0, 'R', 4096);
		run_stall(&f, NULL, 0, 200);
		/* 200 of the gap's 250 ms: disk 40 (+60), sleep 50 - 40, run 200 (-60) */
		CLOSE_MS(f.st.share_s[SC_DISK], (faulted ? 100 : 40) * 0.8);
		CLOSE_MS(f.st.share_s[SC_CPU], (faulted ? 140 : 200) * 0.8);
		CLOSE_MS(f.st.share_s[SC_WAIT], 10 * 0.8);
		ck_assert_str_eq(f.lines.v[0], faulted ?
				 "running 112 ms, short waits 8 ms, disk 32 ms (delay accounting), disk 48 ms "
				 "more while it faulted with its reads in flight between the recorded waits" :
				 "running 160 ms, short waits 8 ms, disk 32 ms (delay accounting) between the "
				 "recorded waits");
		fx_release(&f);
	}
}
END_TEST

/* Preemptions in a row are one line. */
START_TEST(preemptions_merged)
{
	static const char *const want[] = {
		"runnable 30 ms (preempted 3 times)",
		"futex, woken by llvmpipe-3 (4243) after 20 ms",
		"runnable 5 ms (preempted)",
		"running 45 ms between the recorded waits",
		NULL,
	};
	struct fx f;

	fx_init(&f);
	off(&f, 'R', 0, 10, 0, 0, -1, 0, 0, 0);
	off(&f, 'R', 20, 30, 0, 0, -1, 10, 10, 0);
	off(&f, 'R', 40, 50, 0, 0, -1, 20, 20, 0);
	off(&f, 'S', 60, 80, 80, stack(&f, "futex_wait_queue"), 4243, 30, 30, 0);
	off(&f, 'R', 90, 95, 0, 0, -1, 40, 30, 20);
	off(&f, 'S', 100, 110, 110, 0, -1, 45, 35, 20);
	run_stall(&f, NULL, 0, 100);
	expect_lines(&f, want);
	CLOSE_MS(f.st.share_s[SC_RUNQ], 35);
	CLOSE_MS(f.st.share_s[SC_CPU], 45);
	CLOSE_MS(f.st.share_s[SC_WAIT], 20);
	fx_release(&f);
}
END_TEST

/* Before the thread's first line and after its last, no line speaks:
 * unknown; a thread the record never saw is all unknown. */
START_TEST(unknown_edges)
{
	static const char *const want[] = {
		"futex, woken by llvmpipe-3 (4243) after 10 ms, runnable 10 ms",
		"no line of the record speaks for 80 ms",
		NULL,
	};
	struct fx f;
	double nodata;

	fx_init(&f);
	off(&f, 'S', 40, 60, 50, stack(&f, "futex_wait_queue"), 4243, 0, 0, 0);
	nodata = run_stall(&f, NULL, 0, 100);
	CLOSE_MS(nodata, 80);
	CLOSE_MS(f.st.share_s[SC_UNKNOWN], 80);
	CLOSE_MS(f.st.share_s[SC_WAIT], 10);
	CLOSE_MS(f.st.share_s[SC_RUNQ], 10);
	ck_assert_int_eq(f.st.cause, SC_UNKNOWN);
	expect_lines(&f, want);
	/* another thread */
	stall_waits_release(&f.b);
	stall_waits_init(&f.b, &f.w, NULL);
	CLOSE_MS(stall_waits_attribute(&f.b, 77, S0, S0 + 100 * MS, &f.st, NULL), 100);
	CLOSE_MS(f.st.share_s[SC_UNKNOWN], 100);
	fx_release(&f);
}
END_TEST

/* A stall that a pause of the recorder (a flip run's side without it)
 * overlaps: no line speaks for any of it, whatever was recorded around */
START_TEST(paused_recorder)
{
	static const char *const want[] = {
		"the recorder was paused in it (a flip run's side without the recorder): no wait was recorded",
		NULL,
	};
	struct fx f;

	fx_init(&f);
	off(&f, 'S', 10, 20, 15, stack(&f, "futex_wait_queue"), 4243, 0, 0, 0);
	f.w.pause = zalloc(sizeof(*f.w.pause));
	f.w.pause[0] = (struct rec_pause){ at(60), at(90) };
	f.w.n_pause = 1;
	CLOSE_MS(run_stall(&f, NULL, 0, 100), 100);
	CLOSE_MS(f.st.share_s[SC_UNKNOWN], 100);
	ck_assert_int_eq(f.st.cause, SC_UNKNOWN);
	expect_lines(&f, want);
	/* a stall clear of the pause is read as ever */
	stall_waits_release(&f.b);
	argv_release(&f.lines);
	argv_init(&f.lines);
	run_stall(&f, NULL, 0, 50);
	CLOSE_MS(f.st.share_s[SC_WAIT], 5);
	free(f.w.pause);
	f.w.pause = NULL;
	f.w.n_pause = 0;
	fx_release(&f);
}
END_TEST

/* Counters that went back (a gap they cannot split) and a wait whose
 * wakeup was not seen (all of it the wait). */
START_TEST(bad_counters)
{
	struct fx f;

	fx_init(&f);
	off(&f, 'S', -10, 0, 0, 0, -1, 100, 0, 100);
	off(&f, 'S', 50, 60, 0, 0, -1, 50, 0, 50);
	run_stall(&f, NULL, 0, 100);
	CLOSE_MS(f.st.share_s[SC_UNKNOWN], 90);
	CLOSE_MS(f.st.share_s[SC_WAIT], 10);
	fx_release(&f);
}
END_TEST

START_TEST(swaps_kind)
{
	size_t n;

	ck_assert_int_eq(stall_swaps_kind("zram0:zram vswap0:vram sdb:disk", "vswap0", 6, &n), SC_SWAP_VRAM);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(stall_swaps_kind("zram0:zram vswap0:vram sdb", "sdb", 3, NULL), SC_SWAP_DISK);
	ck_assert_int_eq(stall_swaps_kind("zram0:zram", "zram", 4, NULL), SC_DISK);
	ck_assert_int_eq(stall_swaps_kind("zram0:zram sdb:disk", NULL, 0, &n), SC_SWAP_ZRAM);
	ck_assert_int_eq(stall_swaps_kind(NULL, NULL, 0, &n), SC_DISK);
	ck_assert_uint_eq(n, 0);
}
END_TEST

/* The hand-made stall run with a wait record written and packed as the
 * recorder does: the main thread (the stall record's pid, the frames
 * carrying none) in a GPU fence wait over the sampled "cpu" stall, with a
 * line before and after it. */
static void write_waits(const char *dir, const struct stall *st, const char *extra)
{
	static const char *const fence[] = { "dma_fence_default_wait", "drm_ioctl" };
	const struct wr_thread t = { 4242, 4242, "stallgame" };
	struct wr_off o = { .tid = 4242, .state = 'S', .waker_tid = 0 };
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	char *live = xasprintf("%s/waits.live", dir), *out = xasprintf("%s/%s", dir, HB_WAITREC_FILE);
	struct kvfile tr;

	o.blkio_ns = o.swapin_ns = o.reclaim_ns = o.thrash_ns = o.compact_ns = -1;
	waitrec_put_header(&sb);
	waitrec_put_meta(&sb, "min_off_ns", "1000000");
	waitrec_put_thread(&sb, &t);
	waitrec_put_stack(&sb, 1, fence, 2);
	o.off_ns = st->start_ns - 20 * MS;
	o.on_ns = o.wake_ns = st->start_ns - 10 * MS;
	waitrec_put_off(&sb, &o);
	/* running 10 ms, then the fence wait (start + 10, end - 10] */
	o.run_ns = 20 * MS;
	o.sleep_ns = 10 * MS;
	o.off_ns = st->start_ns + 10 * MS;
	o.on_ns = o.wake_ns = st->end_ns - 10 * MS;
	o.stack = 1;
	waitrec_put_off(&sb, &o);
	o.run_ns = 40 * MS;
	o.sleep_ns += o.on_ns - o.off_ns;
	o.off_ns = st->end_ns + 10 * MS;
	o.on_ns = o.wake_ns = st->end_ns + 20 * MS;
	o.stack = 0;
	waitrec_put_off(&sb, &o);
	if (extra)
		strbuf_addstr(&sb, extra);
	ck_assert_int_eq(write_file_atomic(live, sb.buf, sb.len, 0644), 0);
	kvfile_init(&tr);
	kvfile_add(&tr, "prog.on_switch.runs", "1000");
	kvfile_add(&tr, "prog.on_wake.runs", "500");
	kvfile_add(&tr, "ns_per_event", "812");
	kvfile_add(&tr, "kernel_cpu_pct", "0.0500");
	kvfile_add(&tr, "user_cpu_pct", "0.0100");
	ck_assert_msg(waitrec_pack(live, out, &tr, &err) == 0, "%s", err.buf);
	kvfile_release(&tr);
	strbuf_release(&sb);
	strbuf_release(&err);
	free(live);
	free(out);
}

/* The sampled run's stall of the named case. */
static const struct stall *case_stall(const struct stall_run *sr, const char *name)
{
	size_t n;
	const struct stallrun_case *c = stallrun_cases(STALLRUN_SAMPLED, &n);

	for (size_t k = 0; k < n; k++)
		if (!strcmp(c[k].name, name))
			return &sr->stall[k + 1]; /* the load first */
	ck_abort_msg("no case %s", name);
	return NULL;
}

START_TEST(both_records)
{
	char *dir = test_tmpdir();
	struct strbuf err = STRBUF_INIT;
	struct stall_run sr;
	const struct stall *cpu, *wait;
	struct metrics m, m0;
	struct run run;
	uint64_t s, e;

	ck_assert_int_eq(stallrun_write(dir, STALLRUN_SAMPLED), 0);
	ck_assert_msg(run_load(dir, &run, &err) == 0, "%s", err.buf);
	ck_assert_msg(stall_run_load(&run, NULL, &sr, &err) == 0, "%s", err.buf);
	cpu = case_stall(&sr, "cpu");
	ck_assert_int_eq(cpu->cause, SC_CPU);
	ck_assert_int_eq(run_metrics(&run, NULL, &m0), 0);
	ck_assert(!m0.have[M_STALLBPF_NS_PER_EVENT]);
	s = cpu->start_ns;
	e = cpu->end_ns;
	write_waits(dir, cpu, NULL);
	stall_run_release(&sr);
	ck_assert_msg(stall_run_load(&run, NULL, &sr, &err) == 0, "%s", err.buf);
	ck_assert(sr.have_stallrec && sr.have_waitrec);
	cpu = case_stall(&sr, "cpu");
	wait = case_stall(&sr, "wait");
	ck_assert(cpu->start_ns == s && cpu->end_ns == e);
	ck_assert_str_eq(stall_decider_name(cpu->decided), "bpf");
	ck_assert_int_eq(cpu->cause, SC_GPU);
	ck_assert_int_eq(cpu->main_tid, 4242);
	CLOSE_MS(cpu->share_s[SC_GPU], 180);
	CLOSE_MS(cpu->share_s[SC_CPU], 20);
	CLOSE_MS(cpu->sampled_s[SC_CPU], 200);
	ck_assert_uint_eq(cpu->n_waits, 2);
	ck_assert_str_eq(cpu->waits[0], "gpu (dma_fence_default_wait), woken by an interrupt or the idle "
			 "task after 180 ms");
	ck_assert_str_eq(cpu->waits[1], "running 20 ms between the recorded waits");
	/* a stall the wait record has no line for: the sampler's */
	ck_assert_str_eq(stall_decider_name(wait->decided), "sampled");
	ck_assert_int_eq(wait->cause, SC_WAIT);
	ck_assert_uint_eq(wait->n_waits, 0);
	stall_run_release(&sr);
	/* the metrics: the stall seconds from both, the BPF recorder's cost */
	ck_assert_int_eq(run_metrics(&run, NULL, &m), 0);
	CLOSE_MS(m.v[M_STALL_GPU_S], m0.v[M_STALL_GPU_S] * 1e3 + 180);
	CLOSE_MS(m.v[M_STALL_CPU_S], m0.v[M_STALL_CPU_S] * 1e3 - 200 + 20);
	CLOSE_MS(m.v[M_STALLBPF_NS_PER_EVENT] / 1e3, 812);
	CLOSE_MS(m.v[M_STALLBPF_CPU_PCT] / 1e3, 0.06);
	CLOSE_MS(m.v[M_STALLBPF_EVENTS] / 1e3, 1500);
	/* a bad line: the run's stalls cannot be read (the stall's times
	 * only: sr, which held it, is released) */
	write_waits(dir, &(struct stall){ .start_ns = s, .end_ns = e }, "off\t4242\tsoon\n");
	ck_assert_int_lt(stall_run_load(&run, NULL, &sr, &err), 0);
	ck_assert_msg(strstr(err.buf, HB_WAITREC_FILE ":8: "), "%s", err.buf);
	run_release(&run);
	remove_tree(dir);
	free(dir);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(stallwaits_suite)
{
	Suite *s = suite_create("stallwaits");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, futex_waker_runq_preempted);
	tcase_add_test(tc, disk_fault_io);
	tcase_add_test(tc, swap_kinds);
	tcase_add_test(tc, stack_rules);
	tcase_add_test(tc, gap_delay_counters);
	tcase_add_test(tc, zram_runs);
	tcase_add_test(tc, fault_rule);
	tcase_add_test(tc, faults_with_reads_in_flight);
	tcase_add_test(tc, preemptions_merged);
	tcase_add_test(tc, unknown_edges);
	tcase_add_test(tc, paused_recorder);
	tcase_add_test(tc, bad_counters);
	tcase_add_test(tc, swaps_kind);
	suite_add_tcase(s, tc);
	tc = tcase_create("run");
	tcase_add_test(tc, both_records);
	suite_add_tcase(s, tc);
	return s;
}
