/*
 * zstd-compressed files read whole (a run's stalls.rec.zst, waits.rec.zst
 * and sensors.tsv.zst): decompressed by streaming into a buffer that grows
 * with what the data really yields, up to a maximum the caller sets, so a
 * frame header claiming gigabytes, or a small file that inflates without
 * end, costs no more memory than the maximum. The one home of "read a
 * file, maybe zstd, bounded" for every record a run keeps.
 */
#ifndef HB_UNZSTD_H
#define HB_UNZSTD_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* Appends what data (one or more zstd frames) decompresses to, at most max
 * bytes. 0, -EINVAL (not zstd, corrupt, cut short) or -EFBIG (more than
 * max), with *why saying which. */
int unzstd(const void *data, size_t len, size_t max, struct strbuf *out, const char **why);

/* The file at path, read whole into out (appended): decompressed when it
 * starts with zstd's magic, else taken as it is when plain_ok (a record
 * written uncompressed) and refused when not. At most max bytes of text;
 * a plain file over max is not read. 0, or -errno with err saying what
 * (what the file should be, "a wait record"):
 *   "cannot read 'PATH': No such file or directory" (-ENOENT, -errno),
 *   "PATH: not WHAT (WHY)" (-EINVAL: not zstd, corrupt, cut short),
 *   "PATH: over N MiB: not read" / "PATH: not WHAT (it decompresses to
 *   more than ...)" (-EFBIG). */
int read_maybe_zstd(const char *path, const char *what, size_t max, bool plain_ok, struct strbuf *out,
		    struct strbuf *err);

#endif
