/*
 * The regular expressions hitchbench takes from files (a recipe's
 * end_line, start_line and [input] wait_line, a game's reload rule and
 * player actions in gamedb/) are POSIX extended, compiled by the C
 * library's regcomp(). glibc expands a bounded repetition by copying what
 * it repeats, and recurses once per nesting level, so a pattern of a few
 * bytes, "(((a{1,255}){1,255}){1,255})", takes seconds and gigabytes to
 * compile, or a deep nest of parentheses overflows the stack. Patterns are
 * therefore checked before regcomp() sees them, and refused past:
 *
 *   HB_REGEX_MAX_LEN     bytes in the pattern
 *   HB_REGEX_MAX_DEPTH   parentheses open at once
 *   HB_REGEX_MAX_REPEAT  the largest bound of a {m,n} repetition (POSIX's
 *                        smallest RE_DUP_MAX)
 *   HB_REGEX_MAX_COST    the pattern's size once every repetition that
 *                        regcomp() copies out is: (ab){3} costs 6, and a+
 *                        (which becomes aa*) 2, so a++++ 16
 *
 * Refused whatever their size: back-references (\1 .. \9), which make
 * matching exponential, and a repetition of a repetition ("a*+", "a+*",
 * "a{2}?"), whose meaning POSIX leaves undefined and whose empty loops
 * glibc's regcomp() takes exponential time to close. docs/formats.md says the same for users.
 */
#ifndef HB_REGEXLIMIT_H
#define HB_REGEXLIMIT_H

#include <regex.h>

struct strbuf;

#define HB_REGEX_MAX_LEN 512
#define HB_REGEX_MAX_DEPTH 16
#define HB_REGEX_MAX_REPEAT 255
#define HB_REGEX_MAX_COST 4096

/* 0 when pattern is within the limits; else -EINVAL, with why (a static
 * string) saying which limit. */
int regex_check(const char *pattern, const char **why);
/* regex_check(), then regcomp(REG_EXTENDED | REG_NOSUB). 0, or -EINVAL
 * with the limit or regcomp's reason in err. re needs regfree() only
 * after 0. */
int regex_compile(regex_t *re, const char *pattern, struct strbuf *err);

#endif
