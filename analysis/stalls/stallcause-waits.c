/*
 * Stall causes from the wait record (see stallwaits.h; the rules and their
 * reasons are in docs/stalls.md, "Decided by the kernel's events
 * (STALLS=bpf)", which this file follows rule by rule).
 */
#include "stalls/stallwaits.h"
#include "text/argv.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAIT_LINE_NS 2000000.0  /* a wait gets a line for people from 2 ms inside the stall */
/* A swap-in from zram runs for about twice the time delay accounting
 * counts as its delay (the decompression, the page tables: docs/stalls.md,
 * "A stall's seconds"); that much more of the running time is the swap-in. */
#define ZRAM_RUN_PER_DELAY 2.0
/* A thread that faulted at least this often a millisecond of its running
 * was serving its faults, not running its own code: a computing thread
 * faults a few times a second; one taking a page a reclaim had to free, or
 * a page swapped in, faults tens of times a millisecond (50 and 63 in the
 * recorded case, tests/fixtures/stallrun-bpf/thirds). */
#define FAULT_BOUND_PER_MS 10.0
/* ... and whose faults were a memory stall's: delay accounting charged it
 * direct reclaim (or compaction, thrashing) or swap-ins for at least this
 * share of that running. The counters see a part of such a stall only (a
 * third of a memory cgroup's reclaim here, a tenth of zram swap-ins: the
 * faults' own work around the reclaim and the decompression is running),
 * so the share asked is low; a computing thread that met one brief
 * reclaim stays cpu. */
#define MEM_DELAY_MIN_SHARE 0.05

static int key_cmp(const void *x, const void *y)
{
	const struct stall_waits_key *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return (a->t_ns > b->t_ns) - (a->t_ns < b->t_ns);
}

void stall_waits_init(struct stall_waits *b, const struct waitrec *w, const char *swaps)
{
	memset(b, 0, sizeof(*b));
	b->w = w;
	b->swaps = swaps;
	b->off = zalloc((w->n_off ? w->n_off : 1) * sizeof(*b->off));
	b->bio = zalloc((w->n_bio ? w->n_bio : 1) * sizeof(*b->bio));
	for (size_t i = 0; i < w->n_off; i++)
		b->off[i] = (struct stall_waits_key){ w->off[i].tid, (uint32_t)i, w->off[i].off_ns };
	for (size_t i = 0; i < w->n_bio; i++) {
		const struct wr_bio *io = &w->bio[i];

		b->bio[i] = (struct stall_waits_key){ io->tid, (uint32_t)i, io->start_ns };
		if (io->done_ns > io->start_ns && io->done_ns - io->start_ns > b->bio_max_ns)
			b->bio_max_ns = io->done_ns - io->start_ns;
	}
	qsort(b->off, w->n_off, sizeof(*b->off), key_cmp);
	qsort(b->bio, w->n_bio, sizeof(*b->bio), key_cmp);
}

void stall_waits_release(struct stall_waits *b)
{
	if (!b)
		return;
	free(b->off);
	free(b->bio);
	memset(b, 0, sizeof(*b));
}

/* The first key at or after (tid, t). */
static size_t key_lower(const struct stall_waits_key *k, size_t n, int32_t tid, uint64_t t)
{
	struct stall_waits_key want = { tid, 0, t };
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_cmp(&k[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ns of (a, b) inside (s, e). */
static double clip(uint64_t a, uint64_t b, uint64_t s, uint64_t e)
{
	uint64_t lo = a > s ? a : s, hi = b < e ? b : e;

	return hi > lo ? (double)(hi - lo) : 0;
}

/* ---- block requests ---- */

/* The thread's block requests that overlap (from, to). */
struct bio_sum {
	size_t n, reads;
	uint64_t bytes;
	uint64_t busy_ns;       /* the union of their in-flight times inside (from, to) */
	char dev[32];           /* the first one's device: its meta name, else MAJ:MIN */
};

static void bios_in(const struct stall_waits *b, int32_t tid, uint64_t from, uint64_t to,
		    struct bio_sum *sum)
{
	uint64_t first = from > b->bio_max_ns ? from - b->bio_max_ns : 0;
	size_t n = b->w->n_bio;

	uint64_t busy_to = from;        /* the in-flight union so far ends here */

	memset(sum, 0, sizeof(*sum));
	for (size_t k = key_lower(b->bio, n, tid, first); k < n && b->bio[k].tid == tid &&
							   b->bio[k].t_ns < to; k++) {
		const struct wr_bio *io = &b->w->bio[b->bio[k].i];
		uint64_t s, e;
		const char *name;

		if (io->done_ns <= from)
			continue;
		/* sorted by start: a sweep merges the overlaps */
		s = io->start_ns > busy_to ? io->start_ns : busy_to;
		e = io->done_ns < to ? io->done_ns : to;
		if (e > s) {
			sum->busy_ns += e - s;
			busy_to = e;
		}
		if (!sum->n) {
			name = waitrec_dev_name(b->w, io->major, io->minor);
			if (name)
				snprintf(sum->dev, sizeof(sum->dev), "%s", name);
			else
				snprintf(sum->dev, sizeof(sum->dev), "%u:%u", io->major, io->minor);
		}
		sum->n++;
		sum->reads += io->op == 'R';
		sum->bytes += io->bytes;
	}
}

/* ---- a wait's cause ---- */

static const char *const swap_fns[] = {
	"swap_read_folio", "swap_readpage", "swapin_readahead", "do_swap_page", "zram_", NULL,
};
static const char *const zram_fns[] = { "zram_", NULL };
static const char *const reclaim_fns[] = {
	"try_to_free_pages", "try_to_free_mem_cgroup_pages", "shrink_", "mem_cgroup_handle_over_high",
	"throttle_direct_reclaim", "compact_", "__perform_reclaim", "__alloc_pages_direct_reclaim",
	"__alloc_pages_direct_compact", NULL,
};
static const char *const gpu_fns[] = {
	"dma_fence_", "drm_", "i915_", "amdgpu_", "radeon_", "nouveau_", "ttm_", "panfrost_", "msm_", NULL,
};
static const char *const fault_fns[] = {
	"filemap_fault", "handle_mm_fault", "do_user_addr_fault", "exc_page_fault", "do_page_fault", NULL,
};
static const char *const futex_fns[] = { "futex_", NULL };
static const char *const socket_fns[] = {
	"do_poll", "do_sys_poll", "do_select", "ep_poll", "unix_stream_read_generic", "sock_", "tcp_",
	"skb_", NULL,
};
static const char *const sleep_fns[] = { "hrtimer_nanosleep", "do_nanosleep", "clock_nanosleep", NULL };

/* Whether kernel function fn is pat: the name itself or a compiler's
 * clone of it (".isra.0"), or of its family when pat ends in '_';
 * leading underscores do not count on either side. */
static bool fn_is(const char *fn, const char *pat)
{
	size_t n;

	fn += strspn(fn, "_");
	pat += strspn(pat, "_");
	n = strlen(pat);
	if (!n || strncmp(fn, pat, n) != 0)
		return false;
	return pat[n - 1] == '_' || fn[n] == '\0' || fn[n] == '.';
}

/* The stack's first function (innermost) that one of pats names, or NULL. */
static const char *stack_find(const struct wr_stack *sk, const char *const *pats)
{
	for (size_t i = 0; sk && i < sk->n; i++)
		for (const char *const *p = pats; *p; p++)
			if (fn_is(sk->fn[i], *p))
				return sk->fn[i];
	return NULL;
}

/* __alloc_pages_slowpath counts as reclaim only with a reclaim function
 * beside it: the slow path also just retries. */
static const char *stack_reclaim(const struct wr_stack *sk)
{
	const char *fn = stack_find(sk, reclaim_fns);
	static const char *const slow[] = { "__alloc_pages_slowpath", NULL };

	if (fn)
		return fn;
	fn = stack_find(sk, slow);
	for (size_t i = 0; fn && i < sk->n; i++)
		if (sk->fn[i] != fn && strstr(sk->fn[i], "reclaim"))
			return fn;
	return NULL;
}

/* A swap-in's kind: zram functions in its stack, else the swap device its
 * block requests hit, else the only swap device listed, else swap. */
static enum stall_cause swap_cause(const struct stall_waits *b, const struct wr_stack *sk,
				   const struct bio_sum *io)
{
	enum stall_cause k;
	size_t n;

	if (stack_find(sk, zram_fns))
		return SC_SWAP_ZRAM;
	if (io->n && (k = stall_swaps_kind(b->swaps, io->dev, strlen(io->dev), NULL)) != SC_DISK)
		return k;
	k = stall_swaps_kind(b->swaps, NULL, 0, &n);
	return n == 1 ? k : SC_SWAP;
}

/* The cause of a wait (not a preemption) that overlaps the block requests
 * io. *what says it for people: the wait's kind, or the function that
 * named it, or its state. */
static enum stall_cause wait_cause(const struct stall_waits *b, const struct wr_off *o,
				   const struct bio_sum *io, const char **what)
{
	const struct wr_stack *sk = waitrec_stack(b->w, o->stack);
	const char *fn;

	*what = NULL;
	if ((fn = stack_find(sk, swap_fns)) && (*what = fn))
		return swap_cause(b, sk, io);
	if ((fn = stack_reclaim(sk)) && (*what = fn))
		return SC_RECLAIM;
	if ((fn = stack_find(sk, gpu_fns)) && (*what = fn))
		return SC_GPU;
	if ((fn = stack_find(sk, fault_fns)) && (*what = fn))
		return io->n ? SC_DISK : SC_FAULT;
	if ((*what = stack_find(sk, futex_fns) ? "futex" : stack_find(sk, socket_fns) ? "socket" :
		     stack_find(sk, sleep_fns) ? "sleep" : NULL))
		return SC_WAIT;
	/* no stack said: the system call it slept in (the recorder takes
	 * stacks of long sleeps only); blocked outside any is a page fault */
	if (o->state == 'D' && strcmp(o->syscall, "-") == 0) {
		*what = "page fault";
		return io->n ? SC_DISK : SC_FAULT;
	}
	if (o->state == 'D')
		return io->n ? SC_DISK : SC_IO;
	if (o->state == 'S' || o->state == 'I') {
		*what = o->syscall[0] && strcmp(o->syscall, "-") != 0 && strcmp(o->syscall, "?") != 0 ?
			stall_wait_detail(o->syscall) : "other";
		return SC_WAIT;
	}
	return SC_UNKNOWN;
}

/* ---- a stall ---- */

/* What the main thread's lines say of (s, e], in ns a cause. */
struct bpf_span {
	const struct stall_waits *b;
	uint64_t s, e;
	double ns[SC_COUNT];
	double nodata;          /* ns no line speaks for */
	/* between the recorded waits: run, runq, short sleeps, and what the
	 * delay counters took out of them */
	double gap_run, gap_runq, gap_sleep, gap_delay[SC_COUNT], zram_run;
	double fault_disk;      /* of it, disk while the thread faulted with reads in flight */
	/* of it, running that served a memory stall's faults (the fault rule):
	 * per cause, and the faults and the running they came in */
	double fault_run[SC_COUNT], fault_n, fault_over_ns;
	struct argv_list *lines;
	/* the last line, when it is of preemptions: merged with the next */
	size_t preempt_line, preempt_n;
	double preempt_ns;
};

static void add_ms(struct strbuf *sb, const char *fmt, double ns)
{
	double ms = ns / 1e6;

	strbuf_addf(sb, fmt, ms < 0.95 ? 1 : 0, ms);
}

static void add_who(struct strbuf *sb, const struct waitrec *w, int32_t tid)
{
	const struct wr_thread *t = tid > 0 ? waitrec_thread(w, tid) : NULL;

	if (tid == 0)
		strbuf_addstr(sb, "an interrupt or the idle task");
	else if (t)
		strbuf_addf(sb, "%s (%d)", t->comm, (int)tid);
	else
		strbuf_addf(sb, "thread %d", (int)tid);
}

/* A recorded interval's line: "futex, woken by llvmpipe-3 (4243) after 212
 * ms, runnable 3 ms", "disk: vda, 3 reads 96 KiB, 180 ms". */
static void describe_off(struct bpf_span *sp, const struct wr_off *o, enum stall_cause c,
			 const char *what, uint64_t wend, const struct bio_sum *io)
{
	struct strbuf sb = STRBUF_INIT;

	if (o->state == 'R') {
		/* preemptions in a row are one line */
		if (sp->preempt_n && sp->preempt_line + 1 == sp->lines->n) {
			free(sp->lines->v[--sp->lines->n]);
			sp->lines->v[sp->lines->n] = NULL;
		} else {
			sp->preempt_n = 0;
			sp->preempt_ns = 0;
		}
		sp->preempt_n++;
		sp->preempt_ns += (double)(o->on_ns - o->off_ns);
		add_ms(&sb, "runnable %.*f ms (preempted", sp->preempt_ns);
		if (sp->preempt_n > 1)
			strbuf_addf(&sb, " %zu times", sp->preempt_n);
		strbuf_addch(&sb, ')');
		sp->preempt_line = sp->lines->n;
		argv_push(sp->lines, sb.buf);
		strbuf_release(&sb);
		return;
	}
	if (c == SC_DISK && io->n) {
		strbuf_addf(&sb, "disk: %s, %zu %s %.0f KiB, ", io->dev, io->n,
			    io->reads == io->n ? (io->n == 1 ? "read" : "reads") :
			    (io->n == 1 ? "request" : "requests"),
			    (double)io->bytes / 1024);
		add_ms(&sb, "%.*f ms", (double)(wend - o->off_ns));
	} else {
		if (c == SC_WAIT)
			strbuf_addstr(&sb, what);
		else if (what)
			strbuf_addf(&sb, "%s (%s)", stall_cause_name(c), what);
		else
			strbuf_addf(&sb, "%s (state %c)", stall_cause_name(c), o->state);
		if (o->wake_ns && o->waker_tid >= 0) {
			strbuf_addstr(&sb, ", woken by ");
			add_who(&sb, sp->b->w, o->waker_tid);
			add_ms(&sb, " after %.*f ms", (double)(wend - o->off_ns));
		} else {
			add_ms(&sb, ", %.*f ms (no wakeup seen)", (double)(wend - o->off_ns));
		}
	}
	if (o->on_ns - wend >= 500000)
		add_ms(&sb, ", runnable %.*f ms", (double)(o->on_ns - wend));
	argv_push(sp->lines, sb.buf);
	strbuf_release(&sb);
}

/* One recorded interval: its wait (off to wakeup, classified), then its
 * wait for a CPU (wakeup to on); a preemption is all runq. *cause and
 * *wait_ns (the whole wait, for the gap after it) say what it was. */
static void add_off(struct bpf_span *sp, const struct wr_off *o, enum stall_cause *cause,
		    uint64_t *wend_out)
{
	uint64_t wend = o->on_ns;
	const char *what = NULL;
	struct bio_sum io = { 0 };
	double w, q;

	if (o->state == 'R')
		wend = o->off_ns;
	else if (o->wake_ns > o->off_ns && o->wake_ns <= o->on_ns)
		wend = o->wake_ns;
	*cause = SC_RUNQ;
	if (o->state != 'R') {
		bios_in(sp->b, o->tid, o->off_ns, wend, &io);
		*cause = wait_cause(sp->b, o, &io, &what);
	}
	*wend_out = wend;
	w = clip(o->off_ns, wend, sp->s, sp->e);
	q = clip(wend, o->on_ns, sp->s, sp->e);
	sp->ns[*cause] += w;
	sp->ns[SC_RUNQ] += q;
	if (sp->lines && w + q >= WAIT_LINE_NS)
		describe_off(sp, o, *cause, what, wend, &io);
}

/* The difference of a cumulative counter between two lines, 0 when either
 * is not kept (-1) or it went back. */
static double dly(int64_t later, int64_t earlier)
{
	return later >= 0 && earlier >= 0 && later > earlier ? (double)(later - earlier) : 0;
}

static double ddiff(uint64_t later, uint64_t earlier, double less)
{
	double d = later > earlier ? (double)(later - earlier) - less : 0;

	return d > 0 ? d : 0;
}

/* Takes up to *want from *first, then from *second; returns what it took. */
static double take(double *first, double *second, double want)
{
	double a = want < *first ? want : *first, b;

	*first -= a;
	b = want - a < *second ? want - a : *second;
	*second -= b;
	return a + b;
}

/* The time between interval o (its wait ended at wend, classified oc) and
 * the thread's next line: split by the differences of the cumulative run,
 * runq and sleep times (less o's own), then the delay counters'
 * differences (less what o accounts for) taken out of run and sleep. */
static void add_gap(struct bpf_span *sp, const struct wr_off *o, uint64_t wend, enum stall_cause oc,
		    const struct wr_off *next)
{
	double len = next->off_ns > o->on_ns ? (double)(next->off_ns - o->on_ns) : 0;
	double in = clip(o->on_ns, next->off_ns, sp->s, sp->e), frac, tot, run, runq, sleep;
	double wait = (double)(wend - o->off_ns), sw, rc, bk, zr = 0, more = 0, faults, mem[2] = { 0, 0 };
	bool swapped = oc == SC_SWAP || oc == SC_SWAP_ZRAM || oc == SC_SWAP_VRAM || oc == SC_SWAP_DISK;
	bool fault_bound;
	struct bio_sum io;
	enum stall_cause kind;

	if (in <= 0)
		return;
	frac = in / len;
	run = ddiff(next->run_ns, o->run_ns, 0);
	runq = ddiff(next->runq_ns, o->runq_ns, (double)(o->on_ns - wend));
	sleep = ddiff(next->sleep_ns, o->sleep_ns, o->state == 'R' ? 0 : wait);
	tot = run + runq + sleep;
	if (tot <= 0) {
		sp->nodata += in;
		return;
	}
	run *= len / tot;
	runq *= len / tot;
	sleep *= len / tot;
	sw = dly(next->swapin_ns, o->swapin_ns) - (swapped ? wait : 0);
	rc = dly(next->reclaim_ns, o->reclaim_ns) + dly(next->compact_ns, o->compact_ns) +
	     dly(next->thrash_ns, o->thrash_ns) - (oc == SC_RECLAIM ? wait : 0);
	bk = dly(next->blkio_ns, o->blkio_ns) - (oc == SC_DISK ? wait : 0);
	bios_in(sp->b, o->tid, o->on_ns, next->off_ns, &io);
	kind = swap_cause(sp->b, NULL, &io);
	/* the fault rule: faulting at FAULT_BOUND_PER_MS and charged a memory
	 * stall's delays for MEM_DELAY_MIN_SHARE of its running, the thread's
	 * running here was that stall's, whatever share the counters saw */
	faults = next->faults > o->faults ? (double)(next->faults - o->faults) : 0;
	fault_bound = run > 0 && faults >= FAULT_BOUND_PER_MS * run / 1e6 &&
		      (sw > 0 ? sw : 0) + (rc > 0 ? rc : 0) >= MEM_DELAY_MIN_SHARE * run;
	/* direct reclaim and a zram swap-in run on the CPU; a block wait sleeps */
	sw = sw > 0 ? take(&run, &sleep, sw) : 0;
	rc = rc > 0 ? take(&run, &sleep, rc) : 0;
	bk = bk > 0 ? take(&sleep, &run, bk) : 0;
	if (fault_bound) {
		/* the rest of the running to the two in the ratio of their delays */
		mem[0] = run * rc / (rc + sw);
		mem[1] = run - mem[0];
		run = 0;
		sp->fault_n += faults * frac;
		sp->fault_over_ns += (mem[0] + mem[1] + rc + sw) * frac;
	} else if (kind == SC_SWAP_ZRAM && next->faults > o->faults) {
		zr = take(&run, &run, ZRAM_RUN_PER_DELAY * sw);
	}
	/* a thread that faulted while reads it issued were in flight was kept
	 * by the disk for that long, running the faults or in waits under the
	 * threshold: past what the block delay already says, that much of its
	 * running and sleeping is disk too */
	if (io.reads && next->faults > o->faults && (double)io.busy_ns > bk)
		more = take(&run, &sleep, (double)io.busy_ns - bk);
	sp->fault_disk += more * frac;
	sp->zram_run += zr * frac;
	sp->gap_delay[kind] += sw * frac;
	sw += zr;
	sp->gap_delay[SC_RECLAIM] += rc * frac;
	sp->gap_delay[SC_DISK] += bk * frac;
	sp->ns[kind] += sw * frac;
	sp->ns[SC_RECLAIM] += rc * frac;
	sp->fault_run[SC_RECLAIM] += mem[0] * frac;
	sp->fault_run[kind] += mem[1] * frac;
	sp->ns[SC_RECLAIM] += mem[0] * frac;
	sp->ns[kind] += mem[1] * frac;
	sp->ns[SC_DISK] += (bk + more) * frac;
	sp->ns[SC_CPU] += run * frac;
	sp->ns[SC_RUNQ] += runq * frac;
	sp->ns[SC_WAIT] += sleep * frac;
	sp->gap_run += run * frac;
	sp->gap_runq += runq * frac;
	sp->gap_sleep += sleep * frac;
}

/* The lines for the time between the recorded waits and for time no line
 * speaks for. */
static void describe_rest(const struct bpf_span *sp)
{
	struct strbuf sb = STRBUF_INIT;
	static const char *const fmt[] = { ", running %.*f ms", ", runnable %.*f ms", ", short waits %.*f ms" };
	double v[] = { sp->gap_run, sp->gap_runq, sp->gap_sleep };

	for (int i = 0; i < 3; i++)
		if (v[i] >= 500000)
			add_ms(&sb, sb.len ? fmt[i] : fmt[i] + 2, v[i]);
	for (int c = 0; c < SC_COUNT; c++)
		if (sp->gap_delay[c] >= 500000) {
			strbuf_addf(&sb, "%s%s ", sb.len ? ", " : "", stall_cause_name((enum stall_cause)c));
			add_ms(&sb, "%.*f ms (delay accounting)", sp->gap_delay[c]);
		}
	if (sp->fault_disk >= 500000)
		add_ms(&sb, ", disk %.*f ms more while it faulted with its reads in flight", sp->fault_disk);
	if (sp->zram_run >= 500000)
		add_ms(&sb, ", swap_zram %.*f ms of the running (twice its delay: the decompression)",
		       sp->zram_run);
	for (int c = 0; c < SC_COUNT; c++)
		if (sp->fault_run[c] >= 500000) {
			strbuf_addf(&sb, "%s%s ", sb.len ? ", " : "", stall_cause_name((enum stall_cause)c));
			add_ms(&sb, "%.*f ms of the running", sp->fault_run[c]);
		}
	if (sp->fault_over_ns >= 500000)
		strbuf_addf(&sb, " (%.0f faults, %.0f a ms: serving them)", sp->fault_n,
			    sp->fault_n * 1e6 / sp->fault_over_ns);
	if (sb.len) {
		strbuf_addstr(&sb, " between the recorded waits");
		argv_push(sp->lines, sb.buf);
	}
	if (sp->nodata >= 500000) {
		strbuf_reset(&sb);
		add_ms(&sb, "no line of the record speaks for %.*f ms", sp->nodata);
		argv_push(sp->lines, sb.buf);
	}
	strbuf_release(&sb);
}

/* Scales the known causes to the stall when they add up to more, and
 * gives the rest to unknown: the shares add up to its length. */
static void settle(const struct bpf_span *sp, struct stall *st)
{
	double len = (double)(sp->e - sp->s), known = 0, scale = 1;

	for (int c = 0; c < SC_COUNT; c++)
		if (c != SC_UNKNOWN)
			known += sp->ns[c];
	if (known > len)
		scale = len / known;
	for (int c = 0; c < SC_COUNT; c++)
		st->share_s[c] = c == SC_UNKNOWN ? 0 : sp->ns[c] * scale / 1e9;
	st->share_s[SC_UNKNOWN] = known * scale < len ? (len - known * scale) / 1e9 : 0;
	memcpy(st->exact_s, st->share_s, sizeof(st->exact_s));
	st->cause = SC_UNKNOWN;
	for (int c = 0; c < SC_COUNT; c++)
		if (st->share_s[c] > st->share_s[st->cause])
			st->cause = (enum stall_cause)c;
	st->decided = SD_BPF;
}

double stall_waits_attribute(const struct stall_waits *b, int32_t tid, uint64_t start_ns, uint64_t end_ns,
			   struct stall *st, struct argv_list *lines)
{
	struct bpf_span sp = { .b = b, .s = start_ns, .e = end_ns, .lines = lines };
	const struct wr_off *off = b->w->off;
	size_t n = b->w->n_off, lo = key_lower(b->off, n, tid, 0), hi = key_lower(b->off, n, tid + 1, 0);
	size_t k = key_lower(b->off, n, tid, start_ns);

	st->start_ns = start_ns;
	st->end_ns = end_ns;
	st->main_tid = tid;
	/* a flip run paused the recorder in it: no line can speak for any of
	 * it (the waits around a pause were cut), so all of it is unknown */
	if (waitrec_paused_in(b->w, start_ns, end_ns)) {
		sp.nodata = (double)(end_ns - start_ns);
		if (lines)
			argv_push(lines, "the recorder was paused in it (a flip run's side without the recorder): "
				  "no wait was recorded");
		settle(&sp, st);
		return sp.nodata / 1e9;
	}
	if (k > lo)
		k--;
	/* before the thread's first line */
	sp.nodata += clip(0, lo < hi ? off[b->off[lo].i].off_ns : UINT64_MAX, start_ns, end_ns);
	for (; k < hi && off[b->off[k].i].off_ns < end_ns; k++) {
		const struct wr_off *o = &off[b->off[k].i];
		enum stall_cause oc;
		uint64_t wend;

		add_off(&sp, o, &oc, &wend);
		if (k + 1 < hi)
			add_gap(&sp, o, wend, oc, &off[b->off[k + 1].i]);
		else /* after its last */
			sp.nodata += clip(o->on_ns, UINT64_MAX, start_ns, end_ns);
	}
	if (lines)
		describe_rest(&sp);
	settle(&sp, st);
	return sp.nodata / 1e9 < st->share_s[SC_UNKNOWN] ? sp.nodata / 1e9 : st->share_s[SC_UNKNOWN];
}
