/*
 * The runner's own family (runner.c, runner-tree.c, runner-loop.c,
 * runner-rundir.c): the state of one run and what the parts call of each
 * other. Nothing outside bench/runner/runner*.c includes it; runner.h is the
 * runner's interface.
 *
 *   runner.c         one run from start to finish: X, the switches, the
 *                    input helper, the order of everything
 *   runner-tree.c    the game's processes: prepare commands, each pass's
 *                    launch and end, its process tree stopped; children and
 *                    signals reaped
 *   runner-loop.c    the poll loop over a run: the first frame, the window,
 *                    how the run ends, the host noise at its edges
 *   runner-rundir.c  the run directory: its name, bench.txt's provenance
 *                    and reload rule, the frames, HOME and result.txt kept
 *   runner-flip.c    a flip run's schedule and switches (flip.txt)
 */
#ifndef HB_RUNNER_INTERNAL_H
#define HB_RUNNER_INTERNAL_H

#include "runner/runner.h"
#include "runner/footprint.h"
#include "formats/frames.h"
#include "runner/gameout.h"
#include "runner/proctree.h"
#include "runner/runnoise.h"
#include "runner/stage.h"
#include "runner/xserver.h"
#include "formats/flipfile.h"

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* One run's state, from runner_run() to its release. */
struct runner {
	const struct run_request *req;
	struct kvfile bench;
	char *tmp_dir, *final_dir;
	struct stage stage;
	struct game_output out;
	struct hb_frames_view frames;
	struct xserver x;
	const char *display;
	struct argv_list cmd, env;
	struct switch_ctx sw;
	struct run_noise noise;     /* host noise at the window's start and end */
	cpu_set_t game_cpus;
	bool pin_game;
	pid_t game_pid;
	int pass;
	uint64_t t_launch, count_at_launch;
	bool have_first;            /* the first frame was seen */
	bool have_window;           /* the window is placed (first frame, or start_line) */
	uint64_t first_frame;
	uint64_t window_start, window_end;
	uint64_t count_at_window_end;   /* presents when the loop first saw the window end; 0: not yet */
	bool pass_running, game_exited, x_died, interrupted;
	int interrupts;     /* a second one means: no grace, stop everything now */
	int game_status;
	char *status, *detail, *end_reason;
	char *noise_brief;          /* noise_figures_brief() of the window, or NULL */
	struct footprint game_fp;   /* every pass and orphan of the game, as reaped */
	struct {                    /* a flip run's switching (runner-flip.c) */
		bool on, write_failed;
		bool left;          /* what a killed runner leaves is written */
		int fd;             /* flip.txt, appended to */
		struct flip_record rec;
		char side;          /* the side in force */
		int seg;            /* the segment last switched to (-1: none in this pass) */
		uint64_t pass_slot0; /* the frame count at this pass's launch */
		size_t switches, late, failed;
	} flip;
	struct {                    /* a relay's turns (runner-relay.c) */
		bool on;            /* the grid is followed (from the barrier to the window's end) */
		bool write_failed;  /* an append to relay.txt failed (said once) */
		bool stopped;       /* the game is stopped now */
		int fd;             /* relay.txt, appended to */
		struct relay_record rec;
		size_t stops, resumes, late;
		uint64_t stopped_ns, stop_since; /* time stopped in the window; since when */
	} relay;
};

/* runner.c */
/* The run's status and why, the first reason only (later ones are
 * consequences). */
void runner_set_status(struct runner *rn, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The run's name: "variant@label", or the variant's. */
const char *runner_label(const struct runner *rn);
/* Tells the caller how the run goes (the runner itself never prints). */
void runner_progress(const struct runner *rn, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The game's environment into rn->env, with or without the frame hook. */
void runner_build_env(struct runner *rn, bool with_hook);
/* Presents the frame file holds. */
uint64_t runner_frames(struct runner *rn);

/* runner-tree.c */
/* Reaps children and takes the signals that came (SIGINT, SIGTERM, SIGHUP:
 * interrupted). */
void runner_handle_signals(struct runner *rn);
/* The game's output into game.log (flush: what is left too). */
void runner_drain_output(struct runner *rn, bool flush);
/* The processes of the game's session sid and the orphans the runner
 * inherited, X and the helpers left out, into out; how many. */
size_t runner_scan_tree(struct runner *rn, pid_t sid, struct pid_list *out);
/* The recipe's prepare commands, as the game user, into prepare.log. */
int runner_prepare_commands(struct runner *rn, struct strbuf *err);
/* Launches the next pass of the game (bench.txt pass.N.start_ns). */
int runner_launch_pass(struct runner *rn, struct strbuf *err);
/* Stops the pass's whole process tree, its end into bench.txt. */
void runner_end_pass(struct runner *rn, pid_t sid);

/* runner-loop.c */
/* From the first pass's launch to the run's end (window full, exit, a
 * line, a failure, a signal); every pass stopped. 0, or -errno when a
 * pass could not be launched. */
int runner_main_loop(struct runner *rn, struct strbuf *err);

/* runner-flip.c (each does nothing when the run is not a flip run) */
/* flip.txt's schedule written (before the game starts). 0 or -errno with err. */
int runner_flip_begin(struct runner *rn, struct strbuf *err);
/* A pass was launched. */
void runner_flip_pass(struct runner *rn);
/* In the window: the segment's side applied when a new segment began. */
void runner_flip_tick(struct runner *rn, uint64_t now);
/* When the loop must look again (UINT64_MAX: no need). */
uint64_t runner_flip_next(struct runner *rn, uint64_t now);
/* bench.txt's flip.* keys; flip.txt closed. */
void runner_flip_end(struct runner *rn);

/* runner-relay.c (each does nothing when the run is not of a relay) */
/* The barrier with the partner, then relay.txt's header (and a duet's
 * CPUs): just before the game's helpers and the game start. 0, -EINTR, or
 * -errno with err. */
int runner_relay_begin(struct runner *rn, struct strbuf *err);
/* The game stopped or resumed as the grid says (after each launch and
 * each wakeup of the loop). */
void runner_relay_tick(struct runner *rn, uint64_t now);
/* When the loop must look again (UINT64_MAX: no need). */
uint64_t runner_relay_next(const struct runner *rn, uint64_t now);
/* The turns end: the game resumed (so that it can be stopped), bench.txt's
 * relay.* keys, relay.txt closed. */
void runner_relay_end(struct runner *rn);

/* runner-rundir.c */
/* A record file of the run directory that the runner appends to while the
 * game plays (flip.txt, relay.txt): created with its header. The fd
 * (O_APPEND), or -errno with err. */
int runner_record_create(struct runner *rn, const char *name, const struct strbuf *header, struct strbuf *err);
/* A line appended to it at once (one write: a runner killed later leaves
 * every line before); the first failure makes the run invalid (*failed). */
void runner_record_append(struct runner *rn, int fd, const char *name, bool *failed, const struct strbuf *line);
/* The run directory under its temporary name (rn->tmp_dir), its final
 * name in rn->final_dir. */
int runner_make_dir(struct runner *rn, time_t start, struct strbuf *err);
/* bench.txt's provenance: identity, switches, recipe, host, the run asked for. */
void runner_write_provenance(struct runner *rn, time_t start, uint64_t start_mono);
/* The reload rule resolved (recipe, gamedb, none) into bench.txt's
 * reload.*. 0, or -errno with err (a bad analysis.ini). */
int runner_write_reload_rule(struct runner *rn, struct strbuf *err);
/* Frames, HOME, the end keys, bench.txt and result.txt written, and the
 * directory renamed to its final name. */
int runner_finish_dir(struct runner *rn, struct strbuf *err);

#endif
