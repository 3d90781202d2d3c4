/*
 * New processes and busy sessions during a watched run (see procwatch.h).
 *
 * The state is one table of the processes alive now, sorted by pid: a
 * scan of proc/ (listed in pid order by the kernel, sorted here when a
 * fixture tree is not) is merged with it in one pass, and the
 * connector's events find their pid by binary search. 500 processes
 * are 20 KiB; the table only grows.
 */
#include "procwatch.h"
#include "fsroot.h"
#include "procparse.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PF_KTHREAD 0x00200000u

enum owner {
	OWN_UNDECIDED,   /* new, no verdict yet */
	OWN_OTHER,       /* existed at the start, nobody's in particular */
	OWN_OUTSIDE,     /* new and outside the run */
	OWN_RUN,
	OWN_HARNESS,
	OWN_KERNEL,
};

struct proc_ent {
	int pid, ppid;
	unsigned char owner;
	bool pending;          /* new: its verdict waits for exec, exit or a timeout */
	bool execd;            /* the connector saw it exec */
	bool marked;           /* the harness's by its marker (what it forks without exec is too) */
	bool candidate;        /* a busy-session candidate: base_ticks is its CPU at the start */
	bool seen;             /* listed by the scan in progress */
	unsigned sessionid;
	uint64_t base_ticks;
	uint64_t born_ns;      /* CLOCK_MONOTONIC when first seen (fork event or scan) */
};

struct procwatch {
	struct procwatch_config cfg;
	enum procwatch_source source;
	char why[160];
	int sock;              /* the connector, or -1 */
	int procfd;            /* proc/ under the root, reopened by every scan */
	int loadavg_fd;        /* proc/loadavg, opened at the first scan */
	uint64_t start_ns, next_scan_ns, scan_ns;
	uint64_t busy_ticks;
	long hz;
	long last_pid;         /* proc/loadavg's at the last listing */
	bool finished;

	struct proc_ent *ent, *ent2;   /* the table and the merge's buffer */
	size_t n, alloc;
	int *listed;                   /* a scan's pids */
	size_t n_listed, alloc_listed;
	size_t n_pending;

	pid_t *harness;
	size_t n_harness;
	int run_pgrp[16], run_sid[16];
	size_t n_run_ids;
	unsigned run_sessions[16];     /* login sessions that are the run's */
	size_t n_run_sessions;

	struct procwatch_stats st;
	char buf[4096];                /* stat, sessionid, cgroup reads */
	char dents[32768];             /* getdents64 */
	char envbuf[65536];            /* environ */
	char whybuf[128];
	union {                        /* connector messages */
		struct nlmsghdr nl;
		char raw[8192];
	} msg __attribute__((aligned(8)));
};

/* ---- small helpers ------------------------------------------------------ */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *procwatch_what_name(enum procwatch_what what)
{
	switch (what) {
	case PROCWATCH_OUTSIDE: return "new process outside the run";
	case PROCWATCH_BUSY: return "busy session process";
	case PROCWATCH_HARNESS: return "exempt harness";
	case PROCWATCH_RUN: return "the run's own";
	case PROCWATCH_KERNEL: return "kernel thread";
	}
	return "?";
}

const char *procwatch_source_name(enum procwatch_source source)
{
	switch (source) {
	case PROCWATCH_AUTO: return "auto";
	case PROCWATCH_CONNECTOR: return "proc connector";
	case PROCWATCH_SCAN: return "proc scan";
	}
	return "?";
}

bool procwatch_environ_has(const char *buf, size_t len, const char *name, const char *value)
{
	size_t klen = strlen(name), vlen = value ? strlen(value) : 0;
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *e = memchr(p, '\0', (size_t)(end - p));
		size_t n = e ? (size_t)(e - p) : (size_t)(end - p);

		if (n >= klen + 1 && !memcmp(p, name, klen) && p[klen] == '=' &&
		    (!value || (n == klen + 1 + vlen && !memcmp(p + klen + 1, value, vlen))))
			return true;
		p += n + 1;
	}
	return false;
}

void procwatch_scope(const char *cgroup_path, char *out, size_t size)
{
	const char *slash = strrchr(cgroup_path, '/');
	const char *s = slash ? slash + 1 : cgroup_path;

	snprintf(out, size, "%s", s);
}

static bool pid_in(const pid_t *v, size_t n, int pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

static bool int_in(const int *v, size_t n, int x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* proc/PID/NAME into w->buf (or buf), NUL-terminated. Bytes or -errno. */
static ssize_t read_pid_file(struct procwatch *w, int pid, const char *name, char *buf, size_t size)
{
	char rel[48];
	ssize_t n = 0, got = 0;
	int fd;

	snprintf(rel, sizeof(rel), "%d/%s", pid, name);
	fd = openat(w->procfd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)got < size - 1 && (n = read(fd, buf + got, size - 1 - (size_t)got)) > 0)
		got += n;
	if (got == 0 && n < 0)
		got = -errno;
	close(fd);
	if (got >= 0)
		buf[got] = '\0';
	return got;
}

static int read_stat(struct procwatch *w, int pid, struct pstat *st)
{
	ssize_t n = read_pid_file(w, pid, "stat", w->buf, sizeof(w->buf));

	w->st.stat_reads++;
	if (n < 0)
		return (int)n;
	return pstat_parse(w->buf, st);
}

static unsigned read_sessionid(struct procwatch *w, int pid)
{
	uint64_t v;

	if (read_pid_file(w, pid, "sessionid", w->buf, sizeof(w->buf)) <= 0 ||
	    safe_atou64(str_strip(w->buf), &v) < 0 || v > PROCWATCH_NO_SESSION)
		return PROCWATCH_NO_SESSION;
	return (unsigned)v;
}

static uint64_t cpu_ticks(const struct pstat *st)
{
	return st->utime + st->stime + (uint64_t)(st->cutime > 0 ? st->cutime : 0) +
	       (uint64_t)(st->cstime > 0 ? st->cstime : 0);
}

/* ---- the table ---------------------------------------------------------- */

static ssize_t ent_index(const struct procwatch *w, int pid)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->ent[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < w->n && w->ent[lo].pid == pid) ? (ssize_t)lo : -1 - (ssize_t)lo;
}

static struct proc_ent *ent_find(struct procwatch *w, int pid)
{
	ssize_t i = ent_index(w, pid);

	return i >= 0 ? &w->ent[i] : NULL;
}

static void ent_reserve(struct procwatch *w, size_t n)
{
	if (n <= w->alloc)
		return;
	w->alloc = n < 256 ? 256 : n * 2;
	w->ent = xrealloc(w->ent, w->alloc * sizeof(*w->ent));
	w->ent2 = xrealloc(w->ent2, w->alloc * sizeof(*w->ent2));
}

static struct proc_ent *ent_insert(struct procwatch *w, int pid)
{
	ssize_t i = ent_index(w, pid);
	size_t at;

	if (i >= 0)
		return &w->ent[i];
	ent_reserve(w, w->n + 1);
	at = (size_t)(-1 - i);
	memmove(&w->ent[at + 1], &w->ent[at], (w->n - at) * sizeof(*w->ent));
	w->n++;
	memset(&w->ent[at], 0, sizeof(*w->ent));
	w->ent[at].pid = pid;
	w->ent[at].sessionid = PROCWATCH_NO_SESSION;
	return &w->ent[at];
}

static void ent_remove(struct procwatch *w, int pid)
{
	ssize_t i = ent_index(w, pid);

	if (i < 0)
		return;
	if (w->ent[i].pending)
		w->n_pending--;
	memmove(&w->ent[i], &w->ent[i + 1], (w->n - (size_t)i - 1) * sizeof(*w->ent));
	w->n--;
}

/* ---- verdicts ----------------------------------------------------------- */

static void emit(struct procwatch *w, struct procwatch_verdict *v, uint64_t at_ns)
{
	v->t = at_ns > w->start_ns ? (double)(at_ns - w->start_ns) / 1e9 : 0;
	if (w->cfg.fn)
		w->cfg.fn(w->cfg.ctx, v);
}

/* sessionid, loginuid and cgroup scope of pid into v, for the summary. */
static void note_login(struct procwatch *w, int pid, struct procwatch_verdict *v)
{
	uint64_t u;

	v->sessionid = read_sessionid(w, pid);
	v->loginuid = PROCWATCH_NO_SESSION;
	if (read_pid_file(w, pid, "loginuid", w->buf, sizeof(w->buf)) > 0 &&
	    safe_atou64(str_strip(w->buf), &u) == 0 && u <= PROCWATCH_NO_SESSION)
		v->loginuid = (unsigned)u;
	v->scope[0] = '\0';
	if (read_pid_file(w, pid, "cgroup", w->buf, sizeof(w->buf)) > 0) {
		char path[256];

		if (cgroup2_path_parse(w->buf, path, sizeof(path)) == 0)
			procwatch_scope(path, v->scope, sizeof(v->scope));
	}
}

static const char *why_f(struct procwatch *w, const char *fmt, int x)
{
	snprintf(w->whybuf, sizeof(w->whybuf), fmt, x);
	return w->whybuf;
}

static void decide(struct procwatch *w, struct proc_ent *e, uint64_t at_ns, int depth);

/* The owner of a new process and the rule that said so. st is its stat
 * when it could be read (NULL: gone, judged by its parent alone). */
static enum owner judge(struct procwatch *w, struct proc_ent *e, const struct pstat *st,
			uint64_t at_ns, int depth, const char **why)
{
	struct proc_ent *parent;

	if (st && (st->flags & PF_KTHREAD)) {
		*why = "PF_KTHREAD";
		return OWN_KERNEL;
	}
	if (pid_in(w->harness, w->n_harness, e->pid)) {
		*why = "listed as the harness's";
		return OWN_HARNESS;
	}
	if (e->owner == OWN_RUN) {   /* forked by the run's, seen by the connector */
		*why = why_f(w, "parent %d is the run's", e->ppid);
		return OWN_RUN;
	}
	parent = ent_find(w, e->ppid);
	if (parent && parent->owner == OWN_UNDECIDED && parent != e && depth < 32) {
		int ppid = e->ppid, pid = e->pid;

		decide(w, parent, at_ns, depth + 1);    /* may move entries: look e up again */
		e = ent_find(w, pid);
		parent = ent_find(w, ppid);
		if (!e)
			return OWN_OUTSIDE;
	}
	if (parent && parent->owner == OWN_RUN) {
		*why = why_f(w, "parent %d is the run's", e->ppid);
		return OWN_RUN;
	}
	if (st && int_in(w->run_pgrp, w->n_run_ids, st->pgrp)) {
		*why = why_f(w, "in the run's process group %d", st->pgrp);
		return OWN_RUN;
	}
	if (st && int_in(w->run_sid, w->n_run_ids, st->session)) {
		*why = why_f(w, "in the run's session %d", st->session);
		return OWN_RUN;
	}
	/* a fork that never exec'd holds its parent's environment: a child
	 * of a marked process is marked too (a sanitizer's leak-check task,
	 * a shell's subshell), even when it is gone before it could be read */
	if (w->source == PROCWATCH_CONNECTOR && !e->execd && parent && parent->owner == OWN_HARNESS &&
	    parent->marked) {
		*why = "forked without exec by a process carrying " PROCWATCH_HARNESS_ENV;
		e->marked = true;
		return OWN_HARNESS;
	}
	/* the markers, last: the environment is the dearest thing to read */
	{
		ssize_t n = read_pid_file(w, e->pid, "environ", w->envbuf, sizeof(w->envbuf));
		bool run_marked = w->cfg.run_id && w->cfg.run_id[0], inherited = false;

		/* gone (or a zombie) before its environment could be read, and
		 * never exec'd (the connector would have said): a fork holds
		 * its parent's environment, which stands in for it (a
		 * sanitizer's leak-check task, a shell's subshell) */
		if (n <= 0 && w->source == PROCWATCH_CONNECTOR && !e->execd && parent) {
			n = read_pid_file(w, parent->pid, "environ", w->envbuf, sizeof(w->envbuf));
			inherited = true;
		}
		if (n > 0 && run_marked &&
		    procwatch_environ_has(w->envbuf, (size_t)n, PROCWATCH_MARKER_ENV, w->cfg.run_id)) {
			*why = inherited ? "forked without exec by a process carrying " PROCWATCH_MARKER_ENV
					 : "carries " PROCWATCH_MARKER_ENV;
			return OWN_RUN;
		}
		if (n > 0 && procwatch_environ_has(w->envbuf, (size_t)n, PROCWATCH_HARNESS_ENV, NULL)) {
			*why = inherited ? "forked without exec by a process carrying " PROCWATCH_HARNESS_ENV
					 : "carries " PROCWATCH_HARNESS_ENV;
			e->marked = true;
			return OWN_HARNESS;
		}
	}
	*why = parent ? why_f(w, "parent %d is not the run's", e->ppid)
		      : why_f(w, "parent %d unknown, not the run's", e->ppid);
	return OWN_OUTSIDE;
}

/* Gives a new process its verdict (once). */
static void decide(struct procwatch *w, struct proc_ent *e, uint64_t at_ns, int depth)
{
	struct procwatch_verdict v;
	struct pstat st;
	bool have = read_stat(w, e->pid, &st) == 0;
	const char *why = "";
	enum owner o;
	int pid = e->pid;

	memset(&v, 0, sizeof(v));
	v.pid = pid;
	v.ppid = e->ppid;
	if (have) {
		v.ppid = st.ppid;
		if (e->ppid <= 0 || !e->pending)
			e->ppid = st.ppid;   /* the scan's: who its parent is now */
		snprintf(v.comm, sizeof(v.comm), "%s", st.comm);
	} else {
		snprintf(v.comm, sizeof(v.comm), "(gone)");
	}
	o = judge(w, e, have ? &st : NULL, at_ns, depth, &why);
	e = ent_find(w, pid);
	if (!e)
		return;
	if (e->pending) {
		e->pending = false;
		w->n_pending--;
	}
	e->owner = (unsigned char)o;
	v.why = why;
	v.sessionid = PROCWATCH_NO_SESSION;
	v.loginuid = PROCWATCH_NO_SESSION;
	switch (o) {
	case OWN_KERNEL: v.what = PROCWATCH_KERNEL; break;
	case OWN_HARNESS: v.what = PROCWATCH_HARNESS; break;
	case OWN_RUN: v.what = PROCWATCH_RUN; break;
	default:
		v.what = PROCWATCH_OUTSIDE;
		v.counted = true;
		if (have)
			note_login(w, pid, &v);
		break;
	}
	emit(w, &v, e->born_ns ? e->born_ns : at_ns);
}

/* At the end (or when a candidate goes away): did it burn a second? */
static void busy_check(struct procwatch *w, struct proc_ent *e, uint64_t at_ns)
{
	struct procwatch_verdict v;
	struct pstat st;

	if (!e->candidate)
		return;
	e->candidate = false;
	memset(&v, 0, sizeof(v));
	v.what = PROCWATCH_BUSY;
	v.pid = e->pid;
	v.ppid = e->ppid;
	v.sessionid = e->sessionid;
	v.loginuid = PROCWATCH_NO_SESSION;
	if (read_stat(w, e->pid, &st) < 0) {
		snprintf(v.comm, sizeof(v.comm), "(gone)");
		v.cpu_ticks = -1;
		v.why = "exited during the watch: its CPU time is not known";
		emit(w, &v, at_ns);
		return;
	}
	v.cpu_ticks = (int64_t)(cpu_ticks(&st) - e->base_ticks);
	if (v.cpu_ticks <= 0)
		return;
	snprintf(v.comm, sizeof(v.comm), "%s", st.comm);
	v.counted = (uint64_t)v.cpu_ticks >= w->busy_ticks;
	v.why = v.counted ? "used a second of CPU or more (utime+stime+cutime+cstime)"
			  : "used less than a second of CPU";
	note_login(w, e->pid, &v);
	v.sessionid = e->sessionid;
	emit(w, &v, at_ns);
}

/* ---- scanning ----------------------------------------------------------- */

static int open_proc(struct procwatch *w)
{
	int fd = fsroot_open("proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return fd;
	if (w->procfd >= 0)
		close(w->procfd);
	w->procfd = fd;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The pids under proc/ into w->listed, ascending. */
static int list_pids(struct procwatch *w)
{
	bool sorted = true;
	long n;
	int r = open_proc(w);

	if (r < 0)
		return r;
	w->n_listed = 0;
	while ((n = syscall(SYS_getdents64, w->procfd, w->dents, sizeof(w->dents))) > 0) {
		for (long off = 0; off < n;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(w->dents + off);
			int pid = 0;
			const char *c = d->name;

			off += d->reclen;
			if (*c < '1' || *c > '9')
				continue;
			for (; *c >= '0' && *c <= '9' && pid < 100000000; c++)
				pid = pid * 10 + (*c - '0');
			if (*c)
				continue;
			if (w->n_listed == w->alloc_listed) {
				w->alloc_listed = w->alloc_listed ? w->alloc_listed * 2 : 512;
				w->listed = xrealloc(w->listed, w->alloc_listed * sizeof(int));
			}
			if (w->n_listed && w->listed[w->n_listed - 1] > pid)
				sorted = false;
			w->listed[w->n_listed++] = pid;
		}
	}
	if (n < 0)
		return -errno;
	if (!sorted)
		qsort(w->listed, w->n_listed, sizeof(int), cmp_int);
	w->st.listings++;
	return 0;
}

/* The last pid the kernel handed out (the last field of proc/loadavg),
 * or -1 when unreadable (a fixture tree without the file). */
static long last_pid(struct procwatch *w)
{
	char *sp;
	int64_t v;
	ssize_t n;

	/* kept open and re-read: an open() per scan was half of the scan's
	 * cost on a quiet machine (measured by bench-self) */
	if (w->loadavg_fd < 0)
		w->loadavg_fd = fsroot_open("proc/loadavg", O_RDONLY | O_CLOEXEC);
	if (w->loadavg_fd < 0)
		return -1;
	n = pread(w->loadavg_fd, w->buf, sizeof(w->buf) - 1, 0);
	if (n <= 0)
		return -1;
	w->buf[n] = '\0';
	sp = strrchr(str_strip(w->buf), ' ');
	if (!sp || safe_atoi64(sp + 1, &v) < 0 || v < 0)
		return -1;
	return (long)v;
}

/* Lists proc/ and merges the listing into the table. */
static int scan_list(struct procwatch *w)
{
	uint64_t t = now_ns();
	size_t i = 0, j = 0, m = 0;
	int r = list_pids(w);

	if (r < 0)
		return r;
	ent_reserve(w, w->n + w->n_listed);
	/* merge: gone entries are left out (a busy candidate is checked
	 * first), new pids join undecided */
	while (i < w->n || j < w->n_listed) {
		if (j == w->n_listed || (i < w->n && w->ent[i].pid < w->listed[j])) {
			struct proc_ent *e = &w->ent[i++];

			if (e->pending) {
				w->n_pending--;
				e->pending = false;
			}
			if (e->candidate)
				busy_check(w, e, t);
			continue;
		}
		if (i < w->n && w->ent[i].pid == w->listed[j]) {
			w->ent2[m++] = w->ent[i++];
			j++;
			continue;
		}
		memset(&w->ent2[m], 0, sizeof(w->ent2[m]));
		w->ent2[m].pid = w->listed[j++];
		w->ent2[m].sessionid = PROCWATCH_NO_SESSION;
		w->ent2[m].born_ns = t;
		w->ent2[m].pending = true;
		w->n_pending++;
		m++;
	}
	{
		struct proc_ent *tmp = w->ent;

		w->ent = w->ent2;
		w->ent2 = tmp;
		w->n = m;
	}
	for (i = 0; i < w->n && w->n_pending; i++)
		if (w->ent[i].pending && w->ent[i].owner == OWN_UNDECIDED)
			decide(w, &w->ent[i], t, 0);
	/* those the connector already knew the owner of (OWN_RUN) */
	for (i = 0; i < w->n && w->n_pending; i++)
		if (w->ent[i].pending)
			decide(w, &w->ent[i], t, 0);
	return 0;
}

int procwatch_scan(struct procwatch *w)
{
	long last = last_pid(w);

	/* no pid handed out since the last listing: nothing new to find (a
	 * listing of 500 pids costs ~200 us here, proc/loadavg ~3 us) */
	w->st.scans++;
	if (last >= 0 && last == w->last_pid)
		return 0;
	w->last_pid = last;
	return scan_list(w);
}

/* ---- the connector ------------------------------------------------------ */

static int cn_send_op(int sock, enum proc_cn_mcast_op op)
{
	/* nlmsghdr, cn_msg, then the op: laid out by hand (cn_msg ends in
	 * a flexible array, so it cannot sit inside a struct) */
	char m[NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(op))] __attribute__((aligned(8)));
	struct nlmsghdr *nl = (struct nlmsghdr *)m;
	struct cn_msg *cn = NLMSG_DATA(nl);

	memset(m, 0, sizeof(m));
	nl->nlmsg_len = sizeof(m);
	nl->nlmsg_type = NLMSG_DONE;
	nl->nlmsg_pid = (unsigned)getpid();
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	return send(sock, m, sizeof(m), 0) < 0 ? -errno : 0;
}

static int cn_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	int bufsize = 1 << 20;
	int sock = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	int r;

	if (sock < 0)
		return -errno;
	/* room for a burst of forks; SO_RCVBUFFORCE needs root, as the
	 * connector does */
	if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof(bufsize)) < 0)
		setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof(bufsize));
	if (bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (r = cn_send_op(sock, PROC_CN_MCAST_LISTEN)) < 0) {
		r = -errno;
		close(sock);
		return r;
	}
	return sock;
}

/* Walks one datagram's proc events; fn sees each. */
static void cn_each(struct procwatch *w, ssize_t len,
		    void (*fn)(struct procwatch *w, const struct proc_event *ev, void *arg), void *arg)
{
	size_t off = 0, left = (size_t)len;

	/* NLMSG_OK/NEXT by hand: the last message's padding may be absent */
	while (left >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr *nl = (struct nlmsghdr *)(w->msg.raw + off);
		struct cn_msg *cn = NLMSG_DATA(nl);
		size_t step = NLMSG_ALIGN(nl->nlmsg_len);

		if (nl->nlmsg_len < sizeof(*nl) || nl->nlmsg_len > left)
			break;
		if (step > left)
			step = left;
		off += step;
		left -= step;
		if (nl->nlmsg_len < NLMSG_LENGTH(sizeof(*cn)) ||
		    nl->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + cn->len))
			continue;

		if (nl->nlmsg_type == NLMSG_ERROR || nl->nlmsg_type == NLMSG_NOOP)
			continue;
		if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC ||
		    cn->len < sizeof(struct proc_event))
			continue;
		/* the event sits 4 bytes off an 8-byte boundary: copied out to read it */
		{
			struct proc_event ev;

			memcpy(&ev, cn->data, sizeof(ev));
			fn(w, &ev, arg);
		}
	}
}

static void on_event(struct procwatch *w, const struct proc_event *ev, void *arg)
{
	struct proc_ent *e, *parent;

	switch (ev->what) {
	case PROC_EVENT_FORK:
		if (ev->event_data.fork.child_pid != ev->event_data.fork.child_tgid)
			return;   /* a thread */
		if (ent_find(w, ev->event_data.fork.child_tgid))
			return;   /* the start's scan saw it already */
		e = ent_insert(w, ev->event_data.fork.child_tgid);
		e->ppid = ev->event_data.fork.parent_tgid;
		e->born_ns = ev->timestamp_ns;
		e->pending = true;
		w->n_pending++;
		parent = ent_find(w, e->ppid);
		e->owner = (parent && parent->owner == OWN_RUN) ? OWN_RUN : OWN_UNDECIDED;
		break;
	case PROC_EVENT_EXEC:
		e = ent_find(w, ev->event_data.exec.process_tgid);
		if (e)
			e->execd = true;
		if (e && e->pending)
			decide(w, e, ev->timestamp_ns, 0);
		break;
	case PROC_EVENT_EXIT:
		if (ev->event_data.exit.process_pid != ev->event_data.exit.process_tgid)
			return;
		e = ent_find(w, ev->event_data.exit.process_tgid);
		if (!e)
			return;
		if (e->pending)
			decide(w, e, ev->timestamp_ns, 0);   /* its stat is a zombie's, or gone */
		e = ent_find(w, ev->event_data.exit.process_tgid);
		if (e && e->candidate)
			busy_check(w, e, ev->timestamp_ns);
		ent_remove(w, ev->event_data.exit.process_tgid);
		break;
	default:
		break;
	}
}

static int cn_read(struct procwatch *w)
{
	for (;;) {
		ssize_t len = recv(w->sock, w->msg.raw, sizeof(w->msg.raw), 0);

		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			if (errno == ENOBUFS) {
				/* events were dropped: what is still alive is found by a scan */
				w->st.lost++;
				scan_list(w);
				continue;
			}
			return -errno;
		}
		if (len == 0)
			return 0;
		w->st.events++;
		cn_each(w, len, on_event, NULL);
	}
}

static void saw_child(struct procwatch *w, const struct proc_event *ev, void *arg)
{
	if (ev->what == PROC_EVENT_FORK && ev->event_data.fork.child_tgid == *(pid_t *)arg)
		*(pid_t *)arg = 0;
}

/* Forks a child that exits at once and waits up to 500 ms for its fork
 * event: the connector is there and delivers (CONFIG_PROC_EVENTS, the
 * initial pid namespace). 0 or -errno. */
static int cn_selftest(struct procwatch *w)
{
	uint64_t deadline = now_ns() + 500000000u;
	pid_t child = fork(), want;

	if (child < 0)
		return -errno;
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	want = child;
	while (want) {
		struct pollfd pfd = { .fd = w->sock, .events = POLLIN };
		uint64_t t = now_ns();
		ssize_t len;

		if (t >= deadline)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)((deadline - t) / 1000000u) + 1) < 0 && errno != EINTR)
			return -errno;
		while ((len = recv(w->sock, w->msg.raw, sizeof(w->msg.raw), 0)) > 0)
			cn_each(w, len, saw_child, &want);
	}
	return 0;
}

/* ---- start and end ------------------------------------------------------ */

/* The processes alive at the start: the owners of those that matter,
 * and the CPU of the busy-session candidates. */
static int first_scan(struct procwatch *w)
{
	struct pstat st;
	size_t i;
	int r;

	w->last_pid = last_pid(w);
	r = list_pids(w);
	if (r < 0)
		return r;
	ent_reserve(w, w->n_listed);
	w->n = 0;
	for (i = 0; i < w->n_listed; i++) {
		struct proc_ent *e = &w->ent[w->n];

		memset(e, 0, sizeof(*e));
		e->pid = w->listed[i];
		e->sessionid = PROCWATCH_NO_SESSION;
		e->owner = OWN_OTHER;
		if (read_stat(w, e->pid, &st) < 0)
			continue;   /* gone meanwhile */
		w->n++;
		e->ppid = st.ppid;
		e->base_ticks = cpu_ticks(&st);
		if (st.flags & PF_KTHREAD)
			e->owner = OWN_KERNEL;
		else if (pid_in(w->harness, w->n_harness, e->pid))
			e->owner = OWN_HARNESS;
		else if (pid_in(w->cfg.run_roots, w->cfg.n_run_roots, e->pid) ||
			 int_in(w->run_pgrp, w->n_run_ids, st.pgrp) ||
			 int_in(w->run_sid, w->n_run_ids, st.session))
			e->owner = OWN_RUN;
	}
	/* descendants of the run (parents before children is not assumed) */
	for (bool more = true; more;) {
		more = false;
		for (i = 0; i < w->n; i++) {
			struct proc_ent *e = &w->ent[i], *p;

			if (e->owner != OWN_OTHER)
				continue;
			p = ent_find(w, e->ppid);
			if (p && p->owner == OWN_RUN) {
				e->owner = OWN_RUN;
				more = true;
			}
		}
	}
	w->st.stat_reads = 0;
	return 0;
}

static bool run_session(const struct procwatch *w, unsigned sid)
{
	for (size_t i = 0; i < w->n_run_sessions; i++)
		if (w->run_sessions[i] == sid)
			return true;
	return false;
}

/* A run root's process group and session are the run's when it leads
 * them (a group or session it inherited is its starter's); its login
 * session is the run's. */
static void add_run_root(struct procwatch *w, pid_t pid)
{
	struct pstat st;
	unsigned sid;

	if (read_stat(w, pid, &st) < 0 || w->n_run_ids == ARRAY_SIZE(w->run_pgrp))
		return;
	w->run_pgrp[w->n_run_ids] = st.pgrp == pid ? pid : -1;
	w->run_sid[w->n_run_ids++] = st.session == pid ? pid : -1;
	sid = read_sessionid(w, pid);
	if (sid != PROCWATCH_NO_SESSION && !run_session(w, sid) &&
	    w->n_run_sessions < ARRAY_SIZE(w->run_sessions))
		w->run_sessions[w->n_run_sessions++] = sid;
}

/* The run's process groups, sessions and login sessions; the watcher's
 * ancestors as the harness's. */
static void find_run_and_harness(struct procwatch *w)
{
	struct pstat st;
	pid_t pid;

	for (size_t i = 0; i < w->cfg.n_run_roots; i++) {
		add_run_root(w, w->cfg.run_roots[i]);
	}
	pid = w->cfg.self;
	{
		unsigned sid = read_sessionid(w, pid);

		if (sid != PROCWATCH_NO_SESSION && w->n_run_sessions < ARRAY_SIZE(w->run_sessions))
			w->run_sessions[w->n_run_sessions++] = sid;
	}
	for (int depth = 0; pid > 1 && depth < 64; depth++) {
		if (!pid_in(w->harness, w->n_harness, pid))
			procwatch_add_harness(w, pid);
		if (read_stat(w, pid, &st) < 0)
			break;
		pid = st.ppid;
	}
}

/* Busy-session candidates: others' processes in a login session that
 * is not the run's. */
static void find_candidates(struct procwatch *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct proc_ent *e = &w->ent[i];
		unsigned sid;

		if (e->owner != OWN_OTHER)
			continue;
		sid = read_sessionid(w, e->pid);
		if (sid == PROCWATCH_NO_SESSION || run_session(w, sid))
			continue;
		{
			ssize_t n = read_pid_file(w, e->pid, "environ", w->envbuf, sizeof(w->envbuf));

			if (n > 0 && w->cfg.run_id && w->cfg.run_id[0] &&
			    procwatch_environ_has(w->envbuf, (size_t)n, PROCWATCH_MARKER_ENV, w->cfg.run_id)) {
				e->owner = OWN_RUN;
				continue;
			}
			if (n > 0 && procwatch_environ_has(w->envbuf, (size_t)n, PROCWATCH_HARNESS_ENV, NULL)) {
				e->owner = OWN_HARNESS;
				continue;
			}
		}
		e->sessionid = sid;
		e->candidate = true;
	}
}

void procwatch_add_run_root(struct procwatch *w, pid_t pid)
{
	struct proc_ent *e = ent_find(w, pid);

	add_run_root(w, pid);
	if (e) {
		if (e->pending) {
			e->pending = false;
			w->n_pending--;
		}
		e->owner = OWN_RUN;
		e->candidate = false;
	}
}

void procwatch_add_harness(struct procwatch *w, pid_t pid)
{
	struct proc_ent *e;

	w->harness = xrealloc(w->harness, (w->n_harness + 1) * sizeof(pid_t));
	w->harness[w->n_harness++] = pid;
	e = ent_find(w, pid);
	if (e && !e->pending) {
		e->owner = OWN_HARNESS;
		e->candidate = false;
	}
}

int procwatch_start(struct procwatch **out, const struct procwatch_config *cfg)
{
	struct procwatch *w = zalloc(sizeof(*w));
	int r, cr = 0;

	w->cfg = *cfg;
	w->sock = -1;
	w->procfd = -1;
	w->loadavg_fd = -1;
	if (!w->cfg.self)
		w->cfg.self = getpid();
	w->hz = sysconf(_SC_CLK_TCK);
	if (w->hz <= 0)
		w->hz = 100;
	w->busy_ticks = (uint64_t)(cfg->busy_ms ? cfg->busy_ms : 1000) * (uint64_t)w->hz / 1000u;
	w->scan_ns = (uint64_t)(cfg->scan_ms ? cfg->scan_ms : PROCWATCH_SCAN_MS) * 1000000u;
	for (size_t i = 0; i < cfg->n_harness; i++)
		procwatch_add_harness(w, cfg->harness[i]);
	r = open_proc(w);
	if (r < 0)
		goto fail;

	if (cfg->source != PROCWATCH_SCAN) {
		cr = cn_open();
		if (cr >= 0) {
			w->sock = cr;
			cr = cn_selftest(w);
			if (cr < 0) {
				close(w->sock);
				w->sock = -1;
			}
		}
		if (cr < 0 && cfg->source == PROCWATCH_CONNECTOR) {
			r = cr;
			goto fail;
		}
	}
	if (w->sock >= 0) {
		w->source = PROCWATCH_CONNECTOR;
		snprintf(w->why, sizeof(w->why),
			 "the kernel's proc connector delivers events: no need to scan proc/");
	} else {
		w->source = PROCWATCH_SCAN;
		if (cfg->source == PROCWATCH_SCAN)
			snprintf(w->why, sizeof(w->why), "the scan was asked for");
		else
			snprintf(w->why, sizeof(w->why), "no proc connector: %s%s", strerror(-cr),
				 cr == -EPERM ? " (it needs root)" :
				 cr == -ETIMEDOUT ? " (no event for a forked child: CONFIG_PROC_EVENTS off?)" : "");
	}

	find_run_and_harness(w);
	r = first_scan(w);
	if (r < 0)
		goto fail;
	for (size_t i = 0; i < w->n_harness; i++) {
		struct proc_ent *e = ent_find(w, w->harness[i]);

		if (e)
			e->owner = OWN_HARNESS;
	}
	find_candidates(w);
	w->start_ns = now_ns();
	w->next_scan_ns = w->start_ns + w->scan_ns;
	*out = w;
	return 0;
fail:
	procwatch_free(w);
	return r;
}

enum procwatch_source procwatch_source(const struct procwatch *w)
{
	return w->source;
}

const char *procwatch_why(const struct procwatch *w)
{
	return w->why;
}

int procwatch_fd(const struct procwatch *w)
{
	return w->sock;
}

int procwatch_timeout_ms(const struct procwatch *w)
{
	uint64_t t = now_ns();

	if (w->finished || (w->source == PROCWATCH_CONNECTOR && !w->n_pending))
		return -1;
	return t >= w->next_scan_ns ? 0 : (int)((w->next_scan_ns - t + 999999u) / 1000000u);
}

/* Connector: a new process neither exec'd nor exited within a scan
 * interval gets its verdict under the name it has. */
static void resolve_old_pending(struct procwatch *w, uint64_t t)
{
	for (size_t i = 0; i < w->n && w->n_pending; i++)
		if (w->ent[i].pending && t - w->ent[i].born_ns >= w->scan_ns)
			decide(w, &w->ent[i], t, 0);
}

int procwatch_dispatch(struct procwatch *w)
{
	uint64_t t;
	int r = 0;

	if (w->finished)
		return 0;
	if (w->source == PROCWATCH_CONNECTOR) {
		r = cn_read(w);
		t = now_ns();
		if (w->n_pending && t >= w->next_scan_ns) {
			resolve_old_pending(w, t);
			w->next_scan_ns = t + w->scan_ns;
		} else if (!w->n_pending) {
			w->next_scan_ns = t + w->scan_ns;
		}
		return r;
	}
	t = now_ns();
	if (t < w->next_scan_ns)
		return 0;
	/* absolute deadlines: a late scan does not shift the next ones */
	w->next_scan_ns += w->scan_ns;
	if (w->next_scan_ns <= t)
		w->next_scan_ns = t + w->scan_ns;
	return procwatch_scan(w);
}

int procwatch_finish(struct procwatch *w)
{
	uint64_t t;
	int r = 0;

	if (w->finished)
		return 0;
	if (w->source == PROCWATCH_CONNECTOR)
		r = cn_read(w);
	else
		r = procwatch_scan(w);
	t = now_ns();
	for (size_t i = 0; i < w->n && w->n_pending; i++)
		if (w->ent[i].pending)
			decide(w, &w->ent[i], t, 0);
	for (size_t i = 0; i < w->n; i++)
		busy_check(w, &w->ent[i], t);
	w->finished = true;
	if (w->sock >= 0) {
		cn_send_op(w->sock, PROC_CN_MCAST_IGNORE);
		close(w->sock);
		w->sock = -1;
	}
	return r;
}

void procwatch_stats(const struct procwatch *w, struct procwatch_stats *out)
{
	*out = w->st;
	out->procs = w->n;
}

void procwatch_free(struct procwatch *w)
{
	if (!w)
		return;
	if (w->sock >= 0)
		close(w->sock);
	if (w->procfd >= 0)
		close(w->procfd);
	if (w->loadavg_fd >= 0)
		close(w->loadavg_fd);
	free(w->ent);
	free(w->ent2);
	free(w->listed);
	free(w->harness);
	free(w);
}
