/*
 * "Did you mean": the names closest to a mistyped one. The distance is
 * the optimal string alignment distance (Levenshtein's insertions,
 * deletions and substitutions, plus the swap of two neighbouring
 * characters, each costing 1), ignoring case. A name is suggested when it
 * is at most a third of the typed word's length away (at least 1, at most
 * 3), or when the typed word is a prefix of it of at least 3 characters;
 * of those, only the ones at the smallest distance are given.
 */
#ifndef HB_SUGGEST_H
#define HB_SUGGEST_H

#include <stddef.h>

#include "base/util.h"

/* The optimal string alignment distance of a and b, case ignored. */
size_t suggest_distance(const char *a, const char *b);

/* Appends to out " did you mean 'x'?" or " did you mean one of 'x', 'y'?"
 * (at most 4 names, in the order of names) when some of the n names are
 * close to word; appends nothing otherwise. Returns how many were given. */
size_t suggest_append(struct strbuf *out, const char *word, const char *const *names, size_t n);

/* " did you mean ...?" for a table of n structs of stride bytes whose name
 * field (a const char *) is at first, as suggest_append gives it, else
 * otherwise (never NULL; the caller frees it):
 * suggest_or(word, &cmds[0].name, ARRAY_SIZE(cmds), sizeof(cmds[0]), ""). */
char *suggest_or(const char *word, const char *const *first, size_t n, size_t stride,
		 const char *otherwise);

#endif
