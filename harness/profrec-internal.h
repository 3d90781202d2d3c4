/*
 * The profile recorder's parts (profrec-main.c drives, profrec-perf.c
 * talks to the kernel's perf events): what they share.
 */
#ifndef HB_PROFREC_INTERNAL_H
#define HB_PROFREC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/util.h"
#include "system/ksyms.h"

/* One perf event: a thread's CPU clock on one CPU. The kernel maps no
 * ring for an inherited per-thread event on every CPU, so each thread has
 * an event per CPU, and the events of a CPU write into that CPU's ring. */
struct pevent {
	int fd;
	int32_t tid;
	int cpu;
};

/* A CPU's ring buffer: its first event's mapping. */
struct pring {
	int cpu;
	int fd;                 /* -1: no event on it yet */
	void *base;             /* a header page, then the ring */
};

/* A thread or stack already written: the tables that keep the record from
 * saying the same thing twice. */
struct seen_thread {
	int32_t tid;            /* 0: empty slot */
	char comm[16];
};

struct seen_stack {
	uint64_t hash;
	uint32_t id;            /* 0: empty slot */
	uint32_t n, nk;
	uint64_t *ip;           /* n addresses: nk kernel ones, then user ones */
};

struct profrec_state {
	/* what it was told */
	unsigned hz;
	unsigned pages;         /* ring pages per event */
	unsigned max_stack;
	/* the kernel's events */
	struct pevent *ev;
	size_t n_ev, cap_ev;
	struct pring *ring;     /* one per online CPU */
	size_t n_ring;
	bool build_ids;         /* the kernel puts build ids in its map records */
	bool paused;
	/* what was written */
	struct seen_thread *thread;
	size_t cap_thread, n_thread;
	struct seen_stack *stack;
	size_t cap_stack, n_stack;
	struct ksyms ksyms;
	bool have_ksyms;
	FILE *live;
	struct strbuf line;     /* the lines of one drain, written at its end */
	/* counts for the trailer */
	uint64_t samples, lost, maps, forks, execs, drains, bytes, unknown_records;
	uint64_t drain_ns;      /* the recorder's thread CPU time spent draining */
	uint64_t open_errors;
	char first_open_error[160];
};

/* Sets up the tables and a ring per online CPU (none opened yet); the
 * live file is s->live. */
void profrec_state_init(struct profrec_state *s);
void profrec_state_release(struct profrec_state *s);
/* The perf event attributes this machine takes, tried once: 0, or -errno
 * with why in err (no perf events, not allowed). Says what it took in
 * the record's meta lines (written to s->line). */
int profrec_probe(struct profrec_state *s, struct strbuf *err);
/* Follows process pid and every process of its session: an event on each
 * of their threads (inherited by what they start later), their maps and
 * names into the record. Returns how many threads it opened. */
size_t profrec_follow(struct profrec_state *s, pid_t pid);
/* Reads every ring buffer into the record's lines and writes them. */
void profrec_drain(struct profrec_state *s);
/* Turns every event off (pause) or on again; the record says when. */
void profrec_pause(struct profrec_state *s, bool pause);
/* Closes every event (after a last drain). */
void profrec_close(struct profrec_state *s);

#endif
