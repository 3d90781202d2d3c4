/*
 * zstd-compressed files read whole (a run's stalls.rec.zst and
 * sensors.tsv.zst): decompressed by streaming into a buffer that grows
 * with what the data really yields, up to a maximum the caller sets, so a
 * frame header claiming gigabytes, or a small file that inflates without
 * end, costs no more memory than the maximum.
 */
#ifndef HB_UNZSTD_H
#define HB_UNZSTD_H

#include <stddef.h>

struct strbuf;

/* Appends what data (one or more zstd frames) decompresses to, at most max
 * bytes. 0, -EINVAL (not zstd, corrupt, cut short) or -EFBIG (more than
 * max), with *why saying which. */
int unzstd(const void *data, size_t len, size_t max, struct strbuf *out, const char **why);

#endif
