/*
 * The process watcher's table of the processes alive now (sorted by pid,
 * found by binary search), and what proc/PID says of one of them: the
 * parts the verdicts, the scan and the connector all use.
 */
#include "procwatch/procwatch-internal.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t pw_read_pid_file(struct procwatch *w, int pid, const char *name, char *buf, size_t size)
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

int pw_read_stat(struct procwatch *w, int pid, struct pstat *st)
{
	ssize_t n = pw_read_pid_file(w, pid, "stat", w->buf, sizeof(w->buf));

	w->st.stat_reads++;
	if (n < 0)
		return (int)n;
	return pstat_parse(w->buf, st);
}

unsigned pw_read_sessionid(struct procwatch *w, int pid)
{
	uint64_t v;

	if (pw_read_pid_file(w, pid, "sessionid", w->buf, sizeof(w->buf)) <= 0 ||
	    safe_atou64(str_strip(w->buf), &v) < 0 || v > PROCWATCH_NO_SESSION)
		return PROCWATCH_NO_SESSION;
	return (unsigned)v;
}

uint64_t pw_cpu_ticks(const struct pstat *st)
{
	return st->utime + st->stime + (uint64_t)(st->cutime > 0 ? st->cutime : 0) +
	       (uint64_t)(st->cstime > 0 ? st->cstime : 0);
}

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

struct proc_ent *pw_ent_find(struct procwatch *w, int pid)
{
	ssize_t i = ent_index(w, pid);

	return i >= 0 ? &w->ent[i] : NULL;
}

void pw_ent_reserve(struct procwatch *w, size_t n)
{
	if (n <= w->alloc)
		return;
	w->alloc = n < 256 ? 256 : n * 2;
	w->ent = xrealloc(w->ent, w->alloc * sizeof(*w->ent));
	w->ent2 = xrealloc(w->ent2, w->alloc * sizeof(*w->ent2));
}

struct proc_ent *pw_ent_insert(struct procwatch *w, int pid)
{
	ssize_t i = ent_index(w, pid);
	size_t at;

	if (i >= 0)
		return &w->ent[i];
	pw_ent_reserve(w, w->n + 1);
	at = (size_t)(-1 - i);
	memmove(&w->ent[at + 1], &w->ent[at], (w->n - at) * sizeof(*w->ent));
	w->n++;
	memset(&w->ent[at], 0, sizeof(*w->ent));
	w->ent[at].pid = pid;
	w->ent[at].sessionid = PROCWATCH_NO_SESSION;
	return &w->ent[at];
}

void pw_ent_remove(struct procwatch *w, int pid)
{
	ssize_t i = ent_index(w, pid);

	if (i < 0)
		return;
	if (w->ent[i].pending)
		w->n_pending--;
	memmove(&w->ent[i], &w->ent[i + 1], (w->n - (size_t)i - 1) * sizeof(*w->ent));
	w->n--;
}
