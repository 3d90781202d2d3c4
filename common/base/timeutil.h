/*
 * Clocks. Frame times, windows and passes are CLOCK_MONOTONIC nanoseconds;
 * wall-clock times are for people and file names only. The one sleep to an
 * absolute deadline and the one reading of a program's own CPU time live
 * here, so every loop on deadlines and every observer's cost figure means
 * the same thing.
 */
#ifndef HB_TIMEUTIL_H
#define HB_TIMEUTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL

uint64_t mono_ns(void);
uint64_t real_ns(void);
/* Sleeps ms milliseconds, a signal's interruption included (the rest is slept). */
void sleep_ms(unsigned ms);
/* Sleeps until the CLOCK_MONOTONIC time deadline_ns (TIMER_ABSTIME, so a
 * loop on deadlines does not drift). A signal that interrupts the sleep is
 * slept through again unless *stop is set by then; stop may be NULL (never
 * stopped). *stop is looked at before the first sleep too. Returns 0 at the
 * deadline (at once for one already past), 1 when stopped, or -errno when
 * the clock refuses (a deadline this type can hold never makes it). */
int sleep_until(uint64_t deadline_ns, const volatile sig_atomic_t *stop);
/* Sleeps until deadline_ns (CLOCK_MONOTONIC) or the first signal
 * handled, whichever comes first: for a loop that must act on a signal at
 * once (a helper paused by one). 0 at the deadline, -EINTR. */
int sleep_until_signal(uint64_t deadline_ns);
/* The CPU time (user + system) of this process, all its threads, the ones
 * already ended included: what an observer's whole cost is. From
 * getrusage(RUSAGE_SELF), so to the microsecond; 0 if it cannot be read. */
uint64_t self_cpu_ns(void);
/* The CPU time of the calling thread alone (CLOCK_THREAD_CPUTIME_ID): what
 * one loop of an observer costs, without the other threads' work. 0 if the
 * clock cannot be read. */
uint64_t thread_cpu_ns(void);
/* "2026-11-30T10:00:00Z" for a wall-clock time in seconds. */
void utc_iso8601(time_t t, char *buf, size_t size);
/* "2026-11-30T10:00:00Z" (utc_iso8601's form) back to a time: 0, or
 * -EINVAL for anything else. */
int utc_iso8601_parse(const char *s, time_t *out);
/* "20261130T100000Z": the same, safe in file names. */
void utc_compact(time_t t, char *buf, size_t size);

#endif
