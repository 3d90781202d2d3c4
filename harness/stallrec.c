/*
 * hitchbench-stallrec: the stall recorder. Beside a game (the STALLS
 * switch) it samples, every period (10 ms by default), what the game's main
 * thread is doing and what the machine's memory and disks are doing, into
 * a live record in /dev/shm (common/stallrec.h), packed into the run
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
 */
#include "exitcodes.h"
#include "frames.h"
#include "fsroot.h"
#include "procparse.h"
#include "stallrec.h"
#include "switch.h"     /* cpu_list_parse */
#include "taskstats.h"
#include "timeutil.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define MAX_DISKS 32
#define MAX_KSWAPD 16
#define MAX_COLS (SR_COUNT + MAX_DISKS * SR_DISK_FIELDS)
#define STACK_AFTER_US 50000     /* a blocked episode's first stack after 50 ms */
#define STACK_EVERY_US 250000    /* then every 250 ms of it */
#define STACK_MAX 1000
#define CLOCK_PAIR_EVERY_US 10000000
#define PART_EVERY 16            /* parts are timed on one full sample in 16 */
#define WORK_EVERY 8             /* a sample's own CPU is measured on one in 8 */
#define FULL_EVERY 10            /* a full row at least every 10th sample */
#define OVERDUE_NS (25 * NSEC_PER_MSEC) /* no present for 25 ms: every row full */

static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t new_pid = -1;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void on_pid(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SI_QUEUE)
		new_pid = si->si_value.sival_int;
}

/* ---- files re-read every sample ---- */

static char buf[65536];

/* pread of a whole small file into buf (NUL-terminated); bytes or -1. */
static ssize_t reread(int fd)
{
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static int open_rel(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int open_rel(const char *fmt, ...)
{
	char rel[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	return fsroot_open(rel, O_RDONLY | O_CLOEXEC);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- what is sampled ---- */

struct disk {
	char name[32];
	const char *kind;
	int fd;                 /* sys/block/NAME/stat */
	int col;                /* its first column */
};

struct game {
	pid_t pid;
	bool alive;
	int stat_fd, task_stat_fd, wchan_fd, syscall_fd, schedstat_fd, stack_fd;
	int fd_dir;             /* proc/PID/fd, for what a call's fd points at */
	clockid_t cpu_clock;
	bool have_clock;
	/* the fd target of the previous sample, kept while the call's fd is the same */
	long last_fd;
	uint32_t last_fd_id;
	/* the GPU's memory: the game's DRM fds, found once a second */
	int drm_fdinfo[8];
	int n_drm, drm_scans;
	uint64_t gpu_kib;
	uint64_t opened_ns;         /* when the recorder took this pid on */
	uint64_t last_majflt;
	/* the current blocked episode, for kernel stacks */
	int64_t blocked_since_us, last_stack_us;
};

struct recorder {
	uint64_t period_ns;
	bool nowrite;
	const char *out_path, *live_path, *frames_path;
	const char *cgroup_dir;     /* --cgroup: the game's own cgroup, for its PSI */
	struct stallrec_live live;
	int64_t scratch[MAX_COLS];  /* the row when nothing is written */
	int64_t prev[MAX_COLS];     /* the previous row: a light row starts as its copy */
	uint64_t clk_tck;
	size_t n_cols;
	int col[SR_COUNT];          /* the column of each well-known name, -1 if not recorded */
	struct game g;
	struct hb_frames_view frames;
	bool have_frames;
	/* the machine */
	int vmstat_fd;
	struct vmstat_index vmix;
	int psi_fd[3];              /* cpu, io, memory */
	bool psi_cgroup;
	struct disk disks[MAX_DISKS];
	size_t n_disks;
	pid_t x_pid;
	int x_stat_fd, x_wchan_fd;
	int kswapd_fd[MAX_KSWAPD];
	size_t n_kswapd;
	/* delay accounting */
	struct taskstats_client ts;
	bool use_taskstats, use_schedstat, stack_ok;
	/* bookkeeping */
	uint64_t samples, full_samples, late, missed, stacks;
	uint64_t work_ns[2];        /* CPU time inside light [0] and full [1] samples measured */
	uint64_t work_n[2];         /* how many of each were measured */
	uint64_t part_ns[16], part_samples;
	int64_t last_pair_us;
	uint32_t syscall_id[1024];  /* interned names by system call number */
};

/* The vmstat counters read, in this order; sums go to one column. */
static const struct {
	const char *name;
	enum sr_col col;
} vm_fields[] = {
	{ "pswpin", SR_VM_PSWPIN },
	{ "pswpout", SR_VM_PSWPOUT },
	{ "pgmajfault", SR_VM_PGMAJFAULT },
	{ "allocstall", SR_VM_ALLOCSTALL },
	{ "allocstall_dma", SR_VM_ALLOCSTALL },
	{ "allocstall_dma32", SR_VM_ALLOCSTALL },
	{ "allocstall_normal", SR_VM_ALLOCSTALL },
	{ "allocstall_movable", SR_VM_ALLOCSTALL },
	{ "allocstall_device", SR_VM_ALLOCSTALL },
	{ "pgscan_kswapd", SR_VM_PGSCAN_KSWAPD },
	{ "pgscan_direct", SR_VM_PGSCAN_DIRECT },
	{ "pgscan_khugepaged", SR_VM_PGSCAN_KHUGEPAGED },
	{ "pgscan_anon", SR_VM_PGSCAN_ANON },
	{ "pgscan_file", SR_VM_PGSCAN_FILE },
	{ "pgsteal_kswapd", SR_VM_PGSTEAL_KSWAPD },
	{ "pgsteal_direct", SR_VM_PGSTEAL_DIRECT },
	{ "compact_stall", SR_VM_COMPACT_STALL },
	{ "compact_fail", SR_VM_COMPACT_FAIL },
	{ "compact_success", SR_VM_COMPACT_SUCCESS },
	{ "pgmigrate_success", SR_VM_PGMIGRATE_SUCCESS },
	{ "workingset_refault", SR_VM_WORKINGSET_REFAULT },
	{ "workingset_refault_anon", SR_VM_WORKINGSET_REFAULT },
	{ "workingset_refault_file", SR_VM_WORKINGSET_REFAULT },
	{ "workingset_activate", SR_VM_WORKINGSET_ACTIVATE },
	{ "workingset_activate_anon", SR_VM_WORKINGSET_ACTIVATE },
	{ "workingset_activate_file", SR_VM_WORKINGSET_ACTIVATE },
	{ "workingset_restore", SR_VM_WORKINGSET_RESTORE },
	{ "workingset_restore_anon", SR_VM_WORKINGSET_RESTORE },
	{ "workingset_restore_file", SR_VM_WORKINGSET_RESTORE },
	{ "cma_alloc_success", SR_VM_CMA_ALLOC_SUCCESS },
	{ "cma_alloc_fail", SR_VM_CMA_ALLOC_FAIL },
	{ "thp_fault_alloc", SR_VM_THP_FAULT_ALLOC },
	{ "nr_free_pages", SR_VM_NR_FREE_PAGES },
	{ "nr_dirty", SR_VM_NR_DIRTY },
	{ "nr_writeback", SR_VM_NR_WRITEBACK },
};

/* Parts of a sample, timed on one sample in PART_EVERY. */
enum part { P_MAIN, P_PROC, P_DELAY, P_PSI, P_VMSTAT, P_DISKS, P_X, P_KSWAPD, P_GPU, P_STACK,
	    P_COUNT };
static const char *const part_names[P_COUNT] = {
	"main", "proc", "delay", "psi", "vmstat", "disks", "x", "kswapd", "gpu", "stack",
};

/* ---- system call names (this machine's numbers) ---- */

struct sysname {
	long nr;
	const char *name;
	bool fd_first;          /* its first argument is an fd */
};

#define SC(n, fd) { SYS_##n, #n, fd }
static const struct sysname sysnames[] = {
#ifdef SYS_read
	SC(read, true),
#endif
#ifdef SYS_write
	SC(write, true),
#endif
#ifdef SYS_pread64
	SC(pread64, true),
#endif
#ifdef SYS_pwrite64
	SC(pwrite64, true),
#endif
#ifdef SYS_readv
	SC(readv, true),
#endif
#ifdef SYS_writev
	SC(writev, true),
#endif
#ifdef SYS_preadv
	SC(preadv, true),
#endif
#ifdef SYS_preadv2
	SC(preadv2, true),
#endif
#ifdef SYS_pwritev
	SC(pwritev, true),
#endif
#ifdef SYS_ioctl
	SC(ioctl, true),
#endif
#ifdef SYS_fsync
	SC(fsync, true),
#endif
#ifdef SYS_fdatasync
	SC(fdatasync, true),
#endif
#ifdef SYS_sync_file_range
	SC(sync_file_range, true),
#endif
#ifdef SYS_getdents64
	SC(getdents64, true),
#endif
#ifdef SYS_recvmsg
	SC(recvmsg, true),
#endif
#ifdef SYS_recvfrom
	SC(recvfrom, true),
#endif
#ifdef SYS_sendmsg
	SC(sendmsg, true),
#endif
#ifdef SYS_sendto
	SC(sendto, true),
#endif
#ifdef SYS_epoll_wait
	SC(epoll_wait, true),
#endif
#ifdef SYS_epoll_pwait
	SC(epoll_pwait, true),
#endif
#ifdef SYS_epoll_pwait2
	SC(epoll_pwait2, true),
#endif
#ifdef SYS_io_uring_enter
	SC(io_uring_enter, true),
#endif
#ifdef SYS_fallocate
	SC(fallocate, true),
#endif
#ifdef SYS_ftruncate
	SC(ftruncate, true),
#endif
#ifdef SYS_flock
	SC(flock, true),
#endif
#ifdef SYS_fcntl
	SC(fcntl, true),
#endif
#ifdef SYS_accept4
	SC(accept4, true),
#endif
#ifdef SYS_connect
	SC(connect, true),
#endif
#ifdef SYS_futex
	SC(futex, false),
#endif
#ifdef SYS_poll
	SC(poll, false),
#endif
#ifdef SYS_ppoll
	SC(ppoll, false),
#endif
#ifdef SYS_select
	SC(select, false),
#endif
#ifdef SYS_pselect6
	SC(pselect6, false),
#endif
#ifdef SYS_nanosleep
	SC(nanosleep, false),
#endif
#ifdef SYS_clock_nanosleep
	SC(clock_nanosleep, false),
#endif
#ifdef SYS_sched_yield
	SC(sched_yield, false),
#endif
#ifdef SYS_open
	SC(open, false),
#endif
#ifdef SYS_openat
	SC(openat, false),
#endif
#ifdef SYS_stat
	SC(stat, false),
#endif
#ifdef SYS_newfstatat
	SC(newfstatat, false),
#endif
#ifdef SYS_statx
	SC(statx, false),
#endif
#ifdef SYS_mmap
	SC(mmap, false),
#endif
#ifdef SYS_munmap
	SC(munmap, false),
#endif
#ifdef SYS_mprotect
	SC(mprotect, false),
#endif
#ifdef SYS_madvise
	SC(madvise, false),
#endif
#ifdef SYS_brk
	SC(brk, false),
#endif
#ifdef SYS_wait4
	SC(wait4, false),
#endif
#ifdef SYS_waitid
	SC(waitid, false),
#endif
#ifdef SYS_execve
	SC(execve, false),
#endif
#ifdef SYS_exit_group
	SC(exit_group, false),
#endif
#ifdef SYS_io_getevents
	SC(io_getevents, false),
#endif
#ifdef SYS_sync
	SC(sync, false),
#endif
#ifdef SYS_rt_sigtimedwait
	SC(rt_sigtimedwait, false),
#endif
#ifdef SYS_pause
	SC(pause, false),
#endif
};

static const struct sysname *sysname_of(long nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(sysnames); i++)
		if (sysnames[i].nr == nr)
			return &sysnames[i];
	return NULL;
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

static void game_open(struct recorder *rc, pid_t pid)
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

/* ---- discovery, once ---- */

static const char *disk_kind(const char *name)
{
	if (strncmp(name, "zram", 4) == 0)
		return "zram";
	if (strstr(name, "vram") || strstr(name, "vswap"))
		return "vram";
	return "disk";
}

/* The whole disk a block device name belongs to (itself if not a partition). */
static void whole_disk(const char *name, char *out, size_t size)
{
	char rel[160], link[256], *slash;
	ssize_t n;

	snprintf(out, size, "%s", name);
	snprintf(rel, sizeof(rel), "%s/sys/class/block/%s/partition", fsroot(), name);
	if (access(rel, F_OK) != 0)
		return;
	snprintf(rel, sizeof(rel), "%s/sys/class/block/%s", fsroot(), name);
	n = readlink(rel, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	if ((slash = strrchr(link, '/')) != NULL) {
		*slash = '\0';
		if ((slash = strrchr(link, '/')) != NULL)
			snprintf(out, size, "%s", slash + 1);
	}
}

/* Block devices worth watching: every /proc/diskstats device that is a
 * whole disk (sys/block/NAME) with a size, loop and ram devices left out
 * unless they are in use. */
static void find_disks(struct recorder *rc)
{
	char *all = NULL, *save, *line;

	if (fsroot_read_all("proc/diskstats", &all) < 0)
		return;
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct blkstat st;
		char rel[128], size[32];
		struct disk *d;

		if (diskstats_line_parse(line, &st) < 0 || rc->n_disks == MAX_DISKS)
			continue;
		snprintf(rel, sizeof(rel), "sys/block/%s/size", st.name);
		if (fsroot_read_line(rel, size, sizeof(size)) < 0 || strcmp(size, "0") == 0)
			continue;
		if ((strncmp(st.name, "loop", 4) == 0 || strncmp(st.name, "ram", 3) == 0) &&
		    st.rd_ios == 0 && st.wr_ios == 0)
			continue;
		d = &rc->disks[rc->n_disks];
		snprintf(d->name, sizeof(d->name), "%s", st.name);
		d->kind = disk_kind(st.name);
		d->fd = open_rel("sys/block/%s/stat", st.name);
		if (d->fd >= 0)
			rc->n_disks++;
	}
	free(all);
}

/* "swaps=zram0:zram vda:disk": each swap's block device and its kind. */
static void describe_swaps(struct strbuf *meta)
{
	struct swap_entry sw[16];
	char *all = NULL;
	int n;

	if (fsroot_read_all("proc/swaps", &all) < 0)
		return;
	n = swaps_parse(all, sw, ARRAY_SIZE(sw));
	free(all);
	strbuf_addstr(meta, "swaps=");
	for (int i = 0; i < n && i < (int)ARRAY_SIZE(sw); i++) {
		char dev[64] = "", disk[64];
		struct stat st;

		if (strcmp(sw[i].type, "partition") == 0 && strncmp(sw[i].path, "/dev/", 5) == 0) {
			snprintf(dev, sizeof(dev), "%s", sw[i].path + 5);
		} else if (stat(sw[i].path, &st) == 0) {
			char rel[64], link[256];
			ssize_t l;

			snprintf(rel, sizeof(rel), "/sys/dev/block/%u:%u", major(st.st_dev),
				 minor(st.st_dev));
			l = readlink(rel, link, sizeof(link) - 1);
			if (l > 0) {
				link[l] = '\0';
				snprintf(dev, sizeof(dev), "%s", strrchr(link, '/') + 1);
			}
		}
		if (!*dev)
			continue;
		whole_disk(dev, disk, sizeof(disk));
		strbuf_addf(meta, "%s%s:%s", meta->buf[meta->len - 1] == '=' ? "" : " ", disk,
			    disk_kind(disk));
	}
	strbuf_addch(meta, '\n');
}

/* Processes by name: the X server (unless given) and every kswapd. */
static void find_processes(struct recorder *rc)
{
	char *path = xasprintf("%s/proc", fsroot());
	DIR *d = opendir(path);
	struct dirent *e;

	free(path);
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		struct proc_stat st;
		int pid;

		if (safe_atoi(e->d_name, &pid) < 0 || proc_stat_read(pid, &st) < 0)
			continue;
		if (strncmp(st.comm, "kswapd", 6) == 0 && rc->n_kswapd < MAX_KSWAPD) {
			int fd = open_rel("proc/%d/stat", pid);

			if (fd >= 0)
				rc->kswapd_fd[rc->n_kswapd++] = fd;
		}
		if (rc->x_pid == 0 && (strcmp(st.comm, "Xorg") == 0 || strcmp(st.comm, "Xvfb") == 0 ||
				       strcmp(st.comm, "Xwayland") == 0 || strcmp(st.comm, "X") == 0))
			rc->x_pid = pid;
	}
	closedir(d);
}

/* The PSI files: the game's cgroup (v2) when it has its own, else the
 * system's. */
static void open_psi(struct recorder *rc, pid_t pid, struct strbuf *meta)
{
	static const char *const res[3] = { "cpu", "io", "memory" };
	char path[512] = "", mnt[256] = "";
	char *all = NULL;

	if (pid > 0) {
		char rel[64];

		snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
		if (fsroot_read_all(rel, &all) == 0 && cgroup2_path_parse(all, path, sizeof(path)) < 0)
			path[0] = '\0';
		free(all);
		all = NULL;
	}
	/* where cgroup v2 is mounted (/sys/fs/cgroup, or .../unified on a hybrid) */
	if (*path && strcmp(path, "/") != 0 && fsroot_read_all("proc/self/mounts", &all) == 0) {
		char *save, *line;

		for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char dev[64], dir[256], type[32];

			if (sscanf(line, "%63s %255s %31s", dev, dir, type) == 3 &&
			    strcmp(type, "cgroup2") == 0) {
				snprintf(mnt, sizeof(mnt), "%s", dir + 1);
				break;
			}
		}
		free(all);
	}
	rc->psi_cgroup = false;
	if (rc->cgroup_dir) {
		/* the game's own, made for it by the switch */
		int ok = 0;

		for (int i = 0; i < 3; i++) {
			char *f = xasprintf("%s/%s.pressure", rc->cgroup_dir, res[i]);

			ok += (rc->psi_fd[i] = open(f, O_RDONLY | O_CLOEXEC)) >= 0;
			free(f);
		}
		if (ok == 3) {
			rc->psi_cgroup = true;
			strbuf_addf(meta, "sources.psi=cgroup %s (the game's own)\n", rc->cgroup_dir);
			return;
		}
		for (int i = 0; i < 3; i++)
			close_fd(&rc->psi_fd[i]);
	}
	if (*mnt) {
		int ok = 0;

		for (int i = 0; i < 3; i++)
			ok += (rc->psi_fd[i] = open_rel("%s%s/%s.pressure", mnt, path, res[i])) >= 0;
		if (ok == 3) {
			rc->psi_cgroup = true;
			strbuf_addf(meta, "sources.psi=cgroup /%s%s\n", mnt, path);
			return;
		}
		for (int i = 0; i < 3; i++)
			close_fd(&rc->psi_fd[i]);
	}
	for (int i = 0; i < 3; i++)
		rc->psi_fd[i] = open_rel("proc/pressure/%s", res[i]);
	if (rc->psi_fd[0] >= 0 && rc->psi_fd[1] >= 0 && rc->psi_fd[2] >= 0) {
		strbuf_addstr(meta, "sources.psi=system (/proc/pressure: every process's stalls)\n");
	} else {
		for (int i = 0; i < 3; i++)
			close_fd(&rc->psi_fd[i]);
		strbuf_addstr(meta, "sources.psi=none (no /proc/pressure: CONFIG_PSI off or psi=0)\n");
	}
}

static bool delayacct_on(void)
{
	char v[16];

	return fsroot_read_line("proc/sys/kernel/task_delayacct", v, sizeof(v)) == 0 &&
	       strcmp(v, "1") == 0;
}

/* Delay accounting: taskstats (root), else /proc's blkio ticks. */
static void choose_delay_source(struct recorder *rc, struct strbuf *meta)
{
	struct task_delays d;
	char v[64];
	int r;

	if (!delayacct_on()) {
		strbuf_addstr(meta, "sources.delay=none (kernel.task_delayacct=0)\n");
		return;
	}
	r = taskstats_open(&rc->ts);
	if (r == 0 && (r = taskstats_query(&rc->ts, getpid(), &d)) == 0) {
		rc->use_taskstats = true;
		strbuf_addf(meta, "sources.delay=taskstats (struct version %u)\n", d.version);
		return;
	}
	taskstats_close(&rc->ts);
	strbuf_addf(meta, "sources.delay=proc (blkio ticks only; taskstats: %s)\n", strerror(-r));
	(void)v;
}

/* schedstat counts only while delay accounting or schedstats are on: a
 * thread that has run shows a run time above 0. */
static void choose_schedstat(struct recorder *rc, struct strbuf *meta)
{
	struct pschedstat ss;
	int fd = open_rel("proc/thread-self/schedstat");

	rc->use_schedstat = fd >= 0 && reread(fd) > 0 && pschedstat_parse(buf, &ss) == 0 &&
			    ss.run_ns > 0;
	close_fd(&fd);
	strbuf_addf(meta, "sources.schedstat=%s\n",
		    rc->use_schedstat ? "yes" : "no (absent, or zero: kernel.task_delayacct and "
						"kernel.sched_schedstats off)");
}

/* ---- columns ---- */

/* Room for 4 hours of samples, 4 million at most: the file is sparse,
 * only what is written takes memory. */
static uint64_t capacity_rows(uint64_t period_ns)
{
	uint64_t rows = 4 * 3600 * NSEC_PER_SEC / period_ns;

	return rows < (4u << 20) ? rows : (4u << 20);
}

static void add_col(const char **names, uint8_t *enc, size_t *n, const char *name, uint8_t e)
{
	names[*n] = name;
	enc[*n] = e;
	(*n)++;
}

static int set_up_record(struct recorder *rc, struct strbuf *meta, struct strbuf *err)
{
	static const char *names[MAX_COLS];
	static char disk_names[MAX_DISKS * SR_DISK_FIELDS][48];
	uint8_t enc[MAX_COLS];
	size_t n = 0;

	for (int c = 0; c < SR_COUNT; c++) {
		bool delay = c >= SR_DLY_CPU_US && c <= SR_DLY_COMPACT_US;
		bool psi = c >= SR_PSI_CPU_SOME && c <= SR_PSI_MEM_FULL;

		rc->col[c] = -1;
		if ((c == SR_MAIN_RUN_US || c == SR_MAIN_RUNQ_US) && !rc->use_schedstat)
			continue;
		if (delay && !rc->use_taskstats && !(c == SR_DLY_BLKIO_US && delayacct_on()))
			continue;
		if (psi && rc->psi_fd[0] < 0)
			continue;
		if (c >= SR_VM_PSWPIN && c <= SR_VM_NR_WRITEBACK) {
			bool have = false;

			for (size_t i = 0; i < ARRAY_SIZE(vm_fields); i++)
				if (vm_fields[i].col == (enum sr_col)c && rc->vmix.line[i] >= 0)
					have = true;
			if (!have)
				continue;
		}
		if (c >= SR_X_PID && c <= SR_X_WCHAN && rc->x_pid == 0)
			continue;
		if ((c == SR_KSWAPD_STATE || c == SR_KSWAPD_CPU_TICKS) && rc->n_kswapd == 0)
			continue;
		rc->col[c] = (int)n;
		add_col(names, enc, &n, sr_col_names[c], c == SR_T_US ? SR_ENC_DELTA2 : SR_ENC_DELTA);
	}
	strbuf_addstr(meta, "disks=");
	for (size_t i = 0; i < rc->n_disks; i++) {
		struct disk *d = &rc->disks[i];

		d->col = (int)n;
		for (int f = 0; f < SR_DISK_FIELDS; f++) {
			char *s = disk_names[i * SR_DISK_FIELDS + f];

			snprintf(s, 48, "disk.%s.%s", d->name, sr_disk_field_names[f]);
			add_col(names, enc, &n, s, SR_ENC_DELTA);
		}
		strbuf_addf(meta, "%s%s", i ? " " : "", d->name);
	}
	strbuf_addch(meta, '\n');
	for (size_t i = 0; i < rc->n_disks; i++)
		strbuf_addf(meta, "disk.%s.kind=%s\n", rc->disks[i].name, rc->disks[i].kind);
	rc->n_cols = n;
	if (rc->nowrite)
		return 0;
	return stallrec_live_create(&rc->live, rc->live_path, names, enc, n,
				    capacity_rows(rc->period_ns), 4000,
				    STACK_MAX, meta->buf, err);
}

/* ---- one sample ---- */

#define PUT(row, rc, c, v) do { if ((rc)->col[c] >= 0) (row)[(rc)->col[c]] = (int64_t)(v); } while (0)

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

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

	if (!g->alive || reread(g->task_stat_fd) <= 0 || pstat_parse(buf, st) < 0) {
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
	if (rc->use_schedstat && reread(g->schedstat_fd) > 0 && pschedstat_parse(buf, &ss) == 0) {
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
		PUT(row, rc, SR_WCHAN, intern(rc, buf, strcspn(buf, "\n")));
	if (reread(g->syscall_fd) > 0 && psyscall_parse(buf, &sc) == 0) {
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
	if (stallrec_live_stack(&rc->live, t_us, (uint32_t)g->pid, buf, (size_t)n))
		rc->stacks++;
	g->last_stack_us = t_us;
}

static void sample_proc(struct recorder *rc, int64_t *row)
{
	struct game *g = &rc->g;
	struct timespec ts;
	struct pstat st;

	if (g->alive && reread(g->stat_fd) > 0 && pstat_parse(buf, &st) == 0) {
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
	if (reread(rc->psi_fd[0]) > 0 && psi_parse(buf, &p) == 0)
		PUT(row, rc, SR_PSI_CPU_SOME, p.some.total_us);
	if (reread(rc->psi_fd[1]) > 0 && psi_parse(buf, &p) == 0) {
		PUT(row, rc, SR_PSI_IO_SOME, p.some.total_us);
		PUT(row, rc, SR_PSI_IO_FULL, p.full.total_us);
	}
	if (reread(rc->psi_fd[2]) > 0 && psi_parse(buf, &p) == 0) {
		PUT(row, rc, SR_PSI_MEM_SOME, p.some.total_us);
		PUT(row, rc, SR_PSI_MEM_FULL, p.full.total_us);
	}
}

static void sample_vmstat(struct recorder *rc, int64_t *row)
{
	uint64_t v[ARRAY_SIZE(vm_fields)];
	bool have[ARRAY_SIZE(vm_fields)];

	if (reread(rc->vmstat_fd) <= 0)
		return;
	vmstat_index_read(&rc->vmix, buf, v, have);
	/* several counters add up to one column: start them from 0, not from
	 * the previous row's copy */
	for (size_t i = 0; i < ARRAY_SIZE(vm_fields); i++)
		if (rc->col[vm_fields[i].col] >= 0)
			row[rc->col[vm_fields[i].col]] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(vm_fields); i++)
		if (have[i] && rc->col[vm_fields[i].col] >= 0)
			row[rc->col[vm_fields[i].col]] += (int64_t)v[i];
}

static void sample_disks(struct recorder *rc, int64_t *row)
{
	for (size_t i = 0; i < rc->n_disks; i++) {
		struct disk *d = &rc->disks[i];
		struct blkstat st;
		int64_t *out = row + d->col;

		if (reread(d->fd) <= 0 || blkstat_parse(buf, &st) < 0)
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

	if (rc->x_stat_fd < 0 || reread(rc->x_stat_fd) <= 0 || pstat_parse(buf, &st) < 0)
		return;
	PUT(row, rc, SR_X_PID, rc->x_pid);
	PUT(row, rc, SR_X_STATE, (unsigned char)st.state);
	PUT(row, rc, SR_X_MAJFLT, st.majflt);
	PUT(row, rc, SR_X_CPU_TICKS, st.utime + st.stime);
	if (st.state == 'D' && reread(rc->x_wchan_fd) > 0)
		PUT(row, rc, SR_X_WCHAN, intern(rc, buf, strcspn(buf, "\n")));
}

static void sample_kswapd(struct recorder *rc, int64_t *row)
{
	uint64_t ticks = 0;
	char state = 0;

	for (size_t i = 0; i < rc->n_kswapd; i++) {
		struct pstat st;

		if (reread(rc->kswapd_fd[i]) <= 0 || pstat_parse(buf, &st) < 0)
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
			if (reread(g->drm_fdinfo[i]) > 0 && drm_fdinfo_mem_kib(buf, &kib) == 0)
				total += kib;
		g->gpu_kib = total;
	}
	PUT(row, rc, SR_GPU_MEM_KIB, g->gpu_kib);
}

/* The process that presents takes over from a wrapper that started it. */
static void follow_presenter(struct recorder *rc)
{
	uint64_t n;
	pid_t p;

	if (!rc->have_frames || (n = hb_frames_view_count(&rc->frames)) == 0)
		return;
	p = (pid_t)rc->frames.rec[n - 1].pid;
	if (p > 0 && p != rc->g.pid && rc->frames.rec[n - 1].t_ns != 0 && kill(p, 0) == 0)
		game_open(rc, p);
}

/* Whether the game is late with its next frame: no frame yet (loading),
 * or none for OVERDUE_NS. */
static bool overdue(const struct recorder *rc, uint64_t t)
{
	uint64_t last;

	if (!rc->have_frames)
		return true;
	last = hb_frames_view_last(&rc->frames);
	return last == 0 || (t > last && t - last >= OVERDUE_NS);
}

/* One sample. Every row reads the main thread (state, faults, CPU); a full
 * row also reads where it waits and everything machine-wide. Rows are full
 * while a frame is overdue (a stall may be under way), while the thread is
 * blocked or faulting, and every FULL_EVERY-th row; the others repeat the
 * previous row's machine-wide values, so the next full row's deltas cover
 * them. */
static void sample(struct recorder *rc)
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

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hitchbench-stallrec --out FILE [--live FILE] [--pid PID] [--period-ms N]\n"
		"                           [--frames FILE] [--xserver PID] [--cpu LIST] [--nice N]\n"
		"                           [--duration S] [--nowrite] [--ready FILE] [--cgroup DIR]\n"
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

/* Packs the live record into the run directory. */
static int finish(struct recorder *rc, uint64_t cpu_ns, uint64_t wall_ns)
{
	struct strbuf err = STRBUF_INIT;
	struct stallrec r;
	int ret = 0;

	if (rc->nowrite) {
		struct kvfile t;

		kvfile_init(&t);
		cost_line(rc, cpu_ns, wall_ns, &t);
		kvfile_release(&t);
		return 0;
	}
	if (rc->live.h && rc->live.h->count >= rc->live.h->capacity)
		fprintf(stderr, "hitchbench-stallrec: the record filled up after %llu samples\n",
			(unsigned long long)rc->live.h->count);
	stallrec_live_close(&rc->live);
	ret = stallrec_load(rc->live_path, &r, &err);
	if (ret == 0) {
		cost_line(rc, cpu_ns, wall_ns, &r.trailer);
		kvfile_addf(&r.trailer, "stop", "%s", stop_sig == SIGINT ? "SIGINT" :
			    stop_sig == SIGTERM ? "SIGTERM" : "duration");
		ret = stallrec_write(&r, rc->out_path, &err);
		stallrec_release(&r);
	}
	if (ret < 0)
		fprintf(stderr, "hitchbench-stallrec: %s (the live record stays at %s)\n", err.buf,
			rc->live_path);
	else
		unlink(rc->live_path);
	strbuf_release(&err);
	return ret;
}

static int parse_int_opt(const char *opt, const char *arg, int lo, int hi, int *out)
{
	if (safe_atoi(arg, out) < 0 || *out < lo || *out > hi) {
		fprintf(stderr, "hitchbench-stallrec: %s: want a whole number in %d..%d, not '%s'\n",
			opt, lo, hi, arg);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct recorder rc;
	struct strbuf meta = STRBUF_INIT, err = STRBUF_INIT;
	struct sigaction sa;
	int period_ms = 10, niceness = 10, pid = 0, opt, duration_s = 0;
	const char *cpus = NULL, *ready = NULL;
	uint64_t start, next, end = 0, cpu0;
	char *live_default = NULL;

	memset(&rc, 0, sizeof(rc));
	rc.vmstat_fd = rc.x_stat_fd = rc.x_wchan_fd = -1;
	rc.psi_fd[0] = rc.psi_fd[1] = rc.psi_fd[2] = -1;
	rc.ts.fd = -1;
	rc.g.stat_fd = rc.g.task_stat_fd = rc.g.wchan_fd = rc.g.syscall_fd = -1;
	rc.g.schedstat_fd = rc.g.stack_fd = rc.g.fd_dir = -1;
	rc.last_pair_us = -1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': rc.out_path = optarg; break;
		case 'l': rc.live_path = optarg; break;
		case 'f': rc.frames_path = optarg; break;
		case 'c': cpus = optarg; break;
		case 'W': rc.nowrite = true; break;
		case 'r': ready = optarg; break;
		case 'g': rc.cgroup_dir = optarg; break;
		case 'p':
			if (parse_int_opt("--pid", optarg, 1, 1 << 30, &pid) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'P':
			if (parse_int_opt("--period-ms", optarg, 1, 60000, &period_ms) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'x':
			if (parse_int_opt("--xserver", optarg, 1, 1 << 30, &rc.x_pid) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'n':
			if (parse_int_opt("--nice", optarg, -20, 19, &niceness) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'd':
			if (parse_int_opt("--duration", optarg, 1, 1 << 24, &duration_s) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return HB_EXIT_USAGE;
		}
	}
	if (optind != argc || (!rc.out_path && !rc.nowrite)) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	/* signals first: the switch sends the game's pid as soon as the live
	 * record exists, and that is created last */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_pid;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	if (setpriority(PRIO_PROCESS, 0, niceness) < 0)
		fprintf(stderr, "hitchbench-stallrec: cannot set nice %d: %s\n", niceness, strerror(errno));
	if (cpus) {
		cpu_set_t set;

		if (cpu_list_parse(cpus, &set) < 0 || sched_setaffinity(0, sizeof(set), &set) < 0) {
			fprintf(stderr, "hitchbench-stallrec: --cpu %s: not CPUs this machine has\n", cpus);
			return HB_EXIT_USAGE;
		}
	}
	rc.period_ns = (uint64_t)period_ms * NSEC_PER_MSEC;
	rc.clk_tck = (uint64_t)sysconf(_SC_CLK_TCK);
	if (!rc.live_path)
		rc.live_path = live_default = xasprintf("/dev/shm/hitchbench-stallrec.%d", (int)getpid());

	/* what this machine offers, said in the record */
	strbuf_addf(&meta, "period_us=%llu\n", (unsigned long long)(rc.period_ns / 1000));
	strbuf_addf(&meta, "clock_pair=%llu %llu\n", (unsigned long long)mono_ns(),
		    (unsigned long long)real_ns());
	strbuf_addf(&meta, "clk_tck=%ld\n", sysconf(_SC_CLK_TCK));
	strbuf_addf(&meta, "root=%s\n", fsroot());
	{
		char release[128];

		if (fsroot_read_line("proc/sys/kernel/osrelease", release, sizeof(release)) == 0)
			strbuf_addf(&meta, "kernel=%s\n", release);
	}
	choose_delay_source(&rc, &meta);
	choose_schedstat(&rc, &meta);
	rc.stack_ok = geteuid() == 0;
	strbuf_addf(&meta, "sources.stack=%s\n", rc.stack_ok ? "yes (blocked 50 ms, every 250 ms, "
		    "1000 at most)" : "no (not root)");
	rc.vmstat_fd = open_rel("proc/vmstat");
	{
		const char *names[ARRAY_SIZE(vm_fields)];

		for (size_t i = 0; i < ARRAY_SIZE(vm_fields); i++)
			names[i] = vm_fields[i].name;
		if (reread(rc.vmstat_fd) <= 0 ||
		    vmstat_index_init(&rc.vmix, names, ARRAY_SIZE(names), buf) < 0)
			for (size_t i = 0; i < ARRAY_SIZE(vm_fields); i++)
				rc.vmix.line[i] = -1;
	}
	find_disks(&rc);
	describe_swaps(&meta);
	find_processes(&rc);
	if (rc.x_pid) {
		struct proc_stat st;

		rc.x_stat_fd = open_rel("proc/%d/stat", rc.x_pid);
		rc.x_wchan_fd = open_rel("proc/%d/wchan", rc.x_pid);
		strbuf_addf(&meta, "sources.x=%d %s\n", rc.x_pid,
			    proc_stat_read(rc.x_pid, &st) == 0 ? st.comm : "?");
	} else {
		strbuf_addstr(&meta, "sources.x=none (no X server found)\n");
	}
	strbuf_addf(&meta, "sources.kswapd=%zu\n", rc.n_kswapd);
	if (rc.frames_path && hb_frames_view_open(&rc.frames, rc.frames_path) == 0)
		rc.have_frames = true;
	strbuf_addf(&meta, "sources.frames=%s\n", rc.have_frames ? rc.frames_path : "none");
	strbuf_addstr(&meta, "sources.gpu=drm fdinfo (drm-total-*) of the fds found 1, 5 and 30 s "
		      "in, on every 10th full row\n");
	open_psi(&rc, pid, &meta);
	game_open(&rc, pid);
	if (set_up_record(&rc, &meta, &err) < 0) {
		fprintf(stderr, "hitchbench-stallrec: %s\n", err.buf);
		return HB_EXIT_FAILURE;
	}
	strbuf_release(&meta);
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd >= 0)
			close(fd);
	}

	cpu0 = thread_cpu_ns();
	start = mono_ns();
	if (duration_s)
		end = start + (uint64_t)duration_s * NSEC_PER_SEC;
	next = start;
	while (!stop_sig && (!end || next < end)) {
		struct timespec ts = { (time_t)(next / NSEC_PER_SEC), (long)(next % NSEC_PER_SEC) };
		uint64_t now;

		/* a pid arriving wakes the sleep early: sleep again */
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			continue;
		if (new_pid >= 0) {
			game_open(&rc, new_pid);
			new_pid = -1;
		}
		follow_presenter(&rc);
		sample(&rc);
		next += rc.period_ns;
		now = mono_ns();
		if (now > next) {
			/* late by a whole period or more: skip what cannot be kept */
			uint64_t behind = (now - next) / rc.period_ns + 1;

			rc.late++;
			rc.missed += behind;
			next += behind * rc.period_ns;
		}
	}
	{
		uint64_t cpu = thread_cpu_ns() - cpu0, wall = mono_ns() - start;
		int r = finish(&rc, cpu, wall);

		free(live_default);
		strbuf_release(&err);
		return r < 0 ? HB_EXIT_FAILURE : 0;
	}
}
