/*
 * SHA256SUMS: the checksums of a directory's files, in sha256sum's own
 * format (so `sha256sum -c SHA256SUMS` checks them too), written last into
 * a run directory and a batch directory so that a copy (a pull from a
 * target, a backup) can be told whole or not (docs/formats.md, "Checksums").
 *
 * A line is `HEX  PATH`: 64 hex digits, two spaces (or a space and `*`,
 * sha256sum's binary mode), the path relative to the directory. A path
 * holding a backslash or a line break is written as sha256sum writes it: the
 * line starts with `\`, and the path has `\\` and `\n` for them. Lines are
 * sorted by path (bytes). A listed `SUB/SHA256SUMS` is a directory with its
 * own list, checked in its turn (a batch lists each run's).
 */
#ifndef HB_SHA256SUMS_H
#define HB_SHA256SUMS_H

#include "base/hash.h"
#include "base/util.h"

#define SHA256SUMS_NAME "SHA256SUMS"
/* The longest path a list may hold (bytes, unescaped). */
#define SHA256SUMS_PATH_MAX 4096

struct sha256sums_entry {
	char hex[HB_SHA256_HEX_LEN + 1];    /* lowercase */
	char *path;
	int line;                           /* in the file it was read from (from 1), or 0 */
};

struct sha256sums {
	struct sha256sums_entry *v;
	size_t n, alloc;
};

void sha256sums_release(struct sha256sums *s);
/* The entries as the file's text, in their order, appended to out. */
void sha256sums_format(const struct sha256sums *s, struct strbuf *out);
/*
 * Parses a list's text (len bytes; a NUL byte is refused, the last line
 * may lack its line break). Refused, with "LINE: what" in err and -EINVAL:
 * a line that is not `HEX  PATH` or `HEX *PATH`, a bad escape, a path that
 * is empty, absolute, longer than SHA256SUMS_PATH_MAX, has an empty, `.`
 * or `..` component, or is listed twice. out is sorted; on failure it is
 * left empty.
 */
int sha256sums_parse(const char *text, size_t len, struct sha256sums *out, struct strbuf *err);

/*
 * Writes dir/SHA256SUMS (atomically, 0644): the files named in only
 * (paths relative to dir, NULL-terminated), or with only NULL every
 * regular file under dir, subdirectories included, symlinks neither
 * followed nor listed, dir/SHA256SUMS itself left out. 0, or -errno
 * (-EINVAL: a name in only is not a regular file, or not a path a list can
 * hold).
 */
int sha256sums_write(const char *dir, const char *const *only);
/*
 * Checks dir against its SHA256SUMS: 0 when every listed file is there
 * with its checksum and every regular file under dir is listed (or is
 * under a listed SUB/SHA256SUMS, which is checked the same way); 1 at the
 * first problem, with why = "RELPATH: missing" (SHA256SUMS itself too),
 * "RELPATH: checksum mismatch", "RELPATH: not a regular file" or
 * "RELPATH: not listed" (listed files in the list's order first, then the
 * files not listed in path order); -EINVAL with why = "RELPATH:LINE: what"
 * for a list that does not parse; another -errno with why for what could
 * not be read. RELPATH is relative to dir. Symlinks are not followed and
 * need not be listed.
 */
int sha256sums_verify(const char *dir, struct strbuf *err);

#endif
