/*
 * The pictures of a CPU profile, as plain SVG: a flame graph of one side
 * of the call-path tree (proftree.h), a differential flame graph of B
 * against A, and a FlameScope-like map of where in each frame the samples
 * fell. Each is one <svg> element with no script, no id, nothing fetched
 * and generic fonts, so it opens in a browser as a file and sits inline
 * in an HTML page as it is (several on one page take nothing from each
 * other). Text from the profile (names, titles) is escaped.
 *
 * Every picture opens with the caller's title and a subtitle saying how
 * it was computed; every box has a <title> tooltip. docs/profile.md
 * ("Pictures") says what each shows, the palette and the binning.
 *
 * Each function returns 0, -EINVAL for bad arguments (nothing written),
 * or -errno of the stream (-EIO when ferror is set without an errno).
 */
#ifndef HB_PROFSVG_H
#define HB_PROFSVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/proftree.h"

/* The categories' fill colours, "#rrggbb": category index i is
 * prof_svg_palette[i % PROF_SVG_PALETTE]; the same in every picture. */
#define PROF_SVG_PALETTE 8
extern const char *const prof_svg_palette[PROF_SVG_PALETTE];

/* A flame graph of side (0: A, 1: B): the root ("all") at the bottom in
 * grey, each node's children above it sorted by name, a box's width its
 * total over the root's; a node under 0.1% of the root's total is left
 * out with all above it. Boxes are coloured by their category
 * (t->category[]), with a legend of the categories drawn. Tooltip:
 * "NAME: N samples, X% (self Y%)", shares of the side's total. */
int prof_svg_flame(FILE *out, const struct prof_tree *t, int side, const char *title,
		   const char *subtitle);

/* A differential flame graph: the shape is side 1's (B), as
 * prof_svg_flame() draws it; a box's colour is how its share of its
 * side's samples changed from A to B: red grew, blue shrank, white
 * unchanged, full colour at the largest change of a box drawn. Tooltip:
 * the flame graph's, then "; A X% -> B Y%, +Z pp". Paths B does not have
 * (samples in A only) cannot have a box: the largest of them (each the
 * first node of its path missing in B) are listed under the picture,
 * "Gone in B", with their share of A and their path. */
int prof_svg_diff(FILE *out, const struct prof_tree *t, const char *title, const char *subtitle);

/* A run's samples placed in its frames, for prof_svg_frames(). Arrays of
 * n_frames (start_ns, end_ns, stall: NULL when not known) and of
 * n_samples (frame, offset_ns, category: all three needed when
 * n_samples > 0). */
struct prof_frames_pic {
	size_t n_frames;
	const uint64_t *start_ns, *end_ns;      /* a frame's span (CLOCK_MONOTONIC) */
	const bool *stall;                      /* the frame is a stall */
	size_t n_samples;
	const uint32_t *frame;                  /* the sample's frame, < n_frames */
	const uint64_t *offset_ns;              /* the sample's time after its frame's start */
	const uint8_t *category;                /* < n_category */
	const char *const *category_names;
	size_t n_category;
	/* The y axis' top: 0 for the longest frame (end - start), or the
	 * latest sample when frames have no span. Rounded up to a whole cell;
	 * samples later than it are not drawn (a note says how many). */
	uint64_t max_offset_ns;
};

/* Frames along x (in columns of PROF_SVG_FRAMES_COLS at most: more frames
 * are binned, consecutive frames to a column), time into the frame along
 * y (0 at the bottom, in rows of a round duration, PROF_SVG_FRAMES_ROWS at
 * most). A cell holding samples is filled with the colour of its most
 * common category (the flame graph's palette), its opacity growing with
 * its count (0.4 + 0.6 x sqrt(count / the fullest cell's): one sample
 * stays visible beside thousands); tooltip
 * "frames F-L, A-B ms: N samples, most CATEGORY (M)". A stall frame puts
 * a red tick under its column; when frames have spans, a grey line shows
 * the longest frame of each column. */
#define PROF_SVG_FRAMES_COLS 400
#define PROF_SVG_FRAMES_ROWS 50
int prof_svg_frames(FILE *out, const struct prof_frames_pic *p, const char *title, const char *subtitle);

#endif
