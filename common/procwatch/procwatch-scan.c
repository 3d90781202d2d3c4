/*
 * Finding new processes by listing proc/ under the swappable root: the
 * watcher's way when the kernel's proc connector is not there, and the
 * start's listing. proc/loadavg's last pid says first whether anything
 * can be new.
 */
#include "procwatch/procwatch-internal.h"
#include "system/fsroot.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int pw_open_proc(struct procwatch *w)
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
int pw_list_pids(struct procwatch *w)
{
	bool sorted = true;
	long n;
	int r = pw_open_proc(w);

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
long pw_last_pid(struct procwatch *w)
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
int pw_scan_list(struct procwatch *w)
{
	uint64_t t = mono_ns();
	size_t i = 0, j = 0, m = 0;
	int r = pw_list_pids(w);

	if (r < 0)
		return r;
	pw_ent_reserve(w, w->n + w->n_listed);
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
				pw_busy_check(w, e, t);
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
			pw_decide(w, &w->ent[i], t, 0);
	/* those the connector already knew the owner of (OWN_RUN) */
	for (i = 0; i < w->n && w->n_pending; i++)
		if (w->ent[i].pending)
			pw_decide(w, &w->ent[i], t, 0);
	return 0;
}

int procwatch_scan(struct procwatch *w)
{
	long last = pw_last_pid(w);

	/* no pid handed out since the last listing: nothing new to find (a
	 * listing of 500 pids costs ~200 us here, proc/loadavg ~3 us) */
	w->st.scans++;
	if (last >= 0 && last == w->last_pid)
		return 0;
	w->last_pid = last;
	return pw_scan_list(w);
}
