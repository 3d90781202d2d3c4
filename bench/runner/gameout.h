/*
 * The game's output: a pseudo-terminal (so stdio in the game is
 * line-buffered and every line arrives when it is written), each line
 * written to game.log stamped with the CLOCK_MONOTONIC time it was read,
 * and matched against the recipe's start_line and end_line. Format:
 * docs/formats.md.
 */
#ifndef HB_GAMEOUT_H
#define HB_GAMEOUT_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"

#define GAMEOUT_MAX_LINE 65536 /* a longer line is cut into lines of this size */

/* A regex the lines are matched against, until one matches. */
struct line_match {
	regex_t re;
	bool have_re;
	bool matched;        /* a line matched re ... */
	uint64_t matched_ns; /* ... read at this time */
};

struct game_output {
	int master;          /* the runner reads here (non-blocking) */
	int slave;           /* the game's stdout and stderr */
	int log_fd;          /* game.log */
	struct strbuf line;  /* a line not ended yet */
	struct line_match start; /* the recipe's start_line */
	struct line_match end;   /* the recipe's end_line */
	int write_error;     /* the first errno writing game.log, 0 if none */
};

/* Opens the terminal and creates log_path; start_line and end_line may be
 * NULL. 0 or -errno (-EINVAL for a regex that does not compile). */
int game_output_open(struct game_output *o, const char *log_path, const char *start_line,
		     const char *end_line);
/* Reads what is there; with flush, a last line without a newline too. */
void game_output_drain(struct game_output *o, bool flush);
void game_output_close(struct game_output *o);

#endif
