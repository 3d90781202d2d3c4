/*
 * The hand-made stall run (see stallrun.h). Every sample is written as
 * the recorder would: cumulative counters, the main thread's state and
 * strings at the sample, a 10 ms clock.
 */
#include "stallrun.h"

#include "formats/frames.h"
#include "text/kvfile.h"
#include "formats/stallrecord.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull                    /* ns */
#define T0_NS (1000ull * 1000 * MS)      /* the pass's launch */
#define FIRST_NS (T0_NS + 400 * MS)      /* its first present */
#define WARM_STALL_NS (FIRST_NS + 400 * MS)
#define WIN_START_NS (FIRST_NS + 1000 * MS)
#define RT_OFFSET_NS 1699999000000000000ull
#define PID 4242

static const struct stallrun_case sampled_cases[] = {
	{ "warm", "disk", "sampled", "warm-up" },
	{ "disk", "disk", "sampled", "window" },
	{ "swap_zram", "swap_zram", "sampled", "window" },
	{ "swap_vram", "swap_vram", "sampled", "window" },
	{ "swap_disk", "swap_disk", "sampled", "window" },
	{ "swap", "swap", "sampled", "window" },
	{ "fault", "fault", "sampled", "window" },
	{ "reclaim", "reclaim", "sampled", "window" },
	{ "reclaim_memcg", "reclaim", "sampled", "window" },
	{ "gart", "gart", "sampled", "window" },
	{ "gpu_ioctl", "gpu", "sampled", "window" },
	{ "gpu_fence", "gpu", "sampled", "window" },
	{ "io", "io", "sampled", "window" },
	{ "cpu", "cpu", "sampled", "window" },
	{ "runq", "runq", "sampled", "window" },
	{ "wait", "wait", "sampled", "window" },
	{ "gap", "unknown", "sampled", "window" },
	{ "system_psi", "cpu", "sampled", "window" },
};

static const struct stallrun_case exact_cases[] = {
	{ "warm", "disk", "delay", "warm-up" },
	{ "cpu_sched", "cpu", "sampled", "window" },
	{ "runq_sched", "runq", "schedstat", "window" },
	{ "blkio_over_cpu", "disk", "delay", "window" },
	{ "psi_cgroup", "reclaim", "psi", "window" },
};

const struct stallrun_case *stallrun_cases(enum stallrun_kind kind, size_t *n)
{
	if (kind == STALLRUN_EXACT) {
		*n = ARRAY_SIZE(exact_cases);
		return exact_cases;
	}
	*n = ARRAY_SIZE(sampled_cases);
	return sampled_cases;
}

struct gen {
	struct stallrec r;
	int64_t *cur;
};

static void bump(struct gen *g, const char *name, int64_t v)
{
	int c = stallrec_find(&g->r, name);

	if (c >= 0)
		g->cur[c] += v;
}

static void put(struct gen *g, const char *name, int64_t v)
{
	int c = stallrec_find(&g->r, name);

	if (c >= 0)
		g->cur[c] = v;
}

static void put_str(struct gen *g, const char *name, const char *s)
{
	put(g, name, stallrec_intern(&g->r, s));
}

static void thread(struct gen *g, char state, const char *sc, const char *fd, const char *wchan)
{
	put(g, "main.state", state);
	put_str(g, "main.syscall", sc);
	put_str(g, "main.fd", fd);
	put_str(g, "main.wchan", wchan);
}

static void cpu(struct gen *g, int64_t proc_us, int64_t run_us, int64_t runq_us)
{
	bump(g, "proc.cpu_us", proc_us);
	bump(g, "main.run_us", run_us);
	bump(g, "main.runq_us", runq_us);
}

static void fault(struct gen *g, const char *dev, int n)
{
	char *col = xasprintf("disk.%s.rd_ios", dev);

	thread(g, 'D', "-", "", "folio_wait_bit_common");
	bump(g, "main.majflt", n);
	bump(g, "proc.majflt", n);
	bump(g, "vm.pgmajfault", n);
	if (*dev)
		bump(g, col, n);
	free(col);
}

/* One sample of the named stall (or "normal", or "load"). */
static void sample(struct gen *g, const char *k, int64_t t_us, bool first_of_stall)
{
	thread(g, 'R', "", "", "");
	put(g, "x.state", 'S');
	put(g, "kswapd.state", 'S');
	if (!strcmp(k, "normal") || !strcmp(k, "cpu") || !strcmp(k, "system_psi")) {
		cpu(g, 10000, 10000, 0);
		if (!strcmp(k, "system_psi")) {
			bump(g, "psi.cpu_some_us", 9000);
			bump(g, "psi.mem_some_us", 9000);
		}
	} else if (!strcmp(k, "load") || !strcmp(k, "warm") || !strcmp(k, "disk")) {
		fault(g, "vda", 3);
		bump(g, "delay.blkio_us", 10000);
	} else if (!strcmp(k, "swap_zram") || !strcmp(k, "swap_vram") || !strcmp(k, "swap_disk")) {
		fault(g, !strcmp(k, "swap_zram") ? "zram0" : !strcmp(k, "swap_vram") ? "vswap0" : "sdb", 2);
		bump(g, "vm.pswpin", 2);
	} else if (!strcmp(k, "swap")) {
		fault(g, "", 1);
		bump(g, "vm.pswpin", 1);
	} else if (!strcmp(k, "fault")) {
		fault(g, "", 1);
	} else if (!strcmp(k, "reclaim")) {
		cpu(g, 10000, 10000, 0);
		bump(g, "vm.allocstall", 1);
		bump(g, "vm.pgscan_direct", 32);
		bump(g, "vm.pgscan_file", 32);
		bump(g, "vm.pgsteal_direct", 20);
	} else if (!strcmp(k, "reclaim_memcg")) {
		cpu(g, 10000, 10000, 0);
		bump(g, "vm.pgscan_file", 64);
	} else if (!strcmp(k, "gart")) {
		cpu(g, 10000, 10000, 0);
		bump(g, "vm.cma_alloc_success", 1);
		bump(g, "gpu.mem_kib", 1024);
	} else if (!strcmp(k, "gpu_ioctl")) {
		thread(g, 'S', "ioctl", "/dev/dri/renderD128", "");
	} else if (!strcmp(k, "gpu_fence")) {
		thread(g, 'S', "poll", "", "dma_fence_default_wait");
	} else if (!strcmp(k, "io")) {
		thread(g, 'D', "pread64", "/usr/share/games/doom/freedoom2.wad", "folio_wait_bit_common");
		put(g, "x.state", 'R');
		bump(g, "x.cpu_ticks", 1);
		if (first_of_stall)
			stallrec_add_stack(&g->r, t_us, PID,
					   "[<0>] folio_wait_bit_common+0x13c/0x350\n"
					   "[<0>] filemap_read+0x2a1/0x330\n"
					   "[<0>] vfs_read+0x1e1/0x2e0\n[<0>] __x64_sys_pread64+0x91/0xc0\n");
	} else if (!strcmp(k, "runq")) {
		cpu(g, 1000, 1000, 0);
	} else if (!strcmp(k, "wait")) {
		thread(g, 'S', "futex", "", "futex_wait_queue");
	} else if (!strcmp(k, "cpu_sched")) {
		cpu(g, 9000, 9000, 1000);
	} else if (!strcmp(k, "runq_sched")) {
		cpu(g, 1000, 1000, 9000);
	} else if (!strcmp(k, "blkio_over_cpu")) {
		cpu(g, 10000, 10000, 0);
		bump(g, "delay.blkio_us", 7500);
	} else if (!strcmp(k, "psi_cgroup")) {
		thread(g, 'S', "futex", "", "futex_wait_queue");
		bump(g, "psi.mem_some_us", 8000);
	}
}

static void columns(struct gen *g, enum stallrun_kind kind)
{
	static const char *const devs[] = { "vda", "zram0", "vswap0", "sdb" };
	const char **names = zalloc((SR_COUNT + 4 * SR_DISK_FIELDS) * sizeof(*names));
	uint8_t *enc = zalloc(SR_COUNT + 4 * SR_DISK_FIELDS);
	char **own = zalloc(4 * SR_DISK_FIELDS * sizeof(*own));
	size_t n = 0, n_own = 0;

	for (int c = 0; c < SR_COUNT; c++) {
		const char *name = sr_col_names[c];

		if (kind == STALLRUN_SAMPLED && (str_startswith(name, "delay.") ||
						 !strcmp(name, "main.run_us") || !strcmp(name, "main.runq_us")))
			continue;
		if (kind == STALLRUN_EXACT && !strcmp(name, "delay.cpu_us"))
			continue;
		enc[n] = c == SR_T_US ? SR_ENC_DELTA2 : SR_ENC_DELTA;
		names[n++] = name;
	}
	for (size_t d = 0; d < ARRAY_SIZE(devs); d++)
		for (int f = 0; f < SR_DISK_FIELDS; f++) {
			own[n_own] = xasprintf("disk.%s.%s", devs[d], sr_disk_field_names[f]);
			names[n++] = own[n_own++];
		}
	stallrec_set_columns(&g->r, names, enc, n);
	for (size_t i = 0; i < n_own; i++)
		free(own[i]);
	free(own);
	free(names);
	free(enc);
	g->cur = zalloc(n * sizeof(*g->cur));
	kvfile_add(&g->r.meta, "period_us", "10000");
	kvfile_add(&g->r.meta, "sources.psi", kind == STALLRUN_EXACT ? "cgroup:/hitchbench/game" : "system");
	kvfile_add(&g->r.meta, "sources.delayacct", kind == STALLRUN_EXACT ? "proc" : "none");
	kvfile_add(&g->r.meta, "sources.schedstat", kind == STALLRUN_EXACT ? "yes" : "no");
	kvfile_add(&g->r.meta, "sources.stacks", "yes");
	kvfile_add(&g->r.meta, "swaps", "zram0:zram vswap0:vram sdb:disk");
	kvfile_add(&g->r.meta, "disk.vda.kind", "disk");
	kvfile_add(&g->r.meta, "disk.zram0.kind", "zram");
	kvfile_add(&g->r.meta, "disk.vswap0.kind", "vram");
	kvfile_add(&g->r.meta, "disk.sdb.kind", "disk");
}

/* The stall (index into cases) whose frame (a, a + 200 ms] holds t, or -1. */
static int stall_at(const uint64_t *start, size_t n, uint64_t t)
{
	for (size_t k = 0; k < n; k++)
		if (t > start[k] && t <= start[k] + 200 * MS)
			return (int)k;
	return -1;
}

int stallrun_write(const char *dir, enum stallrun_kind kind)
{
	size_t n_case, n_t = 0;
	const struct stallrun_case *cases = stallrun_cases(kind, &n_case);
	uint64_t *start = zalloc(n_case * sizeof(*start)), *t = NULL, ws = WIN_START_NS, we, rec_mono;
	struct kvfile bench;
	struct gen g;
	char *path = NULL;
	int r, last = -1, n_samples = 0;

	for (size_t k = 0, w = 0; k < n_case; k++)
		start[k] = !strcmp(cases[k].section, "warm-up") ? WARM_STALL_NS : ws + 200 * MS + 400 * MS * w++;
	we = start[n_case - 1] + 600 * MS;
	t = zalloc(((we - FIRST_NS) / (20 * MS) + 2) * sizeof(*t));
	for (uint64_t x = FIRST_NS; x <= we;) {
		int s = stall_at(start, n_case, x + 1);

		t[n_t++] = x;
		x += s >= 0 && start[s] == x ? 200 * MS : 20 * MS;
	}
	path = xasprintf("%s/frames.bin", dir);
	r = hb_frames_write(path, t, n_t, 0, 0644);
	free(path);
	if (r < 0)
		goto out;

	kvfile_init(&bench);
	kvfile_add(&bench, "format", "1");
	kvfile_addf(&bench, "run_id", "%032d", (int)kind + 1);
	kvfile_add(&bench, "game", "stallgame");
	kvfile_add(&bench, "variant", "base");
	kvfile_add(&bench, "run_name", kind == STALLRUN_EXACT ? "exact@rec10" : "sampled@rec10");
	kvfile_add(&bench, "status", "ok");
	kvfile_add(&bench, "batch_id", "b1");
	kvfile_add(&bench, "kernel_release", "6.1.0");
	kvfile_add(&bench, "started_utc", "2026-12-01T10:00:00Z");
	kvfile_addf(&bench, "clock_pair", "%llu %llu", (unsigned long long)(T0_NS - 200 * MS),
		    (unsigned long long)(T0_NS - 200 * MS + RT_OFFSET_NS));
	kvfile_addf(&bench, "pass.1.start_ns", "%llu", (unsigned long long)T0_NS);
	kvfile_addf(&bench, "first_frame_ns", "%llu", (unsigned long long)FIRST_NS);
	kvfile_addf(&bench, "window_start_ns", "%llu", (unsigned long long)ws);
	kvfile_addf(&bench, "window_end_ns", "%llu", (unsigned long long)we);
	path = xasprintf("%s/bench.txt", dir);
	r = kvfile_write(&bench, path);
	kvfile_release(&bench);
	free(path);
	if (r < 0)
		goto out;

	stallrec_init(&g.r);
	columns(&g, kind);
	rec_mono = T0_NS - 100 * MS;
	kvfile_addf(&g.r.meta, "clock_pair", "%llu %llu", (unsigned long long)rec_mono,
		    (unsigned long long)(rec_mono + RT_OFFSET_NS + MS));
	for (uint64_t ts = T0_NS - 100 * MS + 3 * MS; ts <= we + 100 * MS; ts += 10 * MS) {
		uint64_t mid = ts - 5 * MS;
		int s = stall_at(start, n_case, mid);
		const char *k = s >= 0 ? cases[s].name : mid > T0_NS && mid <= FIRST_NS ? "load" : "normal";
		int64_t frames = 0;

		/* the gap: no sample speaks for the stall but the last */
		if (s >= 0 && !strcmp(k, "gap") && mid <= start[s] + 190 * MS)
			continue;
		if (s >= 0 && !strcmp(k, "gap"))
			k = "normal";
		while ((size_t)frames < n_t && t[frames] <= ts)
			frames++;
		sample(&g, k, (int64_t)(ts / 1000), s != last);
		last = s;
		put(&g, "t_us", (int64_t)(ts / 1000));
		put(&g, "rt_us", n_samples ? 0 : (int64_t)((ts + RT_OFFSET_NS + MS) / 1000));
		put(&g, "pid", PID);
		put(&g, "frames", frames);
		put(&g, "proc.threads", 4);
		stallrec_add_row(&g.r, g.cur);
		n_samples++;
	}
	kvfile_addf(&g.r.trailer, "samples", "%d", n_samples);
	kvfile_addf(&g.r.trailer, "cpu_us", "%d", 5 * n_samples);
	kvfile_add(&g.r.trailer, "cpu_pct", "0.05");
	kvfile_add(&g.r.trailer, "us_per_sample", "5.0");
	kvfile_add(&g.r.trailer, "work_us_per_sample", "3.5");
	kvfile_addf(&g.r.trailer, "cost.vmstat_ns", "%d", 2000 * n_samples);
	kvfile_addf(&g.r.trailer, "cost.disk_ns", "%d", 1000 * n_samples);
	path = xasprintf("%s/%s", dir, HB_STALLREC_FILE);
	{
		struct strbuf err = STRBUF_INIT;

		r = stallrec_write(&g.r, path, &err);
		strbuf_release(&err);
	}
	free(path);
	free(g.cur);
	stallrec_release(&g.r);
out:
	free(start);
	free(t);
	return r;
}
