/*
 * What thaw.c and thaw-journal.c share beyond thaw.h: not for other
 * callers.
 */
#ifndef HB_THAW_INTERNAL_H
#define HB_THAW_INTERNAL_H

#include "quiet/thaw.h"

/* Appends an entry that takes over key and value (both allocated), growing
 * *e (of *alloc slots) as needed. */
void thaw_entry_push(struct thaw_entry **e, size_t *n, size_t *alloc, enum thaw_kind kind,
		     char *key, char *value);

#endif
