/*
 * Whose a new process is (the rules of procwatch.h, first that matches),
 * and whether a busy-session candidate burnt a second of CPU: the
 * verdicts the process watcher hands to its caller.
 */
#include "procwatch/procwatch-internal.h"

#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

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

	v->sessionid = pw_read_sessionid(w, pid);
	v->loginuid = PROCWATCH_NO_SESSION;
	if (pw_read_pid_file(w, pid, "loginuid", w->buf, sizeof(w->buf)) > 0 &&
	    safe_atou64(str_strip(w->buf), &u) == 0 && u <= PROCWATCH_NO_SESSION)
		v->loginuid = (unsigned)u;
	v->scope[0] = '\0';
	if (pw_read_pid_file(w, pid, "cgroup", w->buf, sizeof(w->buf)) > 0) {
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

/* Reads the markers of p, a process there when the watch started that no
 * rule has judged, once: the run's marker makes it the run's, the
 * harness's makes it the harness's (marked: what it forks without exec
 * is too). A listed harness process's marker is read as well: what it
 * starts inherits it. Called at the start for the harness's children,
 * when p forks, and when a child of p is judged (CI's fuzzing script,
 * started before the package test's run, and the `cat` it runs). */
void pw_read_markers(struct procwatch *w, struct proc_ent *p)
{
	ssize_t n;

	if ((p->owner != OWN_OTHER && p->owner != OWN_HARNESS) || p->env_read || p->marked)
		return;
	p->env_read = true;
	n = pw_read_pid_file(w, p->pid, "environ", w->envbuf, sizeof(w->envbuf));
	if (n <= 0)
		return;
	if (p->owner == OWN_OTHER && procwatch_environ_marked(w->envbuf, (size_t)n, w->cfg.run_id, w->cfg.relay_id)) {
		p->owner = OWN_RUN;
		p->candidate = false;
		return;
	}
	if (procwatch_environ_has(w->envbuf, (size_t)n, PROCWATCH_HARNESS_ENV, NULL)) {
		p->marked = true;
		if (p->owner == OWN_OTHER) {
			p->owner = OWN_HARNESS;
			p->candidate = false;
		}
	}
}

/* Whether p, a new process's parent, carries the harness's marker. */
static bool carries_harness(struct procwatch *w, struct proc_ent *p)
{
	pw_read_markers(w, p);
	return p->marked;
}

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
	if (pw_pid_in(w->harness, w->n_harness, e->pid)) {
		*why = "listed as the harness's";
		return OWN_HARNESS;
	}
	if (e->owner == OWN_RUN) {   /* forked by the run's, seen by the connector */
		*why = why_f(w, "parent %d is the run's", e->ppid);
		return OWN_RUN;
	}
	parent = pw_ent_find(w, e->ppid);
	if (parent && parent->owner == OWN_UNDECIDED && parent != e && depth < 32) {
		int ppid = e->ppid, pid = e->pid;

		pw_decide(w, parent, at_ns, depth + 1);    /* may move entries: look e up again */
		e = pw_ent_find(w, pid);
		parent = pw_ent_find(w, ppid);
		if (!e)
			return OWN_OUTSIDE;
	}
	if (parent && parent->owner == OWN_RUN) {
		*why = why_f(w, "parent %d is the run's", e->ppid);
		return OWN_RUN;
	}
	if (st && pw_int_in(w->run_pgrp, w->n_run_ids, st->pgrp)) {
		*why = why_f(w, "in the run's process group %d", st->pgrp);
		return OWN_RUN;
	}
	if (st && pw_int_in(w->run_sid, w->n_run_ids, st->session)) {
		*why = why_f(w, "in the run's session %d", st->session);
		return OWN_RUN;
	}
	/* a fork that never exec'd holds its parent's environment: a child
	 * of a marked process is marked too (a sanitizer's leak-check task,
	 * a shell's subshell), even when it is gone before it could be read */
	if (w->source == PROCWATCH_CONNECTOR && !e->execd && parent && carries_harness(w, parent)) {
		*why = "forked without exec by a process carrying " PROCWATCH_HARNESS_ENV;
		e->marked = true;
		return OWN_HARNESS;
	}
	/* the markers, last: the environment is the dearest thing to read */
	{
		ssize_t n = pw_read_pid_file(w, e->pid, "environ", w->envbuf, sizeof(w->envbuf));
		bool inherited = false;
		const char *marker;

		/* gone (or a zombie) before its environment could be read, and
		 * never exec'd (the connector would have said): a fork holds
		 * its parent's environment, which stands in for it (a
		 * sanitizer's leak-check task, a shell's subshell) */
		if (n <= 0 && w->source == PROCWATCH_CONNECTOR && !e->execd && parent) {
			n = pw_read_pid_file(w, parent->pid, "environ", w->envbuf, sizeof(w->envbuf));
			inherited = true;
		}
		marker = n > 0 ? procwatch_environ_marked(w->envbuf, (size_t)n, w->cfg.run_id, w->cfg.relay_id) :
				 NULL;
		if (marker) {
			if (strcmp(marker, PROCWATCH_MARKER_ENV) == 0)
				*why = inherited ? "forked without exec by a process carrying " PROCWATCH_MARKER_ENV
						 : "carries " PROCWATCH_MARKER_ENV;
			else
				*why = inherited ? "forked without exec by a process carrying " PROCWATCH_RELAY_ENV
						 : "carries " PROCWATCH_RELAY_ENV;
			return OWN_RUN;
		}
		if (n > 0 && procwatch_environ_has(w->envbuf, (size_t)n, PROCWATCH_HARNESS_ENV, NULL)) {
			*why = inherited ? "forked without exec by a process carrying " PROCWATCH_HARNESS_ENV
					 : "carries " PROCWATCH_HARNESS_ENV;
			e->marked = true;
			return OWN_HARNESS;
		}
		/* exec'd and gone (or a zombie, whose environ reads empty)
		 * before its environment could be read: what it was given
		 * went with it. A child of a marked process inherits the
		 * marker unless its starter chose to drop it, which the
		 * harness's own commands do not (a script's `$(... | tail -n
		 * 1)`): the parent's marker stands in */
		if ((n == 0 || n == -ENOENT || n == -ESRCH) && w->source == PROCWATCH_CONNECTOR && e->execd &&
		    parent && carries_harness(w, parent)) {
			*why = "gone before its environment was read; its parent carries " PROCWATCH_HARNESS_ENV;
			e->marked = true;
			return OWN_HARNESS;
		}
	}
	*why = parent ? why_f(w, "parent %d is not the run's", e->ppid)
		      : why_f(w, "parent %d unknown, not the run's", e->ppid);
	return OWN_OUTSIDE;
}

/* Gives a new process its verdict (once). */
void pw_decide(struct procwatch *w, struct proc_ent *e, uint64_t at_ns, int depth)
{
	struct procwatch_verdict v;
	struct pstat st;
	bool have = pw_read_stat(w, e->pid, &st) == 0;
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
	e = pw_ent_find(w, pid);
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
void pw_busy_check(struct procwatch *w, struct proc_ent *e, uint64_t at_ns)
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
	if (pw_read_stat(w, e->pid, &st) < 0) {
		snprintf(v.comm, sizeof(v.comm), "(gone)");
		v.cpu_ticks = -1;
		v.why = "exited during the watch: its CPU time is not known";
		emit(w, &v, at_ns);
		return;
	}
	v.cpu_ticks = (int64_t)(pw_cpu_ticks(&st) - e->base_ticks);
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
