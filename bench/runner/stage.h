/*
 * The game's private space for one run, in /dev/shm (tmpfs: the frame
 * file's pages are never written back to a disk during the run), owned by
 * the game user and mode 0700: a fresh HOME seeded with the recipe's files,
 * TMPDIR, XDG_RUNTIME_DIR, the frame file, the X authority file, and copies of the frame
 * hook and the helpers (the game user may not reach the checkout, say a
 * 0700 /root). Removed whole when the run ends.
 */
#ifndef HB_STAGE_H
#define HB_STAGE_H

#include <stdbool.h>

#include "text/argv.h"
#include "runner/gameuser.h"
#include "text/kvfile.h"
#include "recipe/recipe.h"
#include "base/util.h"

struct stage {
	char *dir;      /* /dev/shm/hitchbench-XXXXXX */
	char *home;     /* dir/home: the game's HOME */
	char *frames;   /* dir/frames.bin */
	char *xauth;    /* dir/Xauthority, or NULL (an existing display without a cookie) */
	char *hook;     /* dir/hitchbench-hook.so */
	char *vk_manifest;        /* the Vulkan layer's manifest written, or NULL */
	bool vk_manifest_outside; /* it is outside HOME (the recipe's XDG_DATA_HOME):
	                           * stage_release removes it */
};

/* Makes it: hook copied from hook_src, helpers from helper_dir (may be
 * NULL), an empty frame file, a new X authority file when want_xauth (the
 * run's own Xvfb), else a copy of the caller's ($XAUTHORITY or
 * ~/.Xauthority) if there is one, all given to the user. 0, or -errno with
 * a message in err. */
int stage_create(struct stage *st, const char *hook_src, const char *helper_dir,
		 bool want_xauth, const struct game_user *u, struct strbuf *err);
/* Copies the files of a recipe or variant into HOME, recording
 * file.N=DEST SHA256 in bench. 0 or -errno with err. */
int stage_seed(struct stage *st, const struct recipe_settings *set, struct kvfile *bench,
	       int *seq, struct strbuf *err);
/* Writes the Vulkan layer's manifest (bench/runner/vklayer.h), naming the hook
 * the game preloads by its resolved path, into the data home the game
 * will have (the variant's XDG_DATA_HOME, else the recipe's, else
 * HOME/.local/share), before HOME is given to the user; records
 * vulkan_layer= in bench: the manifest's path relative to HOME (absolute
 * when outside it), or "none (why)" for a hook without the layer's entry
 * point. 0 or -errno with err. */
int stage_vulkan_layer(struct stage *st, const struct recipe *r, const struct recipe_variant *v,
		       struct kvfile *bench, struct strbuf *err);
/* Makes the recipe's working directory and its frame source's log
 * directory, and gives HOME, with all that was seeded, to the user. 0 or
 * -errno with err. */
int stage_finish_home(struct stage *st, const struct recipe *r, const struct game_user *u,
		      struct strbuf *err);
/* Copies HOME as the game left it into dest (the run directory's home/),
 * so its configs and logs stay with the run: every directory, regular file
 * and symlink, except HOME/.cache (shader and texture caches) and files
 * over max_bytes, which are named in skipped (space-separated, relative
 * paths). 0 or -errno. */
int stage_keep_home(const struct stage *st, const char *dest, long long max_bytes,
		    struct strbuf *skipped);
/* Removes it and frees the names. */
void stage_release(struct stage *st);
/* Removes the staging directories that a runner killed with SIGKILL left
 * behind (their runner.pid names no live process). Returns how many. A
 * staging that names its run directory (stage_note_run_dir(), and the run
 * directory names it back) whose bench.txt and flip.txt are there but no
 * frames.bin is a flip run killed
 * in its window: its frames are kept there first (hb_frames_keep()) and
 * the directory takes its final name, so its pairs so far stay
 * analysable. */
int stage_sweep(void);
/* Names the run directory (its temporary name) the staging serves, for
 * stage_sweep(): STAGING/rundir, and RUN_DIR/staging naming the staging
 * back (root's file: the staging is the game user's, so its pointer alone
 * is never trusted). 0 or -errno. */
int stage_note_run_dir(const struct stage *st, const char *run_dir);

/* What the game's environment holds: nothing of the invoking user's. */
struct game_env_opts {
	const struct stage *stage;
	const struct game_user *user;
	const char *display;
	const char *run_dir;                  /* HITCHBENCH_RUN_DIR: where the run is written */
	const char *run_id;                   /* HITCHBENCH_RUN: marks the run's processes (the
	                                       * interference watcher); NULL: none */
	const char *relay_id;                 /* HITCHBENCH_RELAY: both games of a relay; NULL: none */
	const struct recipe *recipe;
	const struct recipe_variant *variant; /* may be NULL */
	bool with_hook;                       /* LD_PRELOAD and the frame file (not for prepare);
	                                       * the recipe's frame source with it */
	double run_s;                         /* warm-up + window: how long a source's log must last */
};
/* Fills env (NAME=VALUE words): the runner's defaults, then the recipe's
 * env, then the variant's, a later NAME replacing an earlier one, then
 * (with the hook) the frame source's variables (framesource_env), which
 * no recipe can change. */
void game_env_build(struct argv_list *env, const struct game_env_opts *o);

/* The game's working directory: the recipe's workdir under HOME (or
 * absolute), HOME by default. A new string. */
char *stage_workdir(const struct stage *st, const struct recipe *r);

#endif
