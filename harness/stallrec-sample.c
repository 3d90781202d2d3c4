/*
 * The stall recorder, one sample: the game's main thread on every row, the
 * rest of the machine on a full row (sample() says when), into the live
 * record, without allocating, logging or opening files but for the game's
 * own when its pid changes.
 */
#include "stallrec-internal.h"
#include "system/fsroot.h"
#include "system/syscallname.h"
#include "base/timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

char rec_buf[65536];

/* pread of a whole small file into rec_buf (NUL-terminated); bytes or -1. */
ssize_t reread(int fd)
{
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, rec_buf, sizeof(rec_buf) - 1, 0);
	if (n < 0)
		return -1;
	rec_buf[n] = '\0';
	return n;
}

int open_rel(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int open_rel(const char *fmt, ...)
{
	char rel[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	return fsroot_open(rel, O_RDONLY | O_CLOEXEC);
}

void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static uint32_t intern(struct recorder *rc, const char *s, size_t len)
{
	if (rc->nowrite)
		return 0;
	return stallrec_live_intern(&rc->live, s, len);
}

/* The interned name of system call nr ("syscall_N" for one without a name). */
static uint32_t syscall_name_id(struct recorder *rc, long nr)
{
	const struct sysname *sn;
	char tmp[32];
	uint32_t id;

	if (nr >= 0 && nr < (long)ARRAY_SIZE(rc->syscall_id) && rc->syscall_id[nr])
		return rc->syscall_id[nr];
	sn = sysname_of(nr);
	if (sn)
		id = intern(rc, sn->name, strlen(sn->name));
	else
		id = intern(rc, tmp, (size_t)snprintf(tmp, sizeof(tmp), "syscall_%ld", nr));
	if (nr >= 0 && nr < (long)ARRAY_SIZE(rc->syscall_id))
		rc->syscall_id[nr] = id;
	return id;
}

/* ---- the game's files ---- */

static void game_close(struct game *g)
{
	close_fd(&g->stat_fd);
	close_fd(&g->task_stat_fd);
	close_fd(&g->wchan_fd);
	close_fd(&g->syscall_fd);
	close_fd(&g->schedstat_fd);
	close_fd(&g->stack_fd);
	close_fd(&g->fd_dir);
	for (int i = 0; i < g->n_drm; i++)
		close_fd(&g->drm_fdinfo[i]);
	g->n_drm = 0;
	g->pid = 0;
	g->alive = false;
	g->have_clock = false;
}

void game_open(struct recorder *rc, pid_t pid)
{
	struct game *g = &rc->g;

	game_close(g);
	g->pid = pid;
	g->opened_ns = mono_ns();
	g->drm_scans = 0;
	g->last_fd = -1;
	g->gpu_kib = 0;
	g->blocked_since_us = -1;
	if (pid <= 0)
		return;
	g->stat_fd = open_rel("proc/%d/stat", pid);
	g->task_stat_fd = open_rel("proc/%d/task/%d/stat", pid, pid);
	g->wchan_fd = open_rel("proc/%d/task/%d/wchan", pid, pid);
	g->syscall_fd = open_rel("proc/%d/task/%d/syscall", pid, pid);
	if (rc->use_schedstat)
		g->schedstat_fd = open_rel("proc/%d/task/%d/schedstat", pid, pid);
	if (rc->stack_ok)
		g->stack_fd = open_rel("proc/%d/task/%d/stack", pid, pid);
	g->fd_dir = open_rel("proc/%d/fd", pid);
	g->have_clock = clock_getcpuclockid(pid, &g->cpu_clock) == 0;
	g->alive = g->task_stat_fd >= 0;
}

/* Finds the game's DRM fds (what /dev/dri/ its fds point at) and opens
 * their fdinfo. A directory read with getdents64 into a static buffer:
 * nothing allocated. */
static void find_drm_fds(struct recorder *rc)
{
	static char dents[8192];
	struct game *g = &rc->g;
	long n;

	for (int i = 0; i < g->n_drm; i++)
		close_fd(&g->drm_fdinfo[i]);
	g->n_drm = 0;
	if (g->fd_dir < 0 || lseek(g->fd_dir, 0, SEEK_SET) < 0)
		return;
	while ((n = syscall(SYS_getdents64, g->fd_dir, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(dents + off);
			char target[64];
			ssize_t tl;

			off += d->d_reclen;
			if (d->d_name[0] == '.')
				continue;
			tl = readlinkat(g->fd_dir, d->d_name, target, sizeof(target) - 1);
			if (tl <= 0)
				continue;
			target[tl] = '\0';
			if (strncmp(target, "/dev/dri/", 9) != 0 || g->n_drm == ARRAY_SIZE(g->drm_fdinfo))
				continue;
			g->drm_fdinfo[g->n_drm] = open_rel("proc/%d/fdinfo/%s", g->pid, d->d_name);
			if (g->drm_fdinfo[g->n_drm] >= 0)
				g->n_drm++;
		}
	}
}

#define PUT(row, rc, c, v) do { if ((rc)->col[c] >= 0) (row)[(rc)->col[c]] = (int64_t)(v); } while (0)

static bool waits_by_design(const char *syscall)
{
	static const char *const waits[] = {
		"futex", "poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait",
		"epoll_pwait2", "nanosleep", "clock_nanosleep", "recvmsg", "recvfrom", "pause",
		"rt_sigtimedwait", "wait4", "waitid",
	};

	for (size_t i = 0; i < ARRAY_SIZE(waits); i++)
		if (strcmp(syscall, waits[i]) == 0)
			return true;
	return false;
}

/* The main thread's state and counters, read every sample (with the
 * process's CPU clock and, where it counts, schedstat: all cheap). Returns
 * whether this row should read everything: the thread is blocked in D or
 * in an odd state, or it took a major fault. */
static bool sample_main(struct recorder *rc, int64_t *row, struct pstat *st)
{
	struct game *g = &rc->g;
	struct pschedstat ss;
	struct timespec ts;
	bool full;

	if (!g->alive || reread(g->task_stat_fd) <= 0 || pstat_parse(rec_buf, st) < 0) {
		g->alive = false;
		return false;
	}
	PUT(row, rc, SR_PID, g->pid);
	PUT(row, rc, SR_STATE, (unsigned char)st->state);
	PUT(row, rc, SR_MAIN_MINFLT, st->minflt);
	PUT(row, rc, SR_MAIN_MAJFLT, st->majflt);
	PUT(row, rc, SR_MAIN_UTIME, st->utime);
	PUT(row, rc, SR_MAIN_STIME, st->stime);
	PUT(row, rc, SR_MAIN_CPU, st->processor);
	if (!rc->use_taskstats && st->have_blkio)
		PUT(row, rc, SR_DLY_BLKIO_US, st->blkio_ticks * 1000000 / rc->clk_tck);
	if (rc->use_schedstat && reread(g->schedstat_fd) > 0 && pschedstat_parse(rec_buf, &ss) == 0) {
		PUT(row, rc, SR_MAIN_RUN_US, ss.run_ns / 1000);
		PUT(row, rc, SR_MAIN_RUNQ_US, ss.runq_ns / 1000);
	}
	/* the process's CPU decides run queue against CPU only without
	 * schedstat; with it, full rows read it (sample_proc) */
	if (!rc->use_schedstat && g->have_clock && clock_gettime(g->cpu_clock, &ts) == 0)
		PUT(row, rc, SR_PROC_CPU_US, (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
	full = (st->state != 'R' && st->state != 'S' && st->state != 'I') ||
	       st->majflt != g->last_majflt;
	g->last_majflt = st->majflt;
	return full;
}

/* Where the main thread waits: its wait channel and system call (and what
 * the call's fd points at), on a full row when it is not running; and the
 * blocked episode that earns a kernel stack. */
static void sample_wait(struct recorder *rc, int64_t *row, const struct pstat *st, int64_t t_us)
{
	struct game *g = &rc->g;
	struct psyscall sc;
	const char *scname = "";

	if (!g->alive || st->state == 'R') {
		g->blocked_since_us = -1;
		return;
	}
	if (reread(g->wchan_fd) > 0)
		PUT(row, rc, SR_WCHAN, intern(rc, rec_buf, strcspn(rec_buf, "\n")));
	if (reread(g->syscall_fd) > 0 && psyscall_parse(rec_buf, &sc) == 0) {
		if (sc.kind == PSYSCALL_NONE) {
			PUT(row, rc, SR_SYSCALL, intern(rc, "-", 1));
			scname = "-";
		} else if (sc.kind == PSYSCALL_IN) {
			const struct sysname *sn = sysname_of(sc.nr);

			PUT(row, rc, SR_SYSCALL, syscall_name_id(rc, sc.nr));
			scname = sn ? sn->name : "";
			if (sn && sn->fd_first && (long)sc.args[0] >= 0) {
				long fd = (long)sc.args[0];

				if (fd != g->last_fd) {
					char num[24], target[HB_STALLREC_STR_LEN];
					ssize_t n;

					snprintf(num, sizeof(num), "%ld", fd);
					n = g->fd_dir >= 0 ? readlinkat(g->fd_dir, num, target,
									sizeof(target) - 1) : -1;
					g->last_fd = fd;
					g->last_fd_id = n > 0 ? intern(rc, target, (size_t)n) : 0;
				}
				PUT(row, rc, SR_FD, g->last_fd_id);
			}
		}
	}
	/* a blocked episode long enough for its kernel stack: D, or asleep
	 * somewhere that is not a wait by design */
	if (st->state == 'D' || (st->state == 'S' && !waits_by_design(scname))) {
		if (g->blocked_since_us < 0) {
			g->blocked_since_us = t_us;
			g->last_stack_us = -1;
		}
	} else {
		g->blocked_since_us = -1;
	}
}

static void sample_stack(struct recorder *rc, int64_t t_us)
{
	struct game *g = &rc->g;
	ssize_t n;

	if (g->stack_fd < 0 || g->blocked_since_us < 0 || rc->stacks >= STACK_MAX || rc->nowrite)
		return;
	if (t_us - g->blocked_since_us < STACK_AFTER_US)
		return;
	if (g->last_stack_us >= 0 && t_us - g->last_stack_us < STACK_EVERY_US)
		return;
	n = reread(g->stack_fd);
	if (n <= 0)
		return;
	if (stallrec_live_stack(&rc->live, t_us, (uint32_t)g->pid, rec_buf, (size_t)n))
		rc->stacks++;
	g->last_stack_us = t_us;
}

static void sample_proc(struct recorder *rc, int64_t *row)
{
	struct game *g = &rc->g;
	struct timespec ts;
	struct pstat st;

	if (g->alive && reread(g->stat_fd) > 0 && pstat_parse(rec_buf, &st) == 0) {
		PUT(row, rc, SR_PROC_MINFLT, st.minflt);
		PUT(row, rc, SR_PROC_MAJFLT, st.majflt);
		PUT(row, rc, SR_PROC_THREADS, st.num_threads);
	}
	if (g->alive && g->have_clock && clock_gettime(g->cpu_clock, &ts) == 0)
		PUT(row, rc, SR_PROC_CPU_US, (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
}

static void sample_delay(struct recorder *rc, int64_t *row)
{
	struct task_delays d;

	if (!rc->use_taskstats || !rc->g.alive || taskstats_query(&rc->ts, rc->g.pid, &d) < 0)
		return;
	PUT(row, rc, SR_DLY_CPU_US, d.cpu_ns / 1000);
	PUT(row, rc, SR_DLY_BLKIO_US, d.blkio_ns / 1000);
	PUT(row, rc, SR_DLY_SWAPIN_US, d.swapin_ns / 1000);
	PUT(row, rc, SR_DLY_RECLAIM_US, d.reclaim_ns / 1000);
	PUT(row, rc, SR_DLY_THRASH_US, d.thrashing_ns / 1000);
	PUT(row, rc, SR_DLY_COMPACT_US, d.compact_ns / 1000);
}

static void sample_psi(struct recorder *rc, int64_t *row)
{
	struct psi p;

	if (rc->psi_fd[0] < 0)
		return;
	if (reread(rc->psi_fd[0]) > 0 && psi_parse(rec_buf, &p) == 0)
		PUT(row, rc, SR_PSI_CPU_SOME, p.some.total_us);
	if (reread(rc->psi_fd[1]) > 0 && psi_parse(rec_buf, &p) == 0) {
		PUT(row, rc, SR_PSI_IO_SOME, p.some.total_us);
		PUT(row, rc, SR_PSI_IO_FULL, p.full.total_us);
	}
	if (reread(rc->psi_fd[2]) > 0 && psi_parse(rec_buf, &p) == 0) {
		PUT(row, rc, SR_PSI_MEM_SOME, p.some.total_us);
		PUT(row, rc, SR_PSI_MEM_FULL, p.full.total_us);
	}
}

static void sample_vmstat(struct recorder *rc, int64_t *row)
{
	uint64_t v[VMSTAT_MAX_WANT];
	bool have[VMSTAT_MAX_WANT];

	if (reread(rc->vmstat_fd) <= 0)
		return;
	vmstat_index_read(&rc->vmix, rec_buf, v, have);
	/* several counters add up to one column: start them from 0, not from
	 * the previous row's copy */
	for (size_t i = 0; i < n_vm_fields; i++)
		if (rc->col[vm_fields[i].col] >= 0)
			row[rc->col[vm_fields[i].col]] = 0;
	for (size_t i = 0; i < n_vm_fields; i++)
		if (have[i] && rc->col[vm_fields[i].col] >= 0)
			row[rc->col[vm_fields[i].col]] += (int64_t)v[i];
}

static void sample_disks(struct recorder *rc, int64_t *row)
{
	for (size_t i = 0; i < rc->n_disks; i++) {
		struct disk *d = &rc->disks[i];
		struct blkstat st;
		int64_t *out = row + d->col;

		if (reread(d->fd) <= 0 || blkstat_parse(rec_buf, &st) < 0)
			continue;
		out[SR_DISK_RD_IOS] = (int64_t)st.rd_ios;
		out[SR_DISK_RD_SECTORS] = (int64_t)st.rd_sectors;
		out[SR_DISK_WR_IOS] = (int64_t)st.wr_ios;
		out[SR_DISK_WR_SECTORS] = (int64_t)st.wr_sectors;
		out[SR_DISK_IN_FLIGHT] = (int64_t)st.in_flight;
		out[SR_DISK_IO_MS] = (int64_t)st.io_ms;
	}
}

static void sample_x(struct recorder *rc, int64_t *row)
{
	struct pstat st;

	if (rc->x_stat_fd < 0 || reread(rc->x_stat_fd) <= 0 || pstat_parse(rec_buf, &st) < 0)
		return;
	PUT(row, rc, SR_X_PID, rc->x_pid);
	PUT(row, rc, SR_X_STATE, (unsigned char)st.state);
	PUT(row, rc, SR_X_MAJFLT, st.majflt);
	PUT(row, rc, SR_X_CPU_TICKS, st.utime + st.stime);
	if (st.state == 'D' && reread(rc->x_wchan_fd) > 0)
		PUT(row, rc, SR_X_WCHAN, intern(rc, rec_buf, strcspn(rec_buf, "\n")));
}

static void sample_kswapd(struct recorder *rc, int64_t *row)
{
	uint64_t ticks = 0;
	char state = 0;

	for (size_t i = 0; i < rc->n_kswapd; i++) {
		struct pstat st;

		if (reread(rc->kswapd_fd[i]) <= 0 || pstat_parse(rec_buf, &st) < 0)
			continue;
		ticks += st.utime + st.stime;
		if (i == 0 || st.state == 'R')
			state = st.state == 'R' ? 'R' : (state ? state : st.state);
	}
	PUT(row, rc, SR_KSWAPD_STATE, (unsigned char)state);
	PUT(row, rc, SR_KSWAPD_CPU_TICKS, ticks);
}

/* A game opens its GPU while it starts: its fds are looked through 1, 5
 * and 30 s after the recorder took it on (a directory scan costs far more
 * than a sample), their fdinfo read on every 10th full row. */
static void sample_gpu(struct recorder *rc, int64_t *row)
{
	static const uint64_t scan_after_ns[] = { NSEC_PER_SEC, 5 * NSEC_PER_SEC, 30 * NSEC_PER_SEC };
	struct game *g = &rc->g;

	if (g->alive && g->drm_scans < (int)ARRAY_SIZE(scan_after_ns) &&
	    mono_ns() - g->opened_ns >= scan_after_ns[g->drm_scans]) {
		find_drm_fds(rc);
		g->drm_scans++;
	}
	if (g->alive && g->n_drm > 0 && rc->full_samples % 10 == 0) {
		uint64_t total = 0, kib;

		for (int i = 0; i < g->n_drm; i++)
			if (reread(g->drm_fdinfo[i]) > 0 && drm_fdinfo_mem_kib(rec_buf, &kib) == 0)
				total += kib;
		g->gpu_kib = total;
	}
	PUT(row, rc, SR_GPU_MEM_KIB, g->gpu_kib);
}

/* The process that presents takes over from a wrapper that started it
 * (the pid of a copy of the last stamped record, below the count the
 * previous sample read: the game writes the file). */
void follow_presenter(struct recorder *rc)
{
	struct hb_frame_record rec;
	pid_t p;

	if (!rc->have_frames || hb_frames_view_latest(&rc->frames, &rec) < 0 || rec.pid > INT_MAX)
		return;
	p = (pid_t)rec.pid;
	if (p > 0 && p != rc->g.pid && kill(p, 0) == 0)
		game_open(rc, p);
}

/* Whether the game is late with its next frame: no frame yet (loading),
 * or none for OVERDUE_NS. The count is the row's, read just before. */
static bool overdue(struct recorder *rc, uint64_t t)
{
	struct hb_frame_record rec;
	uint64_t last;

	if (!rc->have_frames)
		return true;
	last = hb_frames_view_latest(&rc->frames, &rec) == 0 ? rec.t_ns : 0;
	return last == 0 || (t > last && t - last >= OVERDUE_NS);
}

/* One sample. Every row reads the main thread (state, faults, CPU); a full
 * row also reads where it waits and everything machine-wide. Rows are full
 * while a frame is overdue (a stall may be under way), while the thread is
 * blocked or faulting, and every FULL_EVERY-th row; the others repeat the
 * previous row's machine-wide values, so the next full row's deltas cover
 * them. */
void sample(struct recorder *rc)
{
	typedef void (*part_fn)(struct recorder *, int64_t *);
	static const part_fn parts[P_COUNT] = {
		[P_PROC] = sample_proc, [P_DELAY] = sample_delay, [P_PSI] = sample_psi,
		[P_VMSTAT] = sample_vmstat, [P_DISKS] = sample_disks, [P_X] = sample_x,
		[P_KSWAPD] = sample_kswapd, [P_GPU] = sample_gpu,
	};
	int64_t *row = rc->nowrite ? rc->scratch : stallrec_live_row(&rc->live);
	bool measured = rc->samples % WORK_EVERY == 0;
	uint64_t w0 = measured ? thread_cpu_ns() : 0, w1, t = mono_ns(), t0, t1;
	int64_t t_us = (int64_t)(t / 1000);
	struct pstat st;
	bool full, timed;

	if (!row)
		return;     /* the file is full: the record says how many rows it holds */
	memcpy(row, rc->prev, rc->n_cols * sizeof(*row));
	row[rc->col[SR_T_US]] = t_us;
	row[rc->col[SR_RT_US]] = 0;
	if (rc->last_pair_us < 0 || t_us - rc->last_pair_us >= CLOCK_PAIR_EVERY_US) {
		row[rc->col[SR_RT_US]] = (int64_t)(real_ns() / 1000);
		rc->last_pair_us = t_us;
	}
	PUT(row, rc, SR_PID, 0);
	PUT(row, rc, SR_STATE, 0);
	PUT(row, rc, SR_WCHAN, 0);
	PUT(row, rc, SR_SYSCALL, 0);
	PUT(row, rc, SR_FD, 0);
	if (rc->have_frames)
		PUT(row, rc, SR_FRAMES, hb_frames_view_count(&rc->frames));
	full = sample_main(rc, row, &st);
	full = full || !rc->g.alive || rc->samples % FULL_EVERY == 0 || overdue(rc, t);
	PUT(row, rc, SR_FULL, full);
	if (full) {
		timed = rc->full_samples % PART_EVERY == 0;
		t0 = timed ? thread_cpu_ns() : 0;
		sample_wait(rc, row, &st, t_us);
		if (timed) {
			t1 = thread_cpu_ns();
			rc->part_ns[P_MAIN] += t1 - t0;
			t0 = t1;
		}
		for (int p = P_PROC; p < P_COUNT; p++) {
			if (p == P_STACK)
				sample_stack(rc, t_us);
			else
				parts[p](rc, row);
			if (timed) {
				t1 = thread_cpu_ns();
				rc->part_ns[p] += t1 - t0;
				t0 = t1;
			}
		}
		rc->part_samples += timed;
		rc->full_samples++;
	} else {
		rc->g.blocked_since_us = -1;
	}
	if (measured) {
		w1 = thread_cpu_ns();
		rc->work_ns[full] += w1 - w0;
		rc->work_n[full]++;
	}
	memcpy(rc->prev, row, rc->n_cols * sizeof(*row));
	if (!rc->nowrite)
		stallrec_live_commit(&rc->live);
	rc->samples++;
}
