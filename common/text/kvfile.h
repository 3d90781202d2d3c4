/*
 * key=value files: the run directory's bench.txt and result.txt
 * (docs/formats.md). One pair a line, '#' starts a comment line, keys are
 * [A-Za-z0-9_.-]+, values run to the end of the line with '\n', '\r' and
 * '\\' escaped. Order is kept; a key may repeat only where a format says so.
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
};

void kvfile_init(struct kvfile *kf);
void kvfile_release(struct kvfile *kf);
/* Appends a pair (copies both). */
void kvfile_add(struct kvfile *kf, const char *key, const char *value);
void kvfile_addf(struct kvfile *kf, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Replaces the first pair with this key, or appends. */
void kvfile_set(struct kvfile *kf, const char *key, const char *value);
/* The value of the first pair with this key, or NULL. */
const char *kvfile_get(const struct kvfile *kf, const char *key);
bool kvfile_valid_key(const char *key);

/* Parses size bytes of text. 0, or -EINVAL with *err_line set to the bad
 * line and *why (either may be NULL) to what is wrong with it: "not a
 * key=value line", or "NUL byte" (refused, never taken as the end). Pairs
 * before the bad line stay in kf. */
int kvfile_parse_len(struct kvfile *kf, const char *text, size_t size, int *err_line,
		     const char **why);
/* The same on a NUL-terminated string. */
int kvfile_parse(struct kvfile *kf, const char *text, int *err_line);
/* Reads a file (a regular file only: read_file()). 0, -errno, or -EINVAL
 * with *err_line. */
int kvfile_read(struct kvfile *kf, const char *path, int *err_line);
/* The same with the message in err: "cannot read 'PATH': ..." or
 * "PATH:LINE: NUL byte" / "PATH:LINE: not a key=value line". */
int kvfile_load(struct kvfile *kf, const char *path, struct strbuf *err);
/* Serialises into a new string (caller frees). */
char *kvfile_format(const struct kvfile *kf);
/* Writes atomically (tmp + fsync + rename). 0 or -errno. */
int kvfile_write(const struct kvfile *kf, const char *path);

#endif
