/*
 * key=value files: the run directory's bench.txt and result.txt
 * (docs/formats.md). One pair a line, '#' starts a comment line, keys are
 * [A-Za-z0-9_.-]+, values run to the end of the line with '\n', '\r' and
 * '\\' escaped. Order is kept; a key may repeat only where a format says so:
 * the reader of such a format names the keys that repeat (kf->repeats)
 * before it parses, and any other key given twice is refused on read and on
 * write. A key is checked on write too: adding an invalid one is a
 * programming error (abort); a caller whose key comes from outside data
 * (a process name, a switch's name) checks it with kvfile_valid_key() first.
 */
#ifndef HB_KVFILE_H
#define HB_KVFILE_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

struct kv {
	char *key;
	char *value;
	int line;
};

struct kvfile {
	struct kv *items;
	size_t n, alloc;
	/* the keys that may appear more than once, NULL-terminated (NULL:
	 * none); kept by kvfile_release() */
	const char *const *repeats;
	/* the last parse's complaint, for *why */
	char why[128];
};

/* The keys of bench.txt that repeat (docs/formats.md): `env`. */
extern const char *const kvfile_bench_repeats[];

void kvfile_init(struct kvfile *kf);
/* kvfile_init() with the keys that may repeat (kf->repeats). */
void kvfile_init_repeats(struct kvfile *kf, const char *const *repeats);
void kvfile_release(struct kvfile *kf);
/* Appends a pair (copies both). An invalid key aborts (see above). */
void kvfile_add(struct kvfile *kf, const char *key, const char *value);
void kvfile_addf(struct kvfile *kf, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Replaces the first pair with this key, or appends (an invalid key
 * aborts). */
void kvfile_set(struct kvfile *kf, const char *key, const char *value);
/* The value of the first pair with this key, or NULL. */
const char *kvfile_get(const struct kvfile *kf, const char *key);
bool kvfile_valid_key(const char *key);

/* Parses size bytes of text. 0, or -EINVAL with *err_line set to the bad
 * line and *why (either may be NULL) to what is wrong with it: "not a
 * key=value line", "NUL byte" (refused, never taken as the end), or "key
 * 'K' repeats line N" (a key kf->repeats does not name, given again; *why
 * then points into kf, valid until its next parse). Pairs before the bad
 * line stay in kf. */
int kvfile_parse_len(struct kvfile *kf, const char *text, size_t size, int *err_line,
		     const char **why);
/* The same on a NUL-terminated string. */
int kvfile_parse(struct kvfile *kf, const char *text, int *err_line);
/* Reads a file (a regular file only: read_file()). 0, -errno, or -EINVAL
 * with *err_line. */
int kvfile_read(struct kvfile *kf, const char *path, int *err_line);
/* The same with the message in err: "cannot read 'PATH': ..." or
 * "PATH:LINE: WHY" (as kvfile_parse_len() says it). */
int kvfile_load(struct kvfile *kf, const char *path, struct strbuf *err);
/* Serialises into a new string (caller frees). */
char *kvfile_format(const struct kvfile *kf);
/* Writes atomically (tmp + fsync + rename). 0 or -errno: -EINVAL, nothing
 * written, when a key kf->repeats does not name is there twice (the file
 * would not read back). */
int kvfile_write(const struct kvfile *kf, const char *path);

#endif
