/*
 * Sorting the integers the analysis sorts most: present times and frame
 * times in nanoseconds, a million and more of them per run. qsort() with a
 * comparison callback spends most of `hitchbench report` on a long run;
 * a radix sort on the integers does the same in a few passes over memory.
 */
#ifndef HB_SORT_H
#define HB_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts v[0..n) ascending. Stable (equal values are equal anyway); needs a
 * temporary copy of v (zalloc: aborts on OOM), freed before it returns.
 * n == 0 and v == NULL is fine. */
void sort_u64(uint64_t *v, size_t n);

#endif
