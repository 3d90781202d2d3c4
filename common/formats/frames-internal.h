/*
 * What frames.c (the file's format, its parsing and writing) and
 * frames-live.c (the live view) share and nobody else calls.
 */
#ifndef HB_FRAMES_INTERNAL_H
#define HB_FRAMES_INTERNAL_H

#include <stdbool.h>

#include "formats/frames.h"

void frames_header_bswap(struct hb_frames_header *h);
void frames_record_bswap(struct hb_frame_record *r);
/* Brings a header as read from a file into this machine's order; true
 * when its bytes were in the other order. */
bool frames_header_to_host(struct hb_frames_header *h);

#endif
