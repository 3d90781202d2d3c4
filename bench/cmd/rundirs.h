/*
 * Command-line arguments that name run directories: a run directory itself
 * (it has bench.txt), a batch directory (it has batch.txt) or a directory
 * of runs and batches (results/runs), expanded in name order (names start
 * with the UTC time, so that is time order; a batch's runs come where the
 * batch does).
 */
#ifndef HB_RUNDIRS_H
#define HB_RUNDIRS_H

#include "text/argv.h"

/* Appends the run directories ARG names. 0, or -ENOENT when it is neither. */
int rundirs_expand(const char *arg, struct argv_list *out);

#endif
