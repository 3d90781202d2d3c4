/*
 * The stall recorder, once before it samples: what this machine offers
 * (delay accounting, schedstat, PSI, the disks and swaps, the X server and
 * kswapd), said in the record's meta, and the record's columns.
 */
#include "stallrec-internal.h"
#include "system/gamecgroup.h"
#include "system/fsroot.h"
#include "base/timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The vmstat counters read, in this order; sums go to one column. */
const struct vm_field vm_fields[] = {
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
const size_t n_vm_fields = ARRAY_SIZE(vm_fields);

void open_vmstat(struct recorder *rc)
{
	const char *names[ARRAY_SIZE(vm_fields)];

	for (size_t i = 0; i < n_vm_fields; i++)
		names[i] = vm_fields[i].name;
	rc->vmstat_fd = open_rel("proc/vmstat");
	if (reread(rc->vmstat_fd) <= 0 || vmstat_index_init(&rc->vmix, names, n_vm_fields, rec_buf) < 0)
		for (size_t i = 0; i < n_vm_fields; i++)
			rc->vmix.line[i] = -1;
}

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
void find_disks(struct recorder *rc)
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
void describe_swaps(struct strbuf *meta)
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
void find_processes(struct recorder *rc)
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

static const char *const psi_res[3] = { "cpu", "io", "memory" };

/* A cgroup's three pressure files (dir a path under the root). */
static bool open_pressure(struct recorder *rc, const char *dir)
{
	int ok = 0;

	for (int i = 0; i < 3; i++) {
		char *f = xasprintf("%s/%s.pressure", dir, psi_res[i]);

		ok += (rc->psi_fd[i] = open(f, O_RDONLY | O_CLOEXEC)) >= 0;
		free(f);
	}
	if (ok == 3)
		return true;
	for (int i = 0; i < 3; i++)
		close_fd(&rc->psi_fd[i]);
	return false;
}

/* The PSI files: the game's own cgroup (v2; made for it by the switch,
 * or the one the --pid process is in, unless that is the root), else the
 * system's. */
void open_psi(struct recorder *rc, pid_t pid, struct strbuf *meta)
{
	struct strbuf why = STRBUF_INIT;
	char *own = NULL;
	bool is_root = true;

	rc->psi_cgroup = false;
	if (rc->cgroup_dir && open_pressure(rc, rc->cgroup_dir)) {
		rc->psi_cgroup = true;
		strbuf_addf(meta, "sources.psi=cgroup %s (the game's own)\n", rc->cgroup_dir);
		return;
	}
	if (pid > 0 && cgroup2_dir_of(pid, &own, &is_root, &why) == 0 && !is_root &&
	    open_pressure(rc, own)) {
		rc->psi_cgroup = true;
		strbuf_addf(meta, "sources.psi=cgroup %s\n", own);
	}
	free(own);
	strbuf_release(&why);
	if (rc->psi_cgroup)
		return;
	for (int i = 0; i < 3; i++)
		rc->psi_fd[i] = open_rel("proc/pressure/%s", psi_res[i]);
	if (rc->psi_fd[0] >= 0 && rc->psi_fd[1] >= 0 && rc->psi_fd[2] >= 0) {
		strbuf_addstr(meta, "sources.psi=system (/proc/pressure: every process's stalls)\n");
	} else {
		for (int i = 0; i < 3; i++)
			close_fd(&rc->psi_fd[i]);
		strbuf_addstr(meta, "sources.psi=none (no /proc/pressure: CONFIG_PSI off or psi=0)\n");
	}
}

bool delayacct_on(void)
{
	char v[16];

	return fsroot_read_line("proc/sys/kernel/task_delayacct", v, sizeof(v)) == 0 &&
	       strcmp(v, "1") == 0;
}

/* Delay accounting: taskstats (root), else /proc's blkio ticks. */
void choose_delay_source(struct recorder *rc, struct strbuf *meta)
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
void choose_schedstat(struct recorder *rc, struct strbuf *meta)
{
	struct pschedstat ss;
	int fd = open_rel("proc/thread-self/schedstat");

	rc->use_schedstat = fd >= 0 && reread(fd) > 0 && pschedstat_parse(rec_buf, &ss) == 0 &&
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

int set_up_record(struct recorder *rc, struct strbuf *meta, struct strbuf *err)
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

			for (size_t i = 0; i < n_vm_fields; i++)
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
