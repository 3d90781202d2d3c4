/*
 * Splitting a recipe's command line into words without a shell: blanks
 * separate words, '...' keeps everything literal, "..." keeps blanks and
 * takes \" \\ \$ escapes, a backslash outside quotes escapes the next
 * character. No expansion of any kind happens: a recipe's command runs
 * exactly as written.
 */
#ifndef HB_ARGV_H
#define HB_ARGV_H

#include <stddef.h>

struct argv_list {
	char **v;   /* NULL-terminated */
	size_t n, alloc;
};

void argv_init(struct argv_list *a);
void argv_release(struct argv_list *a);
void argv_push(struct argv_list *a, const char *word);
void argv_pushf(struct argv_list *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends the words of s. 0, or -EINVAL (an unclosed quote, a trailing
 * backslash) with *why set. */
int argv_split(struct argv_list *a, const char *s, const char **why);
/* One line a person could paste into a shell (words quoted when needed). */
char *argv_join(char *const *v);

#endif
