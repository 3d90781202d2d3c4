/*
 * The profile recorder's side of the kernel: perf_event_open's software
 * CPU clock on each of the game's threads (inherited by the threads and
 * processes they start later), sampling every 1/hz s of CPU time the
 * thread ran, each sample with its time on CLOCK_MONOTONIC (the frame
 * hook's clock), its thread and its call chain (the kernel's, then the
 * user's as far as frame pointers lead); the kernel's map, fork, exec and
 * name records beside them, so every address can be named after the run.
 *
 * The rings are read on a timer (profrec-main.c), never on a wakeup: the
 * game's sampling interrupt only writes into memory. Each record is
 * checked against the ring's bounds before it is read: the kernel writes
 * them, but a record cut by a wrap is copied whole first.
 */
#include "formats/profilerecord.h"
#include "profrec-internal.h"
#include "system/cpulist.h"
#include "system/fsroot.h"
#include "base/hash.h"
#include "base/timeutil.h"

#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u
#define MAX_EVENTS 4096

static struct perf_event_attr attr_of(const struct profrec_state *s)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000000ull / s->hz;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	a.inherit = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.exclude_hv = 1;
	a.exclude_idle = 1;
	a.sample_max_stack = (uint16_t)s->max_stack;
	a.build_id = s->build_ids;
	a.disabled = s->paused;
	return a;
}

static int perf_open(struct perf_event_attr *a, pid_t tid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int profrec_probe(struct profrec_state *s, struct strbuf *err)
{
	struct perf_event_attr a;
	int fd;

	s->build_ids = true;
	a = attr_of(s);
	fd = perf_open(&a, 0, s->ring[0].cpu);
	if (fd < 0 && errno == EINVAL) {
		/* a kernel before 5.12: build ids read from the files instead */
		s->build_ids = false;
		a = attr_of(s);
		fd = perf_open(&a, 0, s->ring[0].cpu);
	}
	if (fd < 0) {
		strbuf_addf(err, "perf_event_open (software CPU clock, %u Hz, call chains): %s%s", s->hz,
			    strerror(errno), errno == EACCES || errno == EPERM ?
			    " (kernel.perf_event_paranoid, or not root)" : "");
		return -errno;
	}
	close(fd);
	profrec_put_meta(&s->line, "build_ids", s->build_ids ? "kernel (map records)" :
			 "files (read when the map is seen; the kernel gives none)");
	return 0;
}

/* --- the record's tables --- */

static uint64_t hash_ips(const uint64_t *ip, uint32_t n, uint32_t nk)
{
	return fnv1a_32(ip, n * sizeof(*ip)) ^ ((uint64_t)nk << 32);
}

/* A ring per online CPU (cpu 0 alone where the list cannot be read). */
static void ring_setup(struct profrec_state *s)
{
	char online[256];
	cpu_set_t set;

	CPU_ZERO(&set);
	if (fsroot_read_line("sys/devices/system/cpu/online", online, sizeof(online)) < 0 ||
	    cpu_list_parse(online, &set) < 0 || CPU_COUNT(&set) == 0)
		CPU_SET(0, &set);
	s->ring = zalloc((size_t)CPU_COUNT(&set) * sizeof(*s->ring));
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			s->ring[s->n_ring++] = (struct pring){ .cpu = c, .fd = -1 };
}

void profrec_state_init(struct profrec_state *s)
{
	memset(s, 0, sizeof(*s));
	s->cap_thread = 4096;
	s->thread = zalloc(s->cap_thread * sizeof(*s->thread));
	s->cap_stack = 4096;
	s->stack = zalloc(s->cap_stack * sizeof(*s->stack));
	strbuf_init(&s->line);
	ring_setup(s);
}

void profrec_state_release(struct profrec_state *s)
{
	for (size_t i = 0; i < s->cap_stack; i++)
		free(s->stack[i].ip);
	free(s->stack);
	free(s->thread);
	free(s->ev);
	free(s->ring);
	strbuf_release(&s->line);
	if (s->have_ksyms)
		ksyms_release(&s->ksyms);
}

static struct seen_thread *thread_slot(struct profrec_state *s, int32_t tid)
{
	size_t mask = s->cap_thread - 1, i = ((uint32_t)tid * 2654435761u) & mask;

	while (s->thread[i].tid && s->thread[i].tid != tid)
		i = (i + 1) & mask;
	return &s->thread[i];
}

static void thread_grow(struct profrec_state *s)
{
	struct seen_thread *old = s->thread;
	size_t cap = s->cap_thread;

	s->cap_thread *= 2;
	s->thread = zalloc(s->cap_thread * sizeof(*s->thread));
	for (size_t i = 0; i < cap; i++)
		if (old[i].tid)
			*thread_slot(s, old[i].tid) = old[i];
	free(old);
}

/* A thread line, unless it says what the last one of tid said. */
static void note_thread(struct profrec_state *s, int32_t tid, int32_t pid, const char *comm)
{
	struct seen_thread *t;
	struct prof_thread pt = { .tid = tid, .pid = pid };

	if (tid <= 0)
		return;
	if ((s->n_thread + 1) * 10 > s->cap_thread * 7)
		thread_grow(s);
	t = thread_slot(s, tid);
	if (t->tid == tid && strncmp(t->comm, comm, sizeof(t->comm)) == 0)
		return;
	if (!t->tid)
		s->n_thread++;
	t->tid = tid;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	snprintf(pt.comm, sizeof(pt.comm), "%s", comm);
	profrec_put_thread(&s->line, &pt);
}

static bool thread_known(struct profrec_state *s, int32_t tid)
{
	return thread_slot(s, tid)->tid == tid;
}

/* A thread first seen in a sample (its creation was not seen): named
 * from /proc, or "?". */
static void ensure_thread(struct profrec_state *s, int32_t tid, int32_t pid)
{
	char rel[64], comm[32] = "?";

	if (thread_known(s, tid))
		return;
	snprintf(rel, sizeof(rel), "proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (fsroot_read_line(rel, comm, sizeof(comm)) < 0)
		snprintf(comm, sizeof(comm), "?");
	note_thread(s, tid, pid, comm);
}

static struct seen_stack *stack_slot(struct profrec_state *s, uint64_t h, const uint64_t *ip, uint32_t n,
				     uint32_t nk)
{
	size_t mask = s->cap_stack - 1, i = h & mask;

	while (s->stack[i].id && !(s->stack[i].hash == h && s->stack[i].n == n && s->stack[i].nk == nk &&
				   memcmp(s->stack[i].ip, ip, n * sizeof(*ip)) == 0))
		i = (i + 1) & mask;
	return &s->stack[i];
}

static void stack_grow(struct profrec_state *s)
{
	struct seen_stack *old = s->stack;
	size_t cap = s->cap_stack;

	s->cap_stack *= 2;
	s->stack = zalloc(s->cap_stack * sizeof(*s->stack));
	for (size_t i = 0; i < cap; i++)
		if (old[i].id)
			*stack_slot(s, old[i].hash, old[i].ip, old[i].n, old[i].nk) = old[i];
	free(old);
}

/* The id of a stack, written the first time it is seen: kernel frames by
 * name (this kernel's symbols), user frames by address. */
static uint32_t stack_id(struct profrec_state *s, const uint64_t *ip, uint32_t n, uint32_t nk)
{
	uint64_t h = hash_ips(ip, n, nk);
	struct seen_stack *st;
	const char *kfn[HB_PROFREC_MAX_FRAMES];
	char addr[HB_PROFREC_MAX_FRAMES][24];

	if ((s->n_stack + 1) * 10 > s->cap_stack * 7)
		stack_grow(s);
	st = stack_slot(s, h, ip, n, nk);
	if (st->id)
		return st->id;
	st->hash = h;
	st->n = n;
	st->nk = nk;
	st->ip = xrealloc(NULL, (n ? n : 1) * sizeof(*ip));
	memcpy(st->ip, ip, n * sizeof(*ip));
	st->id = (uint32_t)++s->n_stack;
	for (uint32_t i = 0; i < nk; i++) {
		kfn[i] = s->have_ksyms ? ksyms_name(&s->ksyms, ip[i]) : NULL;
		if (!kfn[i]) {
			snprintf(addr[i], sizeof(addr[i]), "0x%" PRIx64, ip[i]);
			kfn[i] = addr[i];
		}
	}
	profrec_put_stack(&s->line, st->id, kfn, nk, ip + nk, n - nk);
	return st->id;
}

/* --- maps --- */

/* The build id of the file mapped at start..end in pid (through
 * map_files, so the very file the process maps), or 0 bytes. */
static uint8_t file_build_id(pid_t pid, uint64_t start, uint64_t end, const char *path, uint8_t *out)
{
	char rel[96];
	const void *id = NULL;
	ssize_t len = 0;
	struct stat st;
	Elf *elf;
	int fd;

	snprintf(rel, sizeof(rel), "proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, start, end);
	fd = fsroot_open(rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && path[0] == '/')
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return 0;
	/* the file is the game's, which may cut it short while it is read:
	 * a regular file only, read (never mapped: a mapping past a cut end
	 * is a SIGBUS in root's recorder; docs/security.md) */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		/* id points into elf's data: copied before it goes */
		len = dwelf_elf_gnu_build_id(elf, &id);
		if (len > 0 && len <= HB_PROFREC_MAX_BUILD_ID)
			memcpy(out, id, (size_t)len);
		else
			len = 0;
		elf_end(elf);
	}
	close(fd);
	return len > 0 ? (uint8_t)len : 0;
}

static void note_map(struct profrec_state *s, struct prof_map *m)
{
	if (!m->build_id_len && m->path[0] == '/')
		m->build_id_len = file_build_id(m->pid, m->start, m->end, m->path, m->build_id);
	profrec_put_map(&s->line, m);
	s->maps++;
}

/* The executable mappings of pid now, from its maps file. */
static void read_maps(struct profrec_state *s, pid_t pid)
{
	char rel[48], *text = NULL, *line, *save = NULL;

	snprintf(rel, sizeof(rel), "proc/%d/maps", (int)pid);
	if (fsroot_read_all(rel, &text) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, off;
		char perms[8];
		int path_at = 0;
		struct prof_map m = { .pid = pid };

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &path_at) < 4 ||
		    perms[2] != 'x' || end <= start)
			continue;
		m.start = start;
		m.end = end;
		m.pgoff = off;
		m.path = path_at ? line + path_at : "";
		if (!*m.path)
			m.path = "//anon";
		note_map(s, &m);
	}
	free(text);
}

/* --- the events --- */

/* The event of tid on ring r's CPU, writing into that ring (mapped with
 * the CPU's first event). 0 or -errno. */
static int open_on(struct profrec_state *s, pid_t tid, struct pring *r)
{
	struct perf_event_attr a = attr_of(s);
	size_t len = (size_t)(s->pages + 1) * PAGE;
	int fd, e;

	fd = perf_open(&a, tid, r->cpu);
	if (fd < 0)
		return -errno;
	if (r->fd < 0) {
		void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		if (base == MAP_FAILED)
			goto fail;
		r->fd = fd;
		r->base = base;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0) {
		goto fail;
	}
	if (s->n_ev == s->cap_ev) {
		s->cap_ev = s->cap_ev ? s->cap_ev * 2 : 16;
		s->ev = xrealloc(s->ev, s->cap_ev * sizeof(*s->ev));
	}
	s->ev[s->n_ev++] = (struct pevent){ .fd = fd, .tid = tid, .cpu = r->cpu };
	return 0;
fail:
	e = -errno;
	close(fd);
	return e;
}

/* An event per CPU on tid (inherited by what it starts). 1 opened, 0
 * already followed, or -errno. */
static int open_thread(struct profrec_state *s, pid_t tid)
{
	for (size_t i = 0; i < s->n_ev; i++)
		if (s->ev[i].tid == tid)
			return 0;
	if (s->n_ev + s->n_ring > MAX_EVENTS)
		return -ENOSPC;
	for (size_t i = 0; i < s->n_ring; i++) {
		int r = open_on(s, tid, &s->ring[i]);

		if (r < 0)
			return r;
	}
	return 1;
}

/* Every thread of pid: an event each, and its name. */
static size_t follow_process(struct profrec_state *s, pid_t pid)
{
	char rel[48], name[300], comm[32];
	struct dirent *d;
	size_t opened = 0;
	DIR *dir;
	int fd, r;

	snprintf(rel, sizeof(rel), "proc/%d/task", (int)pid);
	fd = fsroot_open(rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((d = readdir(dir))) {
		int tid;

		if (safe_atoi(d->d_name, &tid) < 0 || tid <= 0)
			continue;
		r = open_thread(s, tid);
		if (r < 0) {
			if (!s->open_errors++)
				snprintf(s->first_open_error, sizeof(s->first_open_error), "thread %d: %s",
					 tid, strerror(-r));
			continue;
		}
		opened += (size_t)r;
		snprintf(name, sizeof(name), "proc/%d/task/%d/comm", (int)pid, tid);
		if (fsroot_read_line(name, comm, sizeof(comm)) < 0)
			snprintf(comm, sizeof(comm), "?");
		note_thread(s, tid, pid, comm);
	}
	closedir(dir);
	return opened;
}

/* pid and the processes of its session: the game's launcher (the pass's
 * process leads its session) and what it started before the events were
 * open. */
static size_t follow_session(struct profrec_state *s, pid_t pid, bool with_maps)
{
	struct dirent *d;
	size_t opened;
	DIR *dir;
	int fd;

	opened = follow_process(s, pid);
	if (with_maps)
		read_maps(s, pid);
	fd = fsroot_open("proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return opened;
	}
	while ((d = readdir(dir))) {
		struct proc_stat st;
		int other;

		if (safe_atoi(d->d_name, &other) < 0 || other == pid || proc_stat_read(other, &st) < 0 ||
		    st.session != pid)
			continue;
		opened += follow_process(s, other);
		if (with_maps)
			read_maps(s, other);
	}
	closedir(dir);
	return opened;
}

size_t profrec_follow(struct profrec_state *s, pid_t pid)
{
	size_t opened = follow_session(s, pid, true);

	/* threads started between the scan and their parent's event: once more */
	opened += follow_session(s, pid, false);
	profrec_put_follow(&s->line, pid, mono_ns(), opened);
	return opened;
}

/* --- draining --- */

/* One sample: its call chain split at the kernel's context marks. */
static void on_sample(struct profrec_state *s, const uint64_t *p, size_t words)
{
	uint64_t ip[HB_PROFREC_MAX_FRAMES], user[HB_PROFREC_MAX_FRAMES], nr;
	uint32_t nk = 0, nu = 0;
	struct prof_sample smp;
	int32_t pid, tid;
	enum { NONE, KERNEL, USER } ctx = NONE;

	if (words < 4)
		return;
	pid = (int32_t)(p[1] & 0xffffffff);
	tid = (int32_t)(p[1] >> 32);
	smp.ns = p[2];
	nr = p[3];
	if (nr > words - 4)
		return;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t a = p[4 + i];

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = a == (uint64_t)PERF_CONTEXT_KERNEL ? KERNEL : a == (uint64_t)PERF_CONTEXT_USER ?
			      USER : NONE;
			continue;
		}
		if (ctx == KERNEL && nk < HB_PROFREC_MAX_FRAMES)
			ip[nk++] = a;
		else if (ctx == USER && nu < HB_PROFREC_MAX_FRAMES)
			user[nu++] = a;
	}
	if (!nk && !nu)
		user[nu++] = p[0];
	if (nk + nu > HB_PROFREC_MAX_FRAMES)
		nu = HB_PROFREC_MAX_FRAMES - nk;
	memcpy(ip + nk, user, nu * sizeof(*user));
	ensure_thread(s, tid, pid);
	smp.tid = tid;
	smp.stack = stack_id(s, ip, nk + nu, nk);
	profrec_put_sample(&s->line, &smp);
	s->samples++;
}

static void on_mmap2(struct profrec_state *s, const struct perf_event_header *h, const uint8_t *p, size_t len)
{
	struct prof_map m = { 0 };
	uint32_t pid, prot;
	uint64_t addr, size, pgoff;
	size_t name_at = 4 + 4 + 8 + 8 + 8 + 24 + 4 + 4;

	if (len <= name_at)
		return;
	memcpy(&pid, p, 4);
	memcpy(&addr, p + 8, 8);
	memcpy(&size, p + 16, 8);
	memcpy(&pgoff, p + 24, 8);
	memcpy(&prot, p + 56, 4);
	if (!(prot & PROT_EXEC) || !size)
		return;
	m.pid = (int32_t)pid;
	m.start = addr;
	m.end = addr + size;
	m.pgoff = pgoff;
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		uint8_t n = p[32];

		if (n <= HB_PROFREC_MAX_BUILD_ID) {
			m.build_id_len = n;
			memcpy(m.build_id, p + 36, n);
		}
	}
	/* the name is NUL-terminated inside the record (padded to 8 bytes) */
	if (!memchr(p + name_at, '\0', len - name_at))
		return;
	m.path = (char *)(p + name_at);
	note_map(s, &m);
}

static void on_record(struct profrec_state *s, const struct perf_event_header *h, const uint8_t *body,
		      size_t len)
{
	uint32_t u[4];

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(s, (const uint64_t *)body, len / 8);
		break;
	case PERF_RECORD_MMAP2:
		on_mmap2(s, h, body, len);
		break;
	case PERF_RECORD_COMM:
		if (len > 8 && memchr(body + 8, '\0', len - 8)) {
			memcpy(u, body, 8);
			if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
				profrec_put_exec(&s->line, (int32_t)u[0]);
				s->execs++;
			}
			note_thread(s, (int32_t)u[1], (int32_t)u[0], (const char *)body + 8);
		}
		break;
	case PERF_RECORD_FORK:
		if (len >= 16) {
			memcpy(u, body, 16);    /* pid, ppid, tid, ptid */
			if (u[0] != u[1]) {
				profrec_put_fork(&s->line, (int32_t)u[0], (int32_t)u[1]);
				s->forks++;
			}
			if (thread_known(s, (int32_t)u[3]))
				note_thread(s, (int32_t)u[2], (int32_t)u[0], thread_slot(s, (int32_t)u[3])->comm);
		}
		break;
	case PERF_RECORD_LOST:
		if (len >= 16) {
			uint64_t n;

			memcpy(&n, body + 8, 8);
			profrec_put_lost(&s->line, n);
			s->lost += n;
		}
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		break;
	default:
		s->unknown_records++;
		break;
	}
}

static void drain_one(struct profrec_state *s, struct pring *r)
{
	struct perf_event_mmap_page *mp = r->base;
	const uint8_t *ring = (const uint8_t *)r->base + PAGE;
	uint64_t size = (uint64_t)s->pages * PAGE, head, tail;
	static uint8_t rec[1 << 16] __attribute__((aligned(8)));

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		uint64_t at = tail % size;

		if (head - tail < sizeof(h))
			break;
		/* the record whole, copied across the ring's end if it wraps */
		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = ring[(at + i) % size];
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (at + h.size <= size) {
			memcpy(rec, ring + at, h.size);
		} else {
			size_t first = (size_t)(size - at);

			memcpy(rec, ring + at, first);
			memcpy(rec + first, ring, h.size - first);
		}
		on_record(s, &h, rec + sizeof(h), h.size - sizeof(h));
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
}

void profrec_drain(struct profrec_state *s)
{
	uint64_t t0 = thread_cpu_ns();

	for (size_t i = 0; i < s->n_ring; i++)
		if (s->ring[i].fd >= 0)
			drain_one(s, &s->ring[i]);
	if (s->line.len && s->live) {
		fwrite(s->line.buf, 1, s->line.len, s->live);
		fflush(s->live);
		s->bytes += s->line.len;
	}
	strbuf_reset(&s->line);
	s->drains++;
	s->drain_ns += thread_cpu_ns() - t0;
}

void profrec_pause(struct profrec_state *s, bool pause)
{
	if (pause == s->paused)
		return;
	for (size_t i = 0; i < s->n_ev; i++)
		ioctl(s->ev[i].fd, pause ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, 0);
	s->paused = pause;
	profrec_put_pause(&s->line, pause, mono_ns());
}

void profrec_close(struct profrec_state *s)
{
	for (size_t i = 0; i < s->n_ev; i++)
		ioctl(s->ev[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	for (size_t i = 0; i < s->n_ring; i++) {
		if (s->ring[i].fd >= 0)
			munmap(s->ring[i].base, (size_t)(s->pages + 1) * PAGE);
		s->ring[i].fd = -1;
	}
	for (size_t i = 0; i < s->n_ev; i++)
		close(s->ev[i].fd);
	s->n_ev = 0;
}
