/*
 * The recipe's [input] steps are played by a helper of their own
 * (hitchbench-input, harness/input.c), started like a switch's helper
 * just before the game: it holds the X connection or the uinput device,
 * sleeps on its own deadlines and reads game.log for wait_line, so the
 * runner's loop keeps its rare wakeups and links no X or evdev code. It
 * runs as root, not as the game's user: the run's X authority and
 * /dev/uinput are the harness's. Its uinput device is named after the
 * run ("hitchbench input RUN_ID"), a recipe's recorded devices (play)
 * "hitchbench input RUN_ID play K", and it carries the harness's marker,
 * so the interference watcher lets them all pass.
 */
#ifndef HB_INPUTHELPER_H
#define HB_INPUTHELPER_H

#include "text/kvfile.h"
#include "recipe/recipe.h"
#include "switch/switch.h"
#include "base/util.h"

#define INPUT_HELPER "hitchbench-input"

/* Starts the helper for the steps of in (nothing when there are none),
 * reading run_dir/game.log, its output to input.log in sw's run directory
 * (switch_ctx_start_helper()); xauth may be NULL. 0 or -errno with the
 * reason in err. */
int input_helper_start(struct switch_ctx *sw, const struct recipe_input *in, const char *run_dir,
		       const char *display, const char *xauth, const char *run_id, struct strbuf *err);

/* After the helper was stopped: what input.log says it played, into
 * bench (input=, and input_device= the syspaths of the devices it made:
 * the uinput driver's, each play's) and into what.
 * 0; -EIO when the helper failed (the run fails with it); 0 and nothing
 * in what when there was no helper. */
int input_helper_finish(struct switch_ctx *sw, const struct recipe_input *in, const char *run_dir,
			struct kvfile *bench, struct strbuf *what);

#endif
