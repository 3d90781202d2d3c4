/*
 * What the parts of hitchbench-waker share (waker-main.c: options and
 * main; waker-run.c: the CPUs, the waits, the threads, the report, and
 * the sleep mode; waker-kick.c and waker-probe.c: the other two modes).
 */
#ifndef HB_WAKER_INTERNAL_H
#define HB_WAKER_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "text/kvfile.h"
#include "system/wakeplan.h"

#define PROG "hitchbench-waker"
#define THREAD_STACK (256 * 1024)
/* Late wakeups kept per CPU with their time; later ones are counted only. */
#define PROBE_LATE_CAP 20000
#define DEFAULT_FIFO_PRIO 80
#define DEFAULT_THRESHOLD_US 1000

struct opts {
	enum waker_mode mode;
	uint64_t period_ns;
	double duration_s;          /* 0: until a signal */
	cpu_set_t cpus;
	bool cpus_given;
	const char *out;
	int nice;
	uint64_t threshold_ns;
	int fifo_prio;
	bool dma_latency;
	const char *ready;
	const char *cmdline;
};

/* The CPUs to wake or probe: -c, checked against those online, or every
 * online one. 0 or -1 (said why). */
int target_cpus(struct opts *o, cpu_set_t *online);
/* The main thread's wait: until end_ns (0: none) or a stop signal. */
void wait_end(uint64_t end_ns);
/* -t after start, or 0 for none. */
uint64_t end_of(const struct opts *o, uint64_t start);
/* The sleep and kick loops' wait: *next moves on by a period and the
 * thread sleeps to it. False when told to stop or when that deadline would
 * pass end (0: none). */
bool sleep_to_next(uint64_t *next, uint64_t period_ns, uint64_t end);
/* Threads never take the stop signals: the main thread does. */
void block_signals(sigset_t *old);
/* -o: a file, or stdout for "-"; NULL (said why). */
FILE *open_out(const char *path);
/* Flushes and closes it: 0, or -1 (said why). */
int close_out(FILE *f, const char *path);
/* The report's keys every mode writes first (docs/formats.md, "Waker report"). */
void report_head(struct kvfile *kv, const struct opts *o, uint64_t start, uint64_t end,
		 uint64_t cpu_ns);
/* Writes the report to path: 0 or -1 (said why). */
int write_report(const struct kvfile *kv, const char *path);
/* A thread pinned to cpu, SCHED_FIFO at fifo_prio when above 0. 0 or -errno. */
int start_thread(pthread_t *t, int cpu, int fifo_prio, void *(*fn)(void *), void *arg);

/* The three modes; each returns the program's exit status. */
int run_sleep(struct opts *o);
int run_kick(struct opts *o);
int run_probe(struct opts *o);

#endif
