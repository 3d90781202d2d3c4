/*
 * What the three parts of the stall record's code share (stallrecord.c,
 * the record in memory and loading; stallrecord-packed.c and
 * stallrecord-live.c, its two layouts) and nobody else calls.
 */
#ifndef HB_STALLRECORD_INTERNAL_H
#define HB_STALLRECORD_INTERNAL_H

#include <stddef.h>

#include "formats/stallrecord.h"
#include "base/util.h"

/* Appends a string the record owns (str[0], the empty string, first). */
void sr_add_str(struct stallrec *r, char *s);
/* Grows every column to hold rows rows. */
void sr_reserve_rows(struct stallrec *r, size_t rows);
/* Splits the header text's columns and encodings lines off into r. */
int sr_parse_header(struct stallrec *r, const char *text, struct strbuf *err);
/* A live record's bytes (mapped) into *out: 0 or -EINVAL, why in err. */
int sr_load_live(const char *path, const unsigned char *data, size_t len, struct stallrec *out,
		 struct strbuf *err);

#endif
