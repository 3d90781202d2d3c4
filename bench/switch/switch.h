/*
 * Switches: harness-side toggles that runs of one batch are compared by
 * (the stall recorder on or off, a waker, the game pinned to a CPU). A
 * batch names them in tokens: "-" for none, or NAME=VALUE terms joined by
 * '+' ("STALLS=1+STALLS_MS=5", "WAKER=10+WAKER_MODE=kick"). The first term
 * of each switch is the switch itself; its parameters are terms named
 * after it (STALLS_MS belongs to STALLS).
 *
 * Each switch is a struct switch_def in a file of its own, listed once in
 * switch.c's registry. The runner knows none of them: it calls the hooks
 * of whatever a token turned on, in the order the token names them,
 *
 *   prepare   before the game starts: its environment, its CPUs
 *   start     just before the first pass: what runs beside the game
 *   pass      each time a pass of the game is launched (its pid)
 *   finish    after the game and the helpers are stopped: what they left,
 *             into bench.txt; may mark the run invalid
 *
 * and stops every helper a switch started through switch_ctx_start_helper().
 * Observers that run with every run (the sensor sampler) are switches
 * that are on by default: a token turns them off with NAME=0.
 */
#ifndef HB_SWITCH_H
#define HB_SWITCH_H

#include <sched.h>
#include <stdio.h>
#include <stdbool.h>
#include <sys/types.h>

#include "text/argv.h"
#include "runner/footprint.h"
#include "runner/gameuser.h"
#include "text/kvfile.h"
#include "base/util.h"

#define SWITCH_MAX_PARAMS 8
#define SWITCH_MAX_ON 16

struct switch_on;
struct switch_ctx;
struct thaw_journal;
struct switch_set;

struct switch_param {
	const char *name;           /* "STALLS_MS" */
	const char *default_value;  /* NULL: none */
	const char *help;
	/* 0, or -EINVAL with the reason in err */
	int (*check)(const char *value, struct strbuf *err);
};

struct switch_def {
	const char *name;           /* "STALLS": also the term that sets it */
	const char *help;           /* one line for --help */
	const char *default_value;  /* non-NULL: on in every run unless a token sets it */
	const char *program;        /* the helper program it starts (checked before a batch); NULL: none */
	const char *off_value;      /* the value that turns it off ("0"); NULL: none */
	int (*check)(const char *value, struct strbuf *err);
	/* Optional: whether a batch's tokens may go together (GAMEPREFETCH
	 * refuses learn beside fetch). 0, or -EINVAL with err. */
	int (*check_tokens)(const struct switch_set *sets, size_t n, struct strbuf *err);
	const struct switch_param params[SWITCH_MAX_PARAMS];
	/* The short label of this setting in run names ("rec10"). An on-by-
	 * default switch at its default adds nothing to the name. */
	void (*label)(const struct switch_on *on, struct strbuf *out);
	int (*prepare)(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err);
	int (*start)(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err);
	void (*pass)(const struct switch_on *on, struct switch_ctx *ctx, pid_t game_pid);
	void (*finish)(const struct switch_on *on, struct switch_ctx *ctx);
	/* Optional: the setting changed while the game plays (a flip run,
	 * docs/metrics.md "Flip"): on is the side's setting of this switch
	 * (NULL: off). Called from the runner's loop; its return is the
	 * moment the change was made, so it must not wait. 0, or -errno with
	 * err (the switch failed: its pair does not count). */
	int (*flip)(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err);
	/* How long a flip takes to act once made, ms (frames this long after
	 * a switch count for neither side, at least). */
	double flip_act_ms;
	/* Optional: whether two settings of it can be flipped between (one
	 * knob, not two). 0, or -EINVAL with err. */
	int (*flip_check)(const struct switch_on *a, const struct switch_on *b, struct strbuf *err);
	/* Its flip pauses and resumes what start began (a helper beside the
	 * game): a flip run starts it with the side that has it on, and the
	 * two sides must be on and off. */
	bool flip_pauses;
	/* It changes a setting of the machine, journaled first: the batch
	 * holds the thaw journal for it even when not quieting. */
	bool journals;
};

/* One switch as a token sets it. */
struct switch_on {
	const struct switch_def *def;
	const char *value;
	const char *params[SWITCH_MAX_PARAMS];  /* by def->params index; default or NULL */
	bool explicit;                          /* named in the token (not a default) */
	bool params_explicit;                   /* a parameter was named in the token */
};

/* What a token turns on: every named switch, then every default one. */
struct switch_set {
	char *token;            /* as given, "-" for none */
	char *label;            /* "rec10+wkkick10", "" for none */
	struct switch_on on[SWITCH_MAX_ON];
	size_t n;
	char *buf;              /* the token's terms (on[] points into it) */
};

/* A helper a switch started beside the game; the runner stops it. */
struct switch_helper {
	char *name;
	pid_t pid;
	int status;             /* wait status once it is gone */
	bool exited;
	double grace_s;         /* its time to finish after SIGTERM, when longer than the runner's */
	char *prog;             /* its program's name ("hitchbench-stallrec"), how its log lines start */
	char *log;              /* its stdout and stderr, or NULL */
	struct footprint fp;    /* its peak RSS and CPU, from wait4() (and VmHWM before it is stopped) */
};

/* What the runner offers the switches of one run. */
struct hb_frames_view;

struct switch_ctx {
	const char *run_dir;        /* the run directory being written */
	const char *stage_dir;      /* the run's private staging (tmpfs when possible) */
	const char *helper_dir;     /* where hitchbench's helper programs are */
	const struct game_user *user;
	/* what is being run: the recipe's name and the variant's ("base" for
	 * the recipe alone), for a switch that keeps something per recipe and
	 * variant between runs (SHADERCACHE=warm); may be NULL */
	const char *recipe_name, *variant_name;
	const char *display;
	const char *frames_path;    /* the frame file the hook writes (a helper's argument) */
	/* the runner's view of it: the game's file is read through it only,
	 * and written (slowdown_live) only where it is the same file (frames.h) */
	struct hb_frames_view *frames;
	char *const *game_argv;     /* the game's command line (NULL-terminated; may be NULL) */
	struct argv_list *game_env; /* the game's environment (prepare may add) */
	cpu_set_t *game_cpus;       /* the game's CPUs; prepare may restrict it */
	bool *pin_game;             /* set when game_cpus applies */
	pid_t game_pid;             /* the pass's process (its session's leader), 0 before the first */
	struct kvfile *bench;       /* the run's bench.txt */
	struct thaw_journal *journal; /* the batch's thaw journal (switches that journal); may be NULL */
	struct switch_helper helpers[SWITCH_MAX_ON * 2];
	size_t n_helpers;
	char *invalid;              /* why the run is invalid (first reason), or NULL */
	char *interfered;           /* someone used the machine: what (a summary), or NULL */
	struct strbuf notes;        /* lines for the user when the run ends ('\n' after each) */
};

/* Parses a token against the registry: unknown names, parameters without
 * their switch, repeated terms and bad values are refused (-EINVAL, the
 * reason in err). */
int switch_set_parse(const char *token, struct switch_set *set, struct strbuf *err);
void switch_set_release(struct switch_set *set);
/* Splits a list of tokens ("- STALLS=1 WAKER=10+WAKER_MODE=kick"), each
 * parsed; an empty list means "-". Refuses two tokens that set the same,
 * and tokens a switch's check_tokens refuses together. */
int switch_tokens_parse(const char *list, struct switch_set **sets, size_t *n, struct strbuf *err);
void switch_sets_free(struct switch_set *sets, size_t n);

/* The switch called name as set defines it, or NULL when it is off there. */
const struct switch_on *switch_set_find(const struct switch_set *set, const char *name);
/* The value of a parameter of on (by name), or NULL. */
const char *switch_param(const struct switch_on *on, const char *name);

/* Checks that the helper program of every switch the sets turn on (not
 * off) is in helper_dir. 0, or -ENOENT with what is missing in err. */
int switch_sets_ready(const struct switch_set *sets, size_t n, const char *helper_dir,
		      struct strbuf *err);

/* The registry's switches and their parameters, for --help. */
void switch_help(FILE *out);
/* The switches' names ("A, B, C"), or only those that can flip. */
void switch_names(struct strbuf *out, bool flip_only);

/* A flip run (docs/metrics.md "Flip"): one switch turned between two
 * settings while the game plays, in segments, from the window's start. */
struct flip_plan {
	const struct switch_on *a, *b;  /* the switch as each side sets it (NULL: off); the run
					 * itself is prepared with a (its switches are A's; for a
					 * switch that flips by pausing, with the side that has it
					 * on: switch_flip_plan() puts that into a) */
	const char *a_term, *b_term;    /* how flip.txt names them ("SLOWDOWN=0"; "-": off) */
	double segment_s;               /* a segment's length (a looping demo's: in presents, at
					 * the warm-up's rate) */
	double settle_s;                /* after a switch, frames this long count for neither side */
	bool by_time;                   /* segments in time even for a looping demo */
	uint64_t seed;                  /* the order of AB and BA pairs (segments in time) */
};
/* A switch applied later than this share of the settle time after it was
 * due spoils its pair. */
#define FLIP_LATE_OF_SETTLE 0.5
/* The defaults: segments of 0.5 s and 0.1 s of settle, from this VM's
 * measured noise (docs/metrics.md "Flip"). */
#define FLIP_SEGMENT_S_DEFAULT 0.5
#define FLIP_SETTLE_S_DEFAULT 0.1

/* A flip plan from the two sides: p's segment_s, settle_s and by_time
 * set by the caller, the rest filled; a's label becomes both sides'
 * ("slow0~slow3": a flip run's fps mixes them, so it never joins A's runs
 * in a report or the database). 0, or -EINVAL with the reason in err
 * (switch_flip_pair()'s, or a settle that leaves too little). */
int switch_flip_plan(struct switch_set *a, const struct switch_set *b, struct flip_plan *p,
		     struct strbuf *err);

/* Whether a switch the sets turn on journals a setting (def->journals). */
bool switch_sets_journal(const struct switch_set *sets, size_t n);

/* A flip run's two sides (docs/metrics.md "Flip"): a and b must differ in
 * one switch alone, one with a flip hook; *on_a and *on_b are its settings
 * in each (NULL: off there). 0, or -EINVAL with the reason in err. */
int switch_flip_pair(const struct switch_set *a, const struct switch_set *b, const struct switch_on **on_a,
		     const struct switch_on **on_b, struct strbuf *err);

/* How long a helper has to say it is ready. */
#define SWITCH_READY_WAIT_S 5.0

/* What a switch (or the recipe's input) starts beside the game. */
struct switch_helper_start {
	const char *name;       /* its name among the run's helpers ("waker"); its ready
				 * file is STAGE_DIR/NAME.ready */
	const char *log_name;   /* its stdout and stderr: RUN_DIR/LOG_NAME; NULL: /dev/null */
	const char *ready_log;  /* the log a "not ready" error points to; NULL: log_name */
	bool as_game_user;      /* the game user's process, else root's */
	bool wait_ready;        /* pass "--ready PATH" (appended to argv, so argv must not
				 * end in "--" and positional words) and wait for PATH */
	double grace_s;         /* its time to finish after SIGTERM; 0: the runner's */
};

/* Starts argv (a helper program, found in ctx->helper_dir when argv[0] has
 * no '/') beside the game as hs says, killed with the runner, and with
 * wait_ready waits up to SWITCH_READY_WAIT_S for its ready file. 0, or
 * -errno with the reason in err: it could not start, -ECHILD it exited
 * before it was ready, -ETIMEDOUT it was not ready in time (err names
 * RUN_DIR/LOG). */
int switch_ctx_start_helper(struct switch_ctx *ctx, const struct switch_helper_start *hs,
			    const char *const *argv, struct strbuf *err);
/* Marks the run invalid (the first reason stays). */
void switch_ctx_invalid(struct switch_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Marks the run interfered with: someone used the machine (the first
 * summary stays). An interfered run is invalid too. */
void switch_ctx_interfered(struct switch_ctx *ctx, const char *summary);
/* Tells the helper called name, if running, of a pass's pid:
 * sigqueue(SIGUSR1) with the pid as its value (common/system/helperproc.h). */
void switch_ctx_send_pid(struct switch_ctx *ctx, const char *name, pid_t pid);
/* Pauses (pause) or resumes the helper called name (helperproc.h's
 * SIGUSR2): a flip hook's work for a switch that flips by pausing. 0, or
 * -errno with err (no such helper, or it is gone). */
int switch_ctx_pause_helper(struct switch_ctx *ctx, const char *name, bool pause, struct strbuf *err);
/* Whether on turns its switch on (not NULL, not its off value). */
bool switch_on_is_on(const struct switch_on *on);
/* Sets "NAME=VALUE" in the game's environment, replacing an entry of the
 * same name (prepare hooks: GAMEENV, SLOWDOWN). */
void switch_ctx_setenv(struct switch_ctx *ctx, const char *name_value);
/* A line the runner shows the user when the run ends ("stallrec: ..."). */
void switch_ctx_note(struct switch_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A helper's tab-separated record (common/formats/tabrecord.h) into
 * bench.txt's key: RUN_DIR/file as the helper packed it, or the live one
 * it left in the staging directory (STAGE_DIR/live_name: killed before it
 * could pack) packed here, with trailer stop= saying so; else "none
 * (none_why)". The live file is removed. */
void switch_keep_tabrecord(struct switch_ctx *ctx, const char *key, const char *file, const char *live_name,
			   const char *none_why);
/* The last line of a helper's log (at log_path) starting with prefix
 * ("stallrec: "), without it: what the helper said it cost. NULL when it
 * said nothing so. The caller frees it. */
char *switch_log_said(const char *log_path, const char *prefix);
/* The helper called name, or NULL. */
struct switch_helper *switch_ctx_helper(struct switch_ctx *ctx, const char *name);
/* The runner reaped pid (wait4's status and rusage): true if it was a
 * helper (its status and footprint are kept). */
bool switch_ctx_reaped(struct switch_ctx *ctx, pid_t pid, int status, const struct rusage *ru);
/* Stops every helper still running: SIGTERM, up to grace_s, SIGKILL; reaps
 * them (each one's VmHWM read before the first SIGTERM, its rusage when
 * reaped: h->fp). Records each one's end in bench ("helper.NAME=exit 0"). */
void switch_ctx_stop_helpers(struct switch_ctx *ctx, double grace_s);
void switch_ctx_release(struct switch_ctx *ctx);

/* Checkers shared by switch definitions. */
int switch_check_bool(const char *value, struct strbuf *err);      /* 0 or 1 */
int switch_check_ms(const char *value, struct strbuf *err);        /* 1..60000 */
/* A wakeup period in ms, fractions allowed (WAKER, PROBE_MS). */
int switch_check_period(const char *value, struct strbuf *err);
/* A CPU list ("0", "1-3", "0,2"): each CPU online (under the root's
 * sys/devices/system/cpu/online). */
int switch_check_cpus(const char *value, struct strbuf *err);

#endif
