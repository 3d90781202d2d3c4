/*
 * New processes and busy sessions during a watched run (see procwatch.h):
 * the start (who is the run's and the harness's, the processes alive then,
 * the busy-session candidates), dispatching events and scans, and the end.
 *
 * The state is one table of the processes alive now, sorted by pid: a
 * scan of proc/ (listed in pid order by the kernel, sorted here when a
 * fixture tree is not) is merged with it in one pass, and the
 * connector's events find their pid by binary search. 500 processes
 * are 20 KiB; the table only grows. procwatch-internal.h lists the parts.
 */
#include "procwatch/procwatch-internal.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

const char *procwatch_environ_marked(const char *buf, size_t len, const char *run_id, const char *relay_id)
{
	if (run_id && run_id[0] && procwatch_environ_has(buf, len, PROCWATCH_MARKER_ENV, run_id))
		return PROCWATCH_MARKER_ENV;
	if (relay_id && relay_id[0] && procwatch_environ_has(buf, len, PROCWATCH_RELAY_ENV, relay_id))
		return PROCWATCH_RELAY_ENV;
	return NULL;
}

void procwatch_scope(const char *cgroup_path, char *out, size_t size)
{
	const char *slash = strrchr(cgroup_path, '/');
	const char *s = slash ? slash + 1 : cgroup_path;

	snprintf(out, size, "%s", s);
}

/* ---- start and end ------------------------------------------------------ */

/* The processes alive at the start: the owners of those that matter,
 * and the CPU of the busy-session candidates. */
static int first_scan(struct procwatch *w)
{
	struct pstat st;
	size_t i;
	int r;

	w->last_pid = pw_last_pid(w);
	r = pw_list_pids(w);
	if (r < 0)
		return r;
	pw_ent_reserve(w, w->n_listed);
	w->n = 0;
	for (i = 0; i < w->n_listed; i++) {
		struct proc_ent *e = &w->ent[w->n];

		memset(e, 0, sizeof(*e));
		e->pid = w->listed[i];
		e->sessionid = PROCWATCH_NO_SESSION;
		e->owner = OWN_OTHER;
		if (pw_read_stat(w, e->pid, &st) < 0)
			continue;   /* gone meanwhile */
		w->n++;
		e->ppid = st.ppid;
		e->base_ticks = pw_cpu_ticks(&st);
		if (st.flags & PF_KTHREAD)
			e->owner = OWN_KERNEL;
		else if (pw_pid_in(w->harness, w->n_harness, e->pid))
			e->owner = OWN_HARNESS;
		else if (pw_pid_in(w->cfg.run_roots, w->cfg.n_run_roots, e->pid) ||
			 pw_int_in(w->run_pgrp, w->n_run_ids, st.pgrp) ||
			 pw_int_in(w->run_sid, w->n_run_ids, st.session))
			e->owner = OWN_RUN;
	}
	/* descendants of the run (parents before children is not assumed) */
	for (bool more = true; more;) {
		more = false;
		for (i = 0; i < w->n; i++) {
			struct proc_ent *e = &w->ent[i], *p;

			if (e->owner != OWN_OTHER)
				continue;
			p = pw_ent_find(w, e->ppid);
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

	if (pw_read_stat(w, pid, &st) < 0 || w->n_run_ids == ARRAY_SIZE(w->run_pgrp))
		return;
	w->run_pgrp[w->n_run_ids] = st.pgrp == pid ? pid : -1;
	w->run_sid[w->n_run_ids++] = st.session == pid ? pid : -1;
	sid = pw_read_sessionid(w, pid);
	if (sid != PROCWATCH_NO_SESSION && !run_session(w, sid) &&
	    w->n_run_sessions < ARRAY_SIZE(w->run_sessions))
		w->run_sessions[w->n_run_sessions++] = sid;
}

static void add_harness(struct procwatch *w, pid_t pid);

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
		unsigned sid = pw_read_sessionid(w, pid);

		if (sid != PROCWATCH_NO_SESSION && w->n_run_sessions < ARRAY_SIZE(w->run_sessions))
			w->run_sessions[w->n_run_sessions++] = sid;
	}
	for (int depth = 0; pid > 1 && depth < 64; depth++) {
		if (!pw_pid_in(w->harness, w->n_harness, pid))
			add_harness(w, pid);
		if (pw_read_stat(w, pid, &st) < 0)
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
		sid = pw_read_sessionid(w, e->pid);
		if (sid == PROCWATCH_NO_SESSION || run_session(w, sid))
			continue;
		pw_read_markers(w, e);
		if (e->owner != OWN_OTHER)
			continue;
		e->sessionid = sid;
		e->candidate = true;
	}
}

void procwatch_add_run_root(struct procwatch *w, pid_t pid)
{
	struct proc_ent *e = pw_ent_find(w, pid);

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

/* A harness process (exempt): the watcher's ancestors and cfg->harness. */
static void add_harness(struct procwatch *w, pid_t pid)
{
	struct proc_ent *e;

	w->harness = xrealloc(w->harness, (w->n_harness + 1) * sizeof(pid_t));
	w->harness[w->n_harness++] = pid;
	e = pw_ent_find(w, pid);
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
		add_harness(w, cfg->harness[i]);
	r = pw_open_proc(w);
	if (r < 0)
		goto fail;

	if (cfg->source != PROCWATCH_SCAN) {
		cr = pw_cn_open();
		if (cr >= 0) {
			w->sock = cr;
			cr = pw_cn_selftest(w);
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
		struct proc_ent *e = pw_ent_find(w, w->harness[i]);

		if (e)
			e->owner = OWN_HARNESS;
	}
	/* what the harness started before the watch (a relay's other run,
	 * its helpers) is read now: such a process may fork and be gone
	 * before its child is judged (a sanitizer build's leak check) */
	for (size_t i = 0; i < w->n; i++)
		if (w->ent[i].owner == OWN_OTHER && pw_pid_in(w->harness, w->n_harness, w->ent[i].ppid))
			pw_read_markers(w, &w->ent[i]);
	find_candidates(w);
	w->start_ns = mono_ns();
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
	uint64_t t = mono_ns();

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
			pw_decide(w, &w->ent[i], t, 0);
}

int procwatch_dispatch(struct procwatch *w)
{
	uint64_t t;
	int r = 0;

	if (w->finished)
		return 0;
	if (w->source == PROCWATCH_CONNECTOR) {
		r = pw_cn_read(w);
		t = mono_ns();
		if (w->n_pending && t >= w->next_scan_ns) {
			resolve_old_pending(w, t);
			w->next_scan_ns = t + w->scan_ns;
		} else if (!w->n_pending) {
			w->next_scan_ns = t + w->scan_ns;
		}
		return r;
	}
	t = mono_ns();
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
		r = pw_cn_read(w);
	else
		r = procwatch_scan(w);
	t = mono_ns();
	for (size_t i = 0; i < w->n && w->n_pending; i++)
		if (w->ent[i].pending)
			pw_decide(w, &w->ent[i], t, 0);
	for (size_t i = 0; i < w->n; i++)
		pw_busy_check(w, &w->ent[i], t);
	w->finished = true;
	pw_cn_close(w);
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
