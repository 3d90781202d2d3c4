/*
 * Clocks. Frame times, windows and passes are CLOCK_MONOTONIC nanoseconds;
 * wall-clock times are for people and file names only.
 */
#ifndef HB_TIMEUTIL_H
#define HB_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL

uint64_t mono_ns(void);
uint64_t real_ns(void);
/* Sleeps ms milliseconds, a signal's interruption included (the rest is slept). */
void sleep_ms(unsigned ms);
/* "2026-11-30T10:00:00Z" for a wall-clock time in seconds. */
void utc_iso8601(time_t t, char *buf, size_t size);
/* "20261130T100000Z": the same, safe in file names. */
void utc_compact(time_t t, char *buf, size_t size);

#endif
