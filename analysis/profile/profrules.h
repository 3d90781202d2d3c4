/*
 * What a CPU sample was doing: the categories of gamedb/cpu-categories.ini
 * (its rules and their order are documented there and in docs/profile.md,
 * "Categories"), read once and applied to a stack's frames.
 */
#ifndef HB_PROFRULES_H
#define HB_PROFRULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

#define PROF_MAX_CATEGORIES 32
#define PROF_RULES_FILE "cpu-categories.ini"

/* One frame as the rules see it. */
struct prof_frame_desc {
	const char *library;            /* file name ("libc.so.6"), "kernel", "[jit]" or "[unknown]" */
	const char *function;           /* NULL: not named */
	bool kernel, jit;
};

struct prof_category {
	char *name;
	char **function, **library;     /* globs */
	size_t n_function, n_library;
	bool jit, kernel, pass;
};

struct prof_rules {
	struct prof_category cat[PROF_MAX_CATEGORIES];
	size_t n;                       /* the last one is always "other" */
	const char *names[PROF_MAX_CATEGORIES];
	char *path;
};

/* for the tests (the program reads the file: prof_rules_find): the rules
 * from text. 0, or -EINVAL with "PATH:LINE: what" in err. */
int prof_rules_parse(const char *text, size_t len, const char *path, struct prof_rules *r, struct strbuf *err);
/* The rules of the first gamedb directory (NULL-terminated list) that has
 * cpu-categories.ini. 0, -ENOENT (none has it, said in err), or what
 * prof_rules_load returns. */
int prof_rules_find(const char *const *gamedb_dirs, struct prof_rules *r, struct strbuf *err);
void prof_rules_release(struct prof_rules *r);

/* The category of one frame (index into r->cat; "other" when nothing
 * matches). */
uint8_t prof_rules_frame(const struct prof_rules *r, const struct prof_frame_desc *f);
/* The category of a stack, from its frames' categories, innermost first:
 * the first that does not pass, else the innermost's. */
uint8_t prof_rules_stack(const struct prof_rules *r, const uint8_t *cats, size_t n);

#endif
