/*
 * Giving samples and stalls a cause (see stallcause.h; the rules and
 * their reasons are in docs/stalls.md, which this file follows rule by
 * rule).
 */
#include "stalls/stallcause.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const cause_names[SC_COUNT] = {
	[SC_UNKNOWN] = "unknown", [SC_DISK] = "disk", [SC_SWAP] = "swap",
	[SC_SWAP_ZRAM] = "swap_zram", [SC_SWAP_VRAM] = "swap_vram", [SC_SWAP_DISK] = "swap_disk",
	[SC_FAULT] = "fault", [SC_GART] = "gart", [SC_RECLAIM] = "reclaim", [SC_GPU] = "gpu",
	[SC_IO] = "io", [SC_CPU] = "cpu", [SC_RUNQ] = "runq", [SC_WAIT] = "wait",
};

static const enum stall_group cause_group[SC_COUNT] = {
	[SC_UNKNOWN] = SG_OTHER, [SC_DISK] = SG_DISK, [SC_SWAP] = SG_SWAP,
	[SC_SWAP_ZRAM] = SG_SWAP, [SC_SWAP_VRAM] = SG_SWAP, [SC_SWAP_DISK] = SG_SWAP,
	[SC_FAULT] = SG_OTHER, [SC_GART] = SG_RECLAIM, [SC_RECLAIM] = SG_RECLAIM,
	[SC_GPU] = SG_GPU, [SC_IO] = SG_IO, [SC_CPU] = SG_CPU, [SC_RUNQ] = SG_CPU,
	[SC_WAIT] = SG_WAIT,
};

_Static_assert(SG_COUNT == M_STALL_OTHER_S - M_STALL_DISK_S + 1, "a stall group per stall_*_s metric");

const char *stall_cause_name(enum stall_cause c)
{
	return (unsigned)c < SC_COUNT ? cause_names[c] : "unknown";
}

enum stall_group stall_cause_group(enum stall_cause c)
{
	return (unsigned)c < SC_COUNT ? cause_group[c] : SG_OTHER;
}

const char *stall_decider_name(enum stall_decider d)
{
	switch (d) {
	case SD_DELAY:
		return "delay";
	case SD_SCHEDSTAT:
		return "schedstat";
	case SD_PSI:
		return "psi";
	case SD_BPF:
		return "bpf";
	case SD_SAMPLED:
		break;
	}
	return "sampled";
}

const char *stall_section_name(enum stall_section s)
{
	return s == SS_LOAD ? "load" : s == SS_WARM ? "warm-up" : "window";
}

/* ---- the record's columns ---- */

static bool have(const struct stallrec *r, enum sr_col c)
{
	return r->known[c] >= 0;
}

static int64_t at(const struct stallrec *r, enum sr_col c, size_t i)
{
	return stallrec_at(r, c, i);
}

/* Column c's movement from row i-1 to row i (0 without it). */
static int64_t delta(const struct stallrec *r, int c, size_t i)
{
	const int64_t *v = stallrec_col(r, c);

	return v ? v[i] - v[i - 1] : 0;
}

static int64_t kdelta(const struct stallrec *r, enum sr_col c, size_t i)
{
	return delta(r, r->known[c], i);
}

static const char *str_at(const struct stallrec *r, enum sr_col c, size_t i)
{
	return stallrec_str(r, at(r, c, i));
}

static enum stall_cause swap_kind(const char *kind, size_t len)
{
	if (len == 4 && !strncmp(kind, "zram", 4))
		return SC_SWAP_ZRAM;
	if (len == 4 && !strncmp(kind, "vram", 4))
		return SC_SWAP_VRAM;
	return SC_SWAP_DISK;
}

enum stall_cause stall_swaps_kind(const char *swaps, const char *name, size_t len, size_t *n)
{
	enum stall_cause found = SC_DISK;
	size_t count = 0;

	while (swaps && *swaps) {
		size_t all = strcspn(swaps, " "), nlen = strcspn(swaps, ": ");
		enum stall_cause kind = nlen < all ? swap_kind(swaps + nlen + 1, all - nlen - 1) : SC_SWAP_DISK;

		if (found == SC_DISK && (!name || (nlen == len && !strncmp(swaps, name, len))))
			found = kind;
		count++;
		swaps += all;
		swaps += strspn(swaps, " ");
	}
	if (n)
		*n = count;
	return found;
}

/* The block devices: columns disk.NAME.FIELD; swap devices and their kinds
 * from meta "swaps=NAME:KIND ...". */
static void find_disks(struct stall_analysis *a)
{
	const struct stallrec *r = a->rec;
	const char *swaps = kvfile_get(&r->meta, "swaps");

	a->disk = zalloc((r->n_cols ? r->n_cols : 1) * sizeof(*a->disk));
	for (size_t c = 0; c < r->n_cols; c++) {
		const char *name = r->col_name[c], *dot;
		size_t k, len;

		if (!str_startswith(name, "disk.") || !(dot = strrchr(name + 5, '.')))
			continue;
		len = (size_t)(dot - (name + 5));
		for (k = 0; k < a->n_disk; k++)
			if (strlen(a->disk[k].name) == len && !strncmp(a->disk[k].name, name + 5, len))
				break;
		if (k == a->n_disk) {
			a->disk[k].name = xstrndup(name + 5, len);
			a->disk[k].rd_ios = a->disk[k].in_flight = -1;
			a->disk[k].swap = stall_swaps_kind(swaps, name + 5, len, NULL);
			a->n_swap += a->disk[k].swap != SC_DISK;
			a->n_disk++;
		}
		if (strcmp(dot + 1, sr_disk_field_names[SR_DISK_RD_IOS]) == 0)
			a->disk[k].rd_ios = (int)c;
		else if (strcmp(dot + 1, sr_disk_field_names[SR_DISK_IN_FLIGHT]) == 0)
			a->disk[k].in_flight = (int)c;
	}
}

/* ---- one sample ---- */

static bool has_any(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (strstr(s, *words))
			return true;
	return false;
}

static bool in_list(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(s, *words) == 0)
			return true;
	return false;
}

static bool is_gpu_wait(const struct stallrec *r, size_t i)
{
	static const char *const wchans[] = {
		"dma_fence", "dma_resv", "drm_", "i915", "amdgpu", "radeon", "nouveau",
		"panfrost", "msm_", "ttm_", "ps3rsx", "nvidia", NULL,
	};
	const char *fd = str_at(r, SR_FD, i);

	if (strcmp(str_at(r, SR_SYSCALL, i), "ioctl") == 0 &&
	    (str_startswith(fd, "/dev/dri/") || str_startswith(fd, "/dev/nvidia")))
		return true;
	return has_any(str_at(r, SR_WCHAN, i), wchans);
}

/* A page fault: which device served it. */
static enum stall_cause fault_cause(const struct stall_analysis *a, size_t i)
{
	const struct stallrec *r = a->rec;
	enum stall_cause only = SC_SWAP;
	int64_t best = 0;
	enum stall_cause c = SC_UNKNOWN;

	for (size_t k = 0; k < a->n_disk; k++) {
		const struct stall_disk *d = &a->disk[k];
		int64_t reads = delta(r, d->rd_ios, i);

		if (d->swap == SC_DISK)
			continue;
		if (a->n_swap == 1)
			only = d->swap;
		if (reads > best) {
			best = reads;
			c = d->swap;
		}
	}
	if (c != SC_UNKNOWN)
		return c;
	if (kdelta(r, SR_VM_PSWPIN, i) > 0)
		return only;
	for (size_t k = 0; k < a->n_disk; k++) {
		const struct stall_disk *d = &a->disk[k];
		const int64_t *fl = stallrec_col(r, d->in_flight);

		if (d->swap != SC_DISK)
			continue;
		if (delta(r, d->rd_ios, i) > 0 || (fl && (fl[i - 1] > 0 || fl[i] > 0)))
			return SC_DISK;
	}
	return SC_FAULT;
}

static bool is_reclaim(const struct stallrec *r, size_t i)
{
	static const char *const wchans[] = {
		"mem_cgroup_handle_over_high", "try_to_free", "shrink_", "throttle_direct_reclaim",
		"compact_", "reclaim", NULL,
	};
	int64_t all, global;

	if (kdelta(r, SR_VM_ALLOCSTALL, i) > 0 || kdelta(r, SR_VM_PGSCAN_DIRECT, i) > 0 ||
	    kdelta(r, SR_VM_PGSTEAL_DIRECT, i) > 0 || kdelta(r, SR_VM_COMPACT_STALL, i) > 0)
		return true;
	/* pgscan_anon/file count every scan; what the global reclaimers do
	 * not account for is a memory cgroup reclaiming at its limit */
	all = kdelta(r, SR_VM_PGSCAN_ANON, i) + kdelta(r, SR_VM_PGSCAN_FILE, i);
	global = kdelta(r, SR_VM_PGSCAN_KSWAPD, i) + kdelta(r, SR_VM_PGSCAN_DIRECT, i) +
		 kdelta(r, SR_VM_PGSCAN_KHUGEPAGED, i);
	if (have(r, SR_VM_PGSCAN_ANON) && all > global)
		return true;
	return has_any(str_at(r, SR_WCHAN, i), wchans);
}

const char *stall_wait_detail(const char *sc)
{
	static const char *const sockets[] = {
		"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "recvmsg",
		"recvfrom", NULL,
	};
	static const char *const sleeps[] = { "nanosleep", "clock_nanosleep", NULL };

	if (strcmp(sc, "futex") == 0)
		return "futex";
	if (in_list(sc, sockets))
		return "socket";
	if (in_list(sc, sleeps))
		return "sleep";
	return "other";
}

static enum stall_cause classify(const struct stall_analysis *a, size_t i, const char **detail)
{
	const struct stallrec *r = a->rec;
	int64_t state = at(r, SR_STATE, i), pid = at(r, SR_PID, i);
	const char *sc = str_at(r, SR_SYSCALL, i);
	int64_t dt = at(r, SR_T_US, i) - at(r, SR_T_US, i - 1);

	*detail = NULL;
	if (pid == 0 || pid != at(r, SR_PID, i - 1) || state == 0)
		return SC_UNKNOWN;
	if (kdelta(r, SR_MAIN_MAJFLT, i) > 0 || (state == 'D' && strcmp(sc, "-") == 0))
		return fault_cause(a, i);
	if ((state == 'S' || state == 'D') && is_gpu_wait(r, i))
		return SC_GPU;
	if (state == 'R' || state == 'D') {
		if (kdelta(r, SR_VM_CMA_ALLOC_SUCCESS, i) > 0 || kdelta(r, SR_GPU_MEM_KIB, i) > 0)
			return SC_GART;
		if (is_reclaim(r, i))
			return SC_RECLAIM;
	}
	if (state == 'D' && *sc)
		return SC_IO;
	if (state == 'R') {
		if (have(r, SR_MAIN_RUN_US) && have(r, SR_MAIN_RUNQ_US))
			return kdelta(r, SR_MAIN_RUNQ_US, i) > kdelta(r, SR_MAIN_RUN_US, i) ? SC_RUNQ
											    : SC_CPU;
		if (have(r, SR_PROC_CPU_US) && dt > 0 && kdelta(r, SR_PROC_CPU_US, i) * 4 < dt)
			return SC_RUNQ;
		return SC_CPU;
	}
	if (state == 'S' || state == 'I') {
		*detail = stall_wait_detail(sc);
		return SC_WAIT;
	}
	return SC_UNKNOWN;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

int stall_analysis_init(struct stall_analysis *a, const struct stallrec *rec)
{
	const char *psi = kvfile_get(&rec->meta, "sources.psi");
	const char *p = kvfile_get(&rec->meta, "period_us");
	uint64_t period;

	memset(a, 0, sizeof(*a));
	if (!have(rec, SR_T_US))
		return -EINVAL;
	a->rec = rec;
	a->psi_cgroup = psi && str_startswith(psi, "cgroup");
	if (p && safe_atou64(p, &period) == 0 && period > 0) {
		a->period_us = (int64_t)period;
	} else if (rec->n_rows > 1) {
		int64_t *step = zalloc((rec->n_rows - 1) * sizeof(*step));

		for (size_t i = 1; i < rec->n_rows; i++)
			step[i - 1] = at(rec, SR_T_US, i) - at(rec, SR_T_US, i - 1);
		qsort(step, rec->n_rows - 1, sizeof(*step), cmp_i64);
		a->period_us = step[(rec->n_rows - 1) / 2];
		free(step);
	}
	if (a->period_us <= 0)
		a->period_us = 10000;
	find_disks(a);
	a->cause = zalloc((rec->n_rows ? rec->n_rows : 1) * sizeof(*a->cause));
	a->detail = zalloc((rec->n_rows ? rec->n_rows : 1) * sizeof(*a->detail));
	for (size_t i = 1; i < rec->n_rows; i++)
		a->cause[i] = (uint8_t)classify(a, i, &a->detail[i]);
	return 0;
}

void stall_analysis_release(struct stall_analysis *a)
{
	if (!a)
		return;
	for (size_t k = 0; k < a->n_disk; k++)
		free(a->disk[k].name);
	free(a->disk);
	free(a->cause);
	free(a->detail);
	memset(a, 0, sizeof(*a));
}

/* ---- intervals ---- */

size_t stall_first_sample(const struct stall_analysis *a, int64_t t_us)
{
	const int64_t *t = stallrec_col(a->rec, a->rec->known[SR_T_US]);
	size_t lo = 0, hi = a->rec->n_rows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid] < t_us)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static double overlap(double a0, double a1, double b0, double b1)
{
	double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

/* The samples overlapping (s, e] (us) are i = span_begin() while span_more(). */
static size_t span_begin(const struct stall_analysis *a, double s)
{
	size_t i = stall_first_sample(a, (int64_t)s);

	return i ? i : 1;
}

static bool span_more(const struct stall_analysis *a, size_t i, double e)
{
	return i < a->rec->n_rows && (double)at(a->rec, SR_T_US, i - 1) < e;
}

/* Sample i's overlap with (s, e]: as a fraction of its whole interval (for
 * its deltas), and in us of the part its state speaks for (the last period
 * only, after a gap of over three periods). */
static void sample_span(const struct stall_analysis *a, size_t i, double s, double e,
			double *full, double *spoken)
{
	double t0 = (double)at(a->rec, SR_T_US, i - 1), t1 = (double)at(a->rec, SR_T_US, i);
	double from = t1 - t0 > 3.0 * (double)a->period_us ? t1 - (double)a->period_us : t0;

	*full = t1 > t0 ? overlap(t0, t1, s, e) / (t1 - t0) : 0;
	*spoken = overlap(from, t1, s, e);
}

double stall_delta_in(const struct stall_analysis *a, int col, uint64_t start_ns, uint64_t end_ns)
{
	double s = (double)start_ns / 1e3, e = (double)end_ns / 1e3, sum = 0, full, spoken;

	if (col < 0 || a->rec->n_rows < 2)
		return 0;
	for (size_t i = span_begin(a, s); span_more(a, i, e); i++) {
		sample_span(a, i, s, e, &full, &spoken);
		sum += (double)delta(a->rec, col, i) * full;
	}
	return sum;
}

double stall_sampled_in(const struct stall_analysis *a, enum stall_cause c, uint64_t start_ns,
			uint64_t end_ns)
{
	double s = (double)start_ns / 1e3, e = (double)end_ns / 1e3, sum = 0, full, spoken;

	if (a->rec->n_rows < 2)
		return 0;
	for (size_t i = span_begin(a, s); span_more(a, i, e); i++) {
		sample_span(a, i, s, e, &full, &spoken);
		if (a->cause[i] == c)
			sum += spoken;
	}
	return sum / 1e6;
}

/* ---- a stall ---- */

static double dly_s(const struct stall_analysis *a, enum sr_col c, uint64_t s, uint64_t e)
{
	return stall_delta_in(a, a->rec->known[c], s, e) / 1e6;
}

/* The swap kind a swap-in delay goes to: the samples' own, else the only
 * swap device's, else plain swap. */
static enum stall_cause swapin_kind(const struct stall_analysis *a, const struct stall *st)
{
	enum stall_cause best = SC_SWAP;

	for (int c = SC_SWAP_ZRAM; c <= SC_SWAP_DISK; c++)
		if (st->sampled_s[c] > st->sampled_s[best])
			best = (enum stall_cause)c;
	if (st->sampled_s[best] > 0 || a->n_swap != 1)
		return best;
	for (size_t k = 0; k < a->n_disk; k++)
		if (a->disk[k].swap != SC_DISK)
			return a->disk[k].swap;
	return SC_SWAP;
}

/* The thread's own exact counters: delay accounting, schedstat. Returns
 * the largest category; src[] says where each came from. */
static void thread_exact(const struct stall_analysis *a, const struct stall *st, double *x,
			 enum stall_decider *src)
{
	const struct stallrec *r = a->rec;
	uint64_t s = st->start_ns, e = st->end_ns;
	double blkio = dly_s(a, SR_DLY_BLKIO_US, s, e);
	enum stall_cause io = st->sampled_s[SC_IO] > st->sampled_s[SC_DISK] ? SC_IO : SC_DISK;
	enum stall_cause sw = swapin_kind(a, st);

	if (have(r, SR_DLY_CPU_US)) {
		x[SC_RUNQ] = dly_s(a, SR_DLY_CPU_US, s, e);
		src[SC_RUNQ] = SD_DELAY;
	} else if (have(r, SR_MAIN_RUNQ_US)) {
		x[SC_RUNQ] = dly_s(a, SR_MAIN_RUNQ_US, s, e);
		src[SC_RUNQ] = SD_SCHEDSTAT;
	}
	x[io] += blkio;
	x[sw] += dly_s(a, SR_DLY_SWAPIN_US, s, e);
	x[SC_RECLAIM] += dly_s(a, SR_DLY_RECLAIM_US, s, e) + dly_s(a, SR_DLY_COMPACT_US, s, e) +
			 dly_s(a, SR_DLY_THRASH_US, s, e);
}

static void psi_exact(const struct stall_analysis *a, const struct stall *st, double *x)
{
	x[SC_RECLAIM] = dly_s(a, SR_PSI_MEM_SOME, st->start_ns, st->end_ns);
	x[SC_DISK] = dly_s(a, SR_PSI_IO_SOME, st->start_ns, st->end_ns);
	x[SC_RUNQ] = dly_s(a, SR_PSI_CPU_SOME, st->start_ns, st->end_ns);
}

static enum stall_cause largest(const double *v)
{
	enum stall_cause best = SC_UNKNOWN;

	for (int c = 0; c < SC_COUNT; c++)
		if (v[c] > v[best])
			best = (enum stall_cause)c;
	return best;
}

/* The exact seconds decide: they are the least each of their causes gets
 * (scaled to the stall when they add up to more), and the seconds they did
 * not measure are split as the samples split the whole stall. A counter
 * measures only the waiting it names: a swap-in from zram delays the
 * thread a third of the time it spends faulting, the rest it runs, and
 * the samples say what it ran for. */
static void decide(struct stall *st, const double *x, double len)
{
	double sum = 0, sampled = 0, rest, scale = 1;

	for (int c = 0; c < SC_COUNT; c++) {
		sum += x[c];
		sampled += st->sampled_s[c];
	}
	if (sum > len)
		scale = len / sum;
	rest = len - sum * scale;
	for (int c = 0; c < SC_COUNT; c++) {
		st->exact_s[c] = x[c];
		st->share_s[c] = x[c] * scale + (sampled > 0 ? rest * st->sampled_s[c] / sampled : 0);
	}
}

void stall_attribute(const struct stall_analysis *a, uint64_t start_ns, uint64_t end_ns,
		     struct stall *st)
{
	double s = (double)start_ns / 1e3, e = (double)end_ns / 1e3, len = (e - s) / 1e6;
	double covered = 0, full, spoken, x[SC_COUNT] = { 0 };
	enum stall_decider src[SC_COUNT] = { SD_SAMPLED };
	enum stall_cause top;

	memset(st->sampled_s, 0, sizeof(st->sampled_s));
	memset(st->exact_s, 0, sizeof(st->exact_s));
	st->start_ns = start_ns;
	st->end_ns = end_ns;
	st->decided = SD_SAMPLED;
	if (a->rec->n_rows >= 2) {
		for (size_t i = span_begin(a, s); span_more(a, i, e); i++) {
			sample_span(a, i, s, e, &full, &spoken);
			st->sampled_s[a->cause[i]] += spoken / 1e6;
			covered += spoken / 1e6;
		}
	}
	st->sampled_s[SC_UNKNOWN] += len - covered > 0 ? len - covered : 0;
	memcpy(st->share_s, st->sampled_s, sizeof(st->share_s));

	for (int c = 0; c < SC_COUNT; c++)
		src[c] = SD_DELAY;
	thread_exact(a, st, x, src);
	top = largest(x);
	if (x[top] > 0 && x[top] * 3 >= len) {
		st->decided = src[top];
		decide(st, x, len);
	} else if (a->psi_cgroup) {
		memset(x, 0, sizeof(x));
		psi_exact(a, st, x);
		top = largest(x);
		if (x[top] > 0 && x[top] * 3 >= len) {
			st->decided = SD_PSI;
			decide(st, x, len);
		}
	}
	st->cause = largest(st->share_s);
}

/* ---- evidence ---- */

/* The sample that best shows the stall's cause: the one classified so
 * that speaks for the most of it, else the one that speaks for the most. */
static size_t telling_sample(const struct stall_analysis *a, const struct stall *st, double s,
			     double e)
{
	double best = -1, best_any = -1, full, spoken;
	size_t pick = 0, pick_any = 0;

	for (size_t i = span_begin(a, s); span_more(a, i, e); i++) {
		sample_span(a, i, s, e, &full, &spoken);
		if (a->cause[i] == st->cause && spoken > best) {
			best = spoken;
			pick = i;
		}
		if (spoken > best_any) {
			best_any = spoken;
			pick_any = i;
		}
	}
	return pick ? pick : pick_any;
}

static void sep(struct strbuf *out)
{
	if (out->len)
		strbuf_addstr(out, "; ");
}

/* A counter's whole deltas over the samples overlapping the stall. */
static int64_t moved(const struct stall_analysis *a, int col, double s, double e)
{
	int64_t sum = 0;

	for (size_t i = span_begin(a, s); col >= 0 && span_more(a, i, e); i++)
		if ((double)at(a->rec, SR_T_US, i) > s)
			sum += delta(a->rec, col, i);
	return sum;
}

static void add_moved(const struct stall_analysis *a, struct strbuf *out, enum sr_col c,
		      const char *what, double s, double e)
{
	int64_t v = moved(a, a->rec->known[c], s, e);

	if (v > 0) {
		sep(out);
		strbuf_addf(out, "+%lld %s", (long long)v, what);
	}
}

static void add_ms(const struct stall_analysis *a, struct strbuf *out, enum sr_col c,
		   const char *what, const struct stall *st)
{
	double ms = stall_delta_in(a, a->rec->known[c], st->start_ns, st->end_ns) / 1e3;

	if (a->rec->known[c] >= 0 && ms >= 0.5) {
		sep(out);
		strbuf_addf(out, "%s %.0f ms", what, ms);
	}
}

/* Whether a helper process (X, kswapd) was busy during the stall: in R or
 * D at a sample, or its CPU ticks moved. */
static void add_busy(const struct stall_analysis *a, struct strbuf *out, enum sr_col state,
		     enum sr_col ticks, enum sr_col majflt, const char *who, double s, double e)
{
	int64_t t = moved(a, a->rec->known[ticks], s, e);
	int64_t f = majflt < SR_COUNT ? moved(a, a->rec->known[majflt], s, e) : 0;
	int64_t seen = 0;

	for (size_t i = span_begin(a, s); span_more(a, i, e); i++) {
		int64_t v = at(a->rec, state, i);

		if (v == 'D' || (v == 'R' && !seen))
			seen = v;
	}
	if (!seen && t <= 0 && f <= 0)
		return;
	sep(out);
	strbuf_addf(out, "%s %c (+%lld ticks", who, seen ? (char)seen : '-', (long long)t);
	if (f > 0)
		strbuf_addf(out, ", +%lld majflt", (long long)f);
	strbuf_addch(out, ')');
}

/* The first kernel stack inside the stall, its top three frames. */
static void add_stack(const struct stall_analysis *a, struct strbuf *out, double s, double e)
{
	for (size_t k = 0; k < a->rec->n_stack; k++) {
		const struct stallrec_stack *sk = &a->rec->stack[k];
		const char *p = sk->text;

		if ((double)sk->t_us <= s || (double)sk->t_us > e)
			continue;
		sep(out);
		strbuf_addstr(out, "stack:");
		for (int n = 0; n < 3 && p && *p; n++) {
			const char *f = strchr(p, ']'), *end;

			f = f ? f + 1 : p;
			f += strspn(f, " ");
			end = f + strcspn(f, "+\n");
			strbuf_addf(out, "%s%.*s", n ? " < " : " ", (int)(end - f), f);
			p = strchr(p, '\n');
			p = p ? p + 1 : NULL;
		}
		return;
	}
}

void stall_evidence(const struct stall_analysis *a, const struct stall *st, struct strbuf *out)
{
	const struct stallrec *r = a->rec;
	double s = (double)st->start_ns / 1e3, e = (double)st->end_ns / 1e3;
	struct strbuf ev = STRBUF_INIT;
	size_t i = r->n_rows >= 2 ? telling_sample(a, st, s, e) : 0;

	if (i) {
		const char *sc = str_at(r, SR_SYSCALL, i), *fd = str_at(r, SR_FD, i);
		const char *wc = str_at(r, SR_WCHAN, i);
		int64_t state = at(r, SR_STATE, i);

		strbuf_addf(&ev, "%c", state ? (char)state : '?');
		if (strcmp(sc, "-") == 0)
			strbuf_addstr(&ev, " outside a system call");
		else if (*sc)
			strbuf_addf(&ev, " in %s", sc);
		if (*fd)
			strbuf_addf(&ev, " on %s", fd);
		if (*wc)
			strbuf_addf(&ev, " at %s", wc);
	}
	add_moved(a, &ev, SR_MAIN_MAJFLT, "majflt", s, e);
	for (size_t k = 0; k < a->n_disk; k++) {
		int64_t v = moved(a, a->disk[k].rd_ios, s, e);

		if (v > 0) {
			sep(&ev);
			strbuf_addf(&ev, "%s +%lld reads", a->disk[k].name, (long long)v);
		}
	}
	add_moved(a, &ev, SR_VM_PSWPIN, "pswpin", s, e);
	add_moved(a, &ev, SR_VM_ALLOCSTALL, "allocstall", s, e);
	add_moved(a, &ev, SR_VM_PGSCAN_DIRECT, "pgscan_direct", s, e);
	add_moved(a, &ev, SR_VM_PGSCAN_ANON, "pgscan_anon", s, e);
	add_moved(a, &ev, SR_VM_PGSCAN_FILE, "pgscan_file", s, e);
	add_moved(a, &ev, SR_VM_COMPACT_STALL, "compact_stall", s, e);
	add_moved(a, &ev, SR_VM_CMA_ALLOC_SUCCESS, "cma_alloc", s, e);
	add_moved(a, &ev, SR_GPU_MEM_KIB, "KiB GPU memory", s, e);
	add_ms(a, &ev, SR_DLY_BLKIO_US, "delay blkio", st);
	add_ms(a, &ev, SR_DLY_SWAPIN_US, "delay swapin", st);
	add_ms(a, &ev, SR_DLY_RECLAIM_US, "delay reclaim", st);
	add_ms(a, &ev, SR_DLY_COMPACT_US, "delay compact", st);
	add_ms(a, &ev, SR_DLY_THRASH_US, "delay thrashing", st);
	add_ms(a, &ev, SR_DLY_CPU_US, "delay cpu", st);
	add_ms(a, &ev, SR_MAIN_RUN_US, "schedstat run", st);
	add_ms(a, &ev, SR_MAIN_RUNQ_US, "schedstat runq", st);
	add_ms(a, &ev, SR_PROC_CPU_US, "process cpu", st);
	/* the system's PSI is evidence only: other processes move it */
	add_ms(a, &ev, SR_PSI_MEM_SOME, a->psi_cgroup ? "psi mem some" : "system psi mem some", st);
	add_ms(a, &ev, SR_PSI_IO_SOME, a->psi_cgroup ? "psi io some" : "system psi io some", st);
	add_ms(a, &ev, SR_PSI_CPU_SOME, a->psi_cgroup ? "psi cpu some" : "system psi cpu some", st);
	add_stack(a, &ev, s, e);
	add_busy(a, &ev, SR_X_STATE, SR_X_CPU_TICKS, SR_X_MAJFLT, "Xorg", s, e);
	add_busy(a, &ev, SR_KSWAPD_STATE, SR_KSWAPD_CPU_TICKS, SR_COUNT, "kswapd", s, e);
	if (!ev.len)
		strbuf_addstr(&ev, "no sample");
	strbuf_addstr(out, ev.buf);
	strbuf_release(&ev);
}
