/*
 * hitchbench run: a batch. Every variant with every switch token once per
 * round, the order balanced across rounds, in one boot; or --resume of a
 * batch that was interrupted. Everything is checked before the first run
 * starts; then batch-run.c runs the plan.
 */
#include "text/argv.h"
#include "batch/batch.h"
#include "cmd/cmd-run.h"
#include "cmd/reportrows.h"
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "system/fsroot.h"
#include "runner/gameuser.h"
#include "procwatch/procwatch.h"
#include "quiet/quiet-session.h"
#include "recipe/recipe.h"
#include "cmd/remote-run.h"
#include "report/report.h"
#include "db/resultsdb.h"
#include "db/sqldb.h"
#include "run/run.h"
#include "cmd/run-detach.h"
#include "cmd/runargs.h"
#include "runner/runner.h"
#include "runner/stage.h"
#include "text/suggest.h"
#include "switch/switch.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

static const char run_usage[] =
	"usage: hitchbench run RECIPE [\"VARIANT...\" [ROUNDS]] [--switches \"TOKEN...\"] [options]\n"
	"       hitchbench run --resume BATCH [--db PATH | --no-db] [--display :N]\n"
	"                      [--profile P | --no-quieting] [--quiet] [-v]\n"
	"\n"
	"Each round runs every variant with every switch token once; the order inside a\n"
	"round moves from round to round so that no run always comes first.\n"
	"\n"
	"  RECIPE            a name in recipes/ (dsda-doom) or a path to a recipe file\n"
	"  VARIANT...        variants of the recipe, in one argument (default: its\n"
	"                    default_variant; \"base\" is the recipe alone)\n"
	"  ROUNDS            rounds (default 1; also --rounds N)\n"
	"  --switches TOKENS switch tokens, '-' for none, else NAME=VALUE terms joined\n"
	"                    by '+' (default: $ENVS, else '-'); the switches are below\n"
	"  --order rotate|shuffle  how rounds are ordered (default rotate); --seed N\n"
	"                    for shuffle (default: random, recorded in batch.txt)\n"
	"  --rerun-invalid   run a run that an observer marked invalid once more, at\n"
	"                    once (also RERUN_INTERFERED=1)\n"
	"  --resume BATCH    finish an interrupted batch (its directory or id)\n"
	"  --warmup S        seconds after the first frame before the window (default: the recipe's)\n"
	"  --window S        seconds measured (default: the recipe's)\n"
	"  --db PATH         results database (default results/hitchbench.db); --no-db: none\n"
	"  --out DIR         batches go under DIR (default results/runs)\n"
	"  --display :N      use this running X server instead of starting Xvfb\n"
	"  --stall-ms MS     a frame over MS is a stall (default 100)\n"
	"  --percentile D    percentile definition for p50/p99/p99.9 (default nearest-rank)\n"
	"  --min-frames N    a run counts only with N frames or more in its window (default 50)\n"
	"  --quiet           no progress lines (the report and errors only)\n"
	"  --plan            print the order the batch would run in, and run nothing\n"
	"  --profile P       quiet the machine before each run by profile P, a name in\n"
	"                    recipes/quiet/ or a path (default: default); the machine is\n"
	"                    thawed when the batch ends, however it ends\n"
	"  --no-quieting     leave the machine as it is\n"
	"  --detach          once the batch's directory is made, go on in a session of\n"
	"                    its own (output in BATCH/runner.log) and print\n"
	"                    'batch ID expected_s N dir PATH'; --follow: then stay,\n"
	"                    printing its events and 'ended STATUS' at its end\n"
	"  --target NAME     run the batch on the target NAME (hitchbench target add),\n"
	"                    detached, wait for its end without touching the target,\n"
	"                    then pull it (hitchbench pull); --no-wait: return after\n"
	"                    the start; --no-pull: wait, but do not pull\n"
	"  --flip TOKEN      each run a flip run (docs/metrics.md \"Flip\"): the switch\n"
	"                    that its one token (A) and TOKEN (B) set apart is turned\n"
	"                    between them while the game plays, in segments from the\n"
	"                    window's start; flip.txt records every switch\n"
	"  --segment S       a flip segment, seconds (default 0.5; a looping demo's in its\n"
	"                    own presents at the warm-up's rate); --settle S: after each\n"
	"                    switch, frames this long count for neither side (default 0.1);\n"
	"                    --flip-by-time: segments in time even for a looping demo\n"
	"  --relay relay|duet each round's two cells (A, B) at once, each with its own X\n"
	"                    server (docs/metrics.md \"Relay\"): relay, in turns of\n"
	"                    --turn S (default 0.5), the side not playing stopped, frames\n"
	"                    --settle S (default 0.05) after each resume not counted, who\n"
	"                    starts alternating by round; duet, both playing, each game on\n"
	"                    half the CPUs, the halves swapped by round; relay.txt records it\n"
	"\n"
	"switches:\n";

static void print_progress(const char *line)
{
	fprintf(stderr, "hitchbench:   %s\n", line);
}

static int usage_with_switches(const char *fmt, const char *arg)
{
	error_msg(fmt, arg);
	fputs("hitchbench: the switches are:\n", stderr);
	switch_help(stderr);
	return HB_EXIT_USAGE;
}

/* hup: SIGHUP stops the batch as SIGINT does; a detached runner ignores it
 * instead (the hang-up of the session that started it is none of its
 * business), and a blocked signal is kept pending even when ignored. */
static int setup_signals(bool hup)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (hup)
		sigaddset(&set, SIGHUP);
	else
		signal(SIGHUP, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	/* orphans of the game come to us, so none escapes the end-of-run check */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return -errno;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* A second view of the pending signals without SIGCHLD, for waits that
 * only look (poll) and must not wake for every child that exits: the
 * signal stays pending for the runner's signalfd to read. */
static int stop_signal_fd(bool hup)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (hup)
		sigaddset(&set, SIGHUP);
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static int check_variants(const struct recipe *rc, const struct argv_list *v)
{
	for (size_t i = 0; i < v->n; i++) {
		struct strbuf names = STRBUF_INIT;

		/* "base" is the recipe alone, unless the recipe defines a [variant base] */
		if (recipe_find_variant(rc, v->v[i]) || strcmp(v->v[i], "base") == 0)
			continue;
		struct argv_list known;
		struct strbuf hint = STRBUF_INIT;

		argv_init(&known);
		argv_push(&known, "base");
		for (size_t k = 0; k < rc->n_variants; k++)
			if (strcmp(rc->variants[k].name, "base") != 0)
				argv_push(&known, rc->variants[k].name);
		for (size_t k = 0; k < known.n; k++)
			strbuf_addf(&names, "%s%s", k ? ", " : "", known.v[k]);
		suggest_append(&hint, v->v[i], (const char *const *)known.v, known.n);
		error_msg("recipe '%s' has no variant '%s' (it has: %s);%s", rc->name, v->v[i], names.buf,
			  hint.len ? hint.buf : " 'hitchbench recipes' lists them");
		strbuf_release(&names);
		strbuf_release(&hint);
		argv_release(&known);
		return -EINVAL;
	}
	for (size_t i = 0; i < v->n; i++)
		for (size_t k = 0; k < i; k++)
			if (strcmp(v->v[i], v->v[k]) == 0) {
				error_msg("variant '%s' is named twice", v->v[i]);
				return -EINVAL;
			}
	return 0;
}

static int load_recipe(const char *arg, struct context *ctx, struct recipe *recipe, char **path)
{
	struct strbuf err = STRBUF_INIT;
	int r = 0;

	*path = recipe_resolve(arg, (const char *const *)ctx->recipe_dirs);
	if (!*path) {
		struct strbuf where = STRBUF_INIT, hint = STRBUF_INIT;
		struct argv_list known;

		argv_init(&known);
		recipe_names((const char *const *)ctx->recipe_dirs, &known);
		for (size_t i = 0; i < ARRAY_SIZE(ctx->recipe_dirs) && ctx->recipe_dirs[i]; i++)
			strbuf_addf(&where, "%s%s", i ? ", " : "", ctx->recipe_dirs[i]);
		suggest_append(&hint, arg, (const char *const *)known.v, known.n);
		error_msg("no recipe '%s' (looked in %s);%s", arg, where.buf,
			  hint.len ? hint.buf : " 'hitchbench recipes' lists them");
		strbuf_release(&where);
		strbuf_release(&hint);
		argv_release(&known);
		return -ENOENT;
	}
	if (recipe_load(*path, recipe, &err) < 0) {
		fprintf(stderr, "%s\n", err.buf);
		r = -EINVAL;
	}
	strbuf_release(&err);
	return r;
}

/* --plan: the order a batch would run in (with --seed, exactly). */
static int print_plan(const struct run_args *a, const struct recipe *rc,
		      const struct argv_list *variants, const struct switch_set *sets, size_t n_sets)
{
	size_t n = (size_t)a->rounds * variants->n * n_sets;
	struct batch_slot *slots = zalloc(sizeof(*slots) * n);
	enum batch_order order = BATCH_ROTATE;

	if (a->order)
		batch_order_parse(a->order, &order);
	if (order == BATCH_SHUFFLE && !a->have_seed)
		fprintf(stderr, "hitchbench: note: without --seed a shuffled batch gets its own order\n");
	batch_plan(variants->n, n_sets, a->rounds, order, a->seed, slots);
	printf("# %s: %zu run(s), order %s%s\n", rc->name, n, batch_order_name(order),
	       order == BATCH_SHUFFLE && a->have_seed ? " (this seed)" : "");
	printf("# index round position run token\n");
	for (size_t i = 0; i < n; i++) {
		char *name = batch_run_name(variants->v[slots[i].variant], sets[slots[i].token].label);

		printf("%d %d %d %s %s\n", slots[i].index, slots[i].round, slots[i].position, name,
		       sets[slots[i].token].token);
		free(name);
	}
	free(slots);
	return HB_EXIT_OK;
}

int cmd_run(int argc, char **argv, struct context *ctx)
{
	return batch_command(argc, argv, ctx, NULL, NULL);
}

/* A batch command's state from its arguments to its end, each phase below
 * filling in what the next needs; batch_cmd_release() takes all of it down. */
struct batch_cmd {
	struct context *ctx;
	const struct batch_hooks *hooks;
	struct run_args a;
	struct quiet_session quiet;
	struct strbuf notes, err;
	struct batch_run br;
	struct batch batch;
	struct recipe recipe;
	struct game_user user;
	struct resultsdb *db;
	struct lab_sync lab;       /* --db postgresql://...: the lab's, beside db */
	bool has_lab;
	struct switch_set *sets;
	size_t n_sets;
	struct switch_set flip_set; /* --flip's token (B) */
	struct flip_plan flip;
	bool has_flip;
	struct batch_relay relay;  /* --relay */
	struct argv_list variants, written;
	char *recipe_path, *default_out, *cmdline;
	int signal_fd, stop_fd;
	bool detached_parent;      /* --detach: this is the foreground, its job done */
};

static void batch_cmd_init(struct batch_cmd *bc, struct context *ctx, const struct batch_hooks *hooks)
{
	memset(bc, 0, sizeof(*bc));
	bc->ctx = ctx;
	bc->hooks = hooks;
	bc->a = (struct run_args){ .metric = METRIC_OPTS_DEFAULT, .warmup = -1, .window = -1,
				   .db_path = ctx->default_db, .profile = "default", .hooks = hooks,
				   .segment_s = FLIP_SEGMENT_S_DEFAULT, .settle_s = FLIP_SETTLE_S_DEFAULT,
				   .turn_s = RELAY_TURN_S_DEFAULT };
	bc->a.metric.gamedb_dirs = (const char *const *)ctx->gamedb_dirs;
	strbuf_init(&bc->notes);
	strbuf_init(&bc->err);
	batch_init(&bc->batch);
	recipe_init(&bc->recipe);
	argv_init(&bc->variants);
	argv_init(&bc->written);
	bc->signal_fd = bc->stop_fd = -1;
}

static void batch_cmd_release(struct batch_cmd *bc)
{
	quiet_session_end(&bc->quiet, &bc->notes);
	strbuf_release(&bc->notes);
	free(bc->cmdline);
	if (bc->signal_fd >= 0)
		close(bc->signal_fd);
	if (bc->stop_fd >= 0)
		close(bc->stop_fd);
	switch_sets_free(bc->sets, bc->n_sets);
	if (bc->has_flip)
		switch_set_release(&bc->flip_set);
	argv_release(&bc->variants);
	argv_release(&bc->written);
	batch_release(&bc->batch);
	resultsdb_close(bc->db);
	if (bc->has_lab)
		lab_sync_release(&bc->lab);
	game_user_release(&bc->user);
	recipe_release(&bc->recipe);
	strbuf_release(&bc->err);
	free(bc->recipe_path);
	free(bc->default_out);
}

/* The switch tokens: a resumed batch's, or the command line's. */
static int parse_tokens(struct batch_cmd *bc)
{
	struct strbuf list = STRBUF_INIT;
	int r;

	if (!bc->a.resume)
		return switch_tokens_parse(bc->a.tokens, &bc->sets, &bc->n_sets, &bc->err);
	for (size_t i = 0; i < bc->batch.tokens.n; i++)
		strbuf_addf(&list, "%s%s", i ? " " : "", bc->batch.tokens.v[i]);
	r = switch_tokens_parse(list.buf, &bc->sets, &bc->n_sets, &bc->err);
	strbuf_release(&list);
	return r;
}

/* --flip: the batch's one token is side A, --flip's is side B, and they
 * differ in one switch that can flip (switch_flip_pair()). */
static int check_flip(struct batch_cmd *bc)
{
	if (bc->n_sets != 1) {
		strbuf_addf(&bc->err, "--flip turns each run between its switch token and '%s': name one token "
			    "(--switches TOKEN), not %zu", bc->a.flip, bc->n_sets);
		return -EINVAL;
	}
	if (switch_set_parse(bc->a.flip, &bc->flip_set, &bc->err) < 0)
		return -EINVAL;
	bc->has_flip = true;
	bc->flip = (struct flip_plan){ .segment_s = bc->a.segment_s, .settle_s = bc->a.settle_s,
				       .by_time = bc->a.flip_by_time };
	return switch_flip_plan(&bc->sets[0], &bc->flip_set, &bc->flip, &bc->err);
}

/* --relay: each round's two cells at once, so a batch of exactly two
 * cells, each with an X server of its own. */
static int check_relay(struct batch_cmd *bc)
{
	struct run_args *a = &bc->a;

	if (bc->variants.n * bc->n_sets != 2) {
		strbuf_addf(&bc->err, "--relay runs a round's two cells, A and B, at once: name two variants "
			    "and one token, or one variant and two tokens (not %zu cells)",
			    bc->variants.n * bc->n_sets);
		return -EINVAL;
	}
	if (a->flip || a->display) {
		strbuf_addstr(&bc->err, "--relay starts an X server for each side and turns no switch: no --flip "
			      "or --display with it");
		return -EINVAL;
	}
	relay_mode_parse(a->relay, &bc->relay.mode);
	for (size_t i = 0; i < bc->n_sets && bc->relay.mode == RELAY_MODE_DUET; i++)
		if (switch_set_find(&bc->sets[i], "GAMECPU")) {
			strbuf_addf(&bc->err, "a duet puts each game on half of the CPUs itself: no GAMECPU in its "
				    "tokens ('%s')", bc->sets[i].token);
			return -EINVAL;
		}
	if (!a->settle_given && !a->resume)
		a->settle_s = RELAY_SETTLE_S_DEFAULT;
	if (a->settle_s >= a->turn_s * 0.5) {
		strbuf_addf(&bc->err, "a relay's settle time (%g s) must leave at least half of each turn (%g s)",
			    a->settle_s, a->turn_s);
		return -EINVAL;
	}
	bc->relay.turn_s = a->turn_s;
	bc->relay.settle_s = a->settle_s;
	return 0;
}

/* Everything the command line names, checked before anything starts: the
 * batch resumed, the recipe, its variants, the switch tokens, the order. */
static int check_plan(struct batch_cmd *bc)
{
	struct run_args *a = &bc->a;
	const char *why = NULL;

	if (a->resume) {
		if (batch_open(&bc->batch, a->resume, a->out_dir ? a->out_dir : bc->default_out, &bc->err) < 0 ||
		    run_args_read_batch(&bc->batch, a, &bc->err) < 0) {
			error_msg("cannot resume '%s': %s", a->resume, bc->err.buf);
			return HB_EXIT_USAGE;
		}
	}
	if (load_recipe(a->recipe, bc->ctx, &bc->recipe, &bc->recipe_path) < 0)
		return HB_EXIT_USAGE;
	if (a->resume) {
		for (size_t i = 0; i < bc->batch.variants.n; i++)
			argv_push(&bc->variants, bc->batch.variants.v[i]);
	} else if (argv_split(&bc->variants, a->variants ? a->variants : bc->recipe.default_variant, &why) < 0 ||
		   bc->variants.n == 0) {
		return usage_error(bc->hooks ? bc->hooks->usage : run_usage, "variants '%s': %s", a->variants,
				   why ? why : "none named");
	}
	if (check_variants(&bc->recipe, &bc->variants) < 0)
		return HB_EXIT_USAGE;
	if (parse_tokens(bc) < 0)
		return usage_with_switches("%s", bc->err.buf);
	if (a->flip && check_flip(bc) < 0)
		return usage_with_switches("%s", bc->err.buf);
	if (a->relay && check_relay(bc) < 0)
		return usage_error(bc->hooks ? bc->hooks->usage : run_usage, "%s", bc->err.buf);
	if (!a->resume && a->order && batch_order_parse(a->order, &(enum batch_order){ 0 }) < 0)
		return usage_error(run_usage, "--order wants rotate or shuffle, not '%s'", a->order);
	return HB_EXIT_OK;
}

/* What a run needs of the machine that can be wrong: the hook, the
 * switches' helpers, the game's user, the database (opened first, so a bad
 * path fails now, not after an hour). */
static int check_machine(struct batch_cmd *bc)
{
	if (access(bc->ctx->hook_path, R_OK) < 0) {
		error_msg("cannot find the frame hook '%s': build it with 'make'", bc->ctx->hook_path);
		return HB_EXIT_FAILURE;
	}
	if (switch_sets_ready(bc->sets, bc->n_sets, bc->ctx->helper_dir, &bc->err) < 0 ||
	    game_user_resolve(&bc->user, &bc->err) < 0) {
		error_msg("%s", bc->err.buf);
		return HB_EXIT_FAILURE;
	}
	strbuf_reset(&bc->err);
	if (bc->a.db_path && resultsdb_open(bc->a.db_path, &bc->db, &bc->err) < 0) {
		error_msg("cannot open the results database '%s': %s", bc->a.db_path, bc->err.buf);
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}

/* The machine made ready for the runs: killed runners' staging swept, the
 * signals, the machine quieted. */
static int prepare_machine(struct batch_cmd *bc)
{
	int r;

	if (stage_sweep() > 0)
		warn_msg("removed the staging directories of runners that were killed");
	bc->signal_fd = setup_signals(!bc->a.detach);
	if (bc->signal_fd >= 0) {
		bc->stop_fd = stop_signal_fd(!bc->a.detach);
		if (bc->stop_fd < 0) {
			close(bc->signal_fd);
			bc->signal_fd = bc->stop_fd;
		}
	}
	if (bc->signal_fd < 0) {
		error_msg("cannot set up signal handling: %s", strerror(-bc->signal_fd));
		return HB_EXIT_FAILURE;
	}
	/* the journal first: what a killed runner left is restored before anything */
	if (!bc->a.profile && !switch_sets_journal(bc->sets, bc->n_sets) &&
	    !(bc->has_flip && switch_sets_journal(&bc->flip_set, 1)))
		return HB_EXIT_OK;
	r = quiet_session_start(&bc->quiet, bc->a.profile, bc->ctx->recipe_dirs,
				ARRAY_SIZE(bc->ctx->recipe_dirs), &bc->notes, &bc->err);
	if (bc->notes.len)
		fprintf(stderr, "hitchbench: thaw: %s", bc->notes.buf);
	if (r < 0) {
		error_msg("cannot quiet the machine: %s", bc->err.buf);
		return r == -EINVAL ? HB_EXIT_USAGE : HB_EXIT_FAILURE;
	}
	strbuf_reset(&bc->err);
	return HB_EXIT_OK;
}

/* A new batch's directory and batch.txt, its plan and settings in it. */
static int create_batch(struct batch_cmd *bc, char **argv)
{
	struct run_args *a = &bc->a;
	struct kvfile options;
	struct argv_list tokens;
	struct batch_spec spec = {
		.game = bc->recipe.name, .variants = &bc->variants, .tokens = &tokens,
		.rounds = a->rounds, .options = &options,
	};
	int r;

	if (a->order)
		batch_order_parse(a->order, &spec.order);
	spec.seed = a->seed;
	if (!a->have_seed && getrandom(&spec.seed, sizeof(spec.seed), 0) != sizeof(spec.seed))
		spec.seed = (uint64_t)getpid() * 2654435761u ^ (uint64_t)time(NULL);
	if (a->warmup < 0)
		a->warmup = bc->recipe.warmup_s;
	if (a->window <= 0)
		a->window = bc->recipe.window_s;
	argv_init(&tokens);
	for (size_t i = 0; i < bc->n_sets; i++)
		argv_push(&tokens, bc->sets[i].token);
	kvfile_init(&options);
	run_args_record(&options, a, bc->recipe_path, a->warmup, a->window);
	bc->cmdline = sqldb_command_line(argv - 1); /* main's argv: the whole command */
	kvfile_add(&options, "harness_command", bc->cmdline);
	r = batch_create(&bc->batch, a->out_dir ? a->out_dir : bc->default_out, &spec, &bc->err);
	kvfile_release(&options);
	argv_release(&tokens);
	if (r < 0) {
		error_msg("%s", bc->err.buf);
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}

/* The batch made or resumed (a resume in another boot is said), the line
 * that says what is to run, and the batch runner's template filled in. */
static int open_batch(struct batch_cmd *bc, char **argv)
{
	struct run_args *a = &bc->a;
	struct batch *b = &bc->batch;

	if (!a->resume) {
		int ret = create_batch(bc, argv);

		if (ret != HB_EXIT_OK)
			return ret;
	} else {
		const char *boot = kvfile_get(&b->info, "boot_id");
		char now[64];
		int r;

		if (boot && fsroot_read_line("proc/sys/kernel/random/boot_id", now, sizeof(now)) == 0 &&
		    strcmp(boot, now) != 0)
			warn_msg("batch '%s' started in another boot (%s): its runs from before and after "
				 "this resume are not same-boot comparisons", b->id, boot);
		bc->cmdline = sqldb_command_line(argv - 1);
		r = batch_drop_checksums(b);
		if (r < 0)
			warn_msg("cannot remove '%s/SHA256SUMS' of the batch resumed: %s", b->dir,
				 strerror(-r));
	}
	if (!a->silent)
		fprintf(stderr, "hitchbench: batch %s: %zu variant(s) x %zu switch token(s) x %d round(s), "
			"%zu run(s) to go, order %s (seed %llu)\n", b->id, b->variants.n, b->tokens.n, b->rounds,
			batch_pending(b), batch_order_name(b->order), (unsigned long long)b->seed);
	return HB_EXIT_OK;
}

/* The batch runner's template, from the batch and the prepared machine. */
static void fill_runner(struct batch_cmd *bc)
{
	struct run_args *a = &bc->a;
	struct batch *b = &bc->batch;

	bc->br = (struct batch_run){
		.batch = b, .recipe = &bc->recipe, .sets = bc->sets, .db = bc->db, .db_path = a->db_path,
		.lab = bc->has_lab ? &bc->lab : NULL,
		.rerun_invalid = a->rerun, .silent = a->silent, .quiet = a->profile ? &bc->quiet : NULL,
		.stop_fd = bc->stop_fd, .say = msg_lines, .relay = a->relay ? &bc->relay : NULL,
	};
	bc->br.req = (struct run_request){
		.recipe = &bc->recipe, .warmup_s = a->warmup, .window_s = a->window, .out_dir = b->dir,
		.display = a->display, .hook_path = bc->ctx->hook_path, .helper_dir = bc->ctx->helper_dir,
		.harness_command = bc->cmdline, .user = &bc->user, .metric = a->metric,
		.signal_fd = bc->signal_fd, .noise_limits = a->profile ? &bc->quiet.profile.noise : NULL,
		.noise_profile = a->profile ? bc->quiet.profile.path : NULL,
		.noise_daemons = a->profile ? bc->quiet.profile.noise_daemons : NULL,
		.verbose = a->verbose, .progress = a->silent ? NULL : print_progress,
		.flip = bc->has_flip ? &bc->flip : NULL,
		.journal = bc->quiet.open ? &bc->quiet.journal : NULL,
	};
	bc->flip.seed = b->seed;
}

/* The rounds: what is pending, unless the hooks' test ended before. The
 * batch runner's result (0, -EINTR, -errno) in *r; the exit code so far. */
static int run_rounds(struct batch_cmd *bc, int *r)
{
	const struct batch_hooks *hooks = bc->hooks;
	int ret = HB_EXIT_OK;

	strbuf_reset(&bc->err);
	*r = 0;
	if (hooks) {
		/* the test so far (a resumed batch's rounds), and maybe its end */
		*r = hooks->begin(hooks->data, &bc->batch, &bc->a.metric, bc->a.resume != NULL);
		bc->br.after_round = hooks->after_round;
		bc->br.round_data = hooks->data;
		bc->br.stopped = *r > 0;
	}
	if (*r < 0)
		ret = *r == -EINVAL ? HB_EXIT_USAGE : HB_EXIT_FAILURE;
	else if (!bc->br.stopped)
		*r = batch_run_pending(&bc->br, &bc->err);
	if (*r == -EINTR) {
		error_msg("interrupted: the game and its helpers are stopped; %zu finished run(s) kept; "
			  "'hitchbench run --resume %s' finishes the batch", bc->br.runs_done, bc->batch.dir);
		ret = HB_EXIT_INTERRUPTED;
	} else if (*r < 0 && bc->err.len) {
		error_msg("%s", bc->err.buf);
		ret = HB_EXIT_FAILURE;
	}
	return ret;
}

/* However the rounds ended: the machine thawed, the batch's status, the
 * batch in the database, its report, and the exit code. */
static int end_batch(struct batch_cmd *bc, int r, int ret)
{
	struct batch *b = &bc->batch;

	/* signals stay blocked, so a second Ctrl-C cannot cut the thaw short */
	strbuf_reset(&bc->notes);
	if (quiet_session_end(&bc->quiet, &bc->notes) < 0) {
		error_msg("the machine is not fully thawed ('hitchbench thaw' tries again):\n%s", bc->notes.buf);
		ret = HB_EXIT_FAILURE;
	} else if (bc->notes.len && !bc->a.silent) {
		fprintf(stderr, "hitchbench: thawed:\n%s", bc->notes.buf);
	}
	batch_finish(b, r == -EINTR ? "interrupted" : r < 0 ? "failed" : bc->br.stopped ? "stopped" :
			batch_pending(b) ? "incomplete" : "complete");
	strbuf_reset(&bc->err);    /* the rounds are done with it */
	if (bc->db && resultsdb_import_batch(bc->db, &b->info, b->dir, &bc->err) < 0) {
		error_msg("cannot store batch '%s' in '%s': %s", b->id, bc->a.db_path, bc->err.buf);
		ret = HB_EXIT_FAILURE;
	} else if (bc->db && bc->has_lab) {
		/* the batch as it ended, and any run an earlier try left here */
		struct strbuf why = STRBUF_INIT;

		if (lab_sync_push(&bc->lab, bc->db, &why) < 0 && why.len)
			msg_lines(MSG_ERROR, why.buf);
		strbuf_release(&why);
	}
	if (bc->br.runs_done + (b->n_slots - batch_pending(b)) > 0) {
		FILE *out = bc->hooks && bc->hooks->document && *bc->hooks->document ? stderr : stdout;

		fprintf(out, "\n# batch %s (%s)\n", b->id, b->dir);
		batch_print_report(b, &bc->a.metric, out);
		if (bc->db && bc->has_lab)
			fprintf(out, "# stored in %s and %s%s\n", bc->a.db_path, bc->lab.name,
				bc->lab.said ? " (not all: see above)" : "");
		else if (bc->db)
			fprintf(out, "# stored in %s\n", bc->a.db_path);
	}
	if (bc->hooks) /* a failed run is left out of its pair: the verdict decides */
		return bc->hooks->end(bc->hooks->data, b, ret);
	if (ret == HB_EXIT_OK && bc->br.runs_failed > 0)
		return HB_EXIT_FAILURE;
	return ret;
}

/* --detach: the batch made (or opened) here, where a bad option, recipe,
 * profile or batch still fails with its message; then the rest of the
 * command goes on in the detached runner (run-detach.c) while the
 * foreground prints "batch ID expected_s N dir PATH" and is done
 * (bc->detached_parent). In the runner: HB_EXIT_OK, the machine prepared,
 * or the exit code after the batch was ended failed. */
static int detach_batch(struct batch_cmd *bc, char **argv)
{
	struct detach_login login;
	double settle, expected;
	char abs[PATH_MAX];
	int ret, r;

	r = detach_profile_settle(bc->a.profile, bc->ctx->recipe_dirs, ARRAY_SIZE(bc->ctx->recipe_dirs), &settle,
				  &bc->err);
	if (r < 0) {
		error_msg("%s", bc->err.buf);
		return HB_EXIT_USAGE;
	}
	ret = open_batch(bc, argv);
	if (ret != HB_EXIT_OK)
		return ret;
	expected = detach_expected_s(batch_pending(&bc->batch), bc->a.warmup, bc->a.window,
				     bc->recipe.stop_grace_s, settle);
	/* and the wait for the starting session's end (a second or so) */
	detach_login_find(&login);
	if (login.pid)
		expected += DETACH_LOGIN_SETTLE_S + 1;
	/* an SQLite connection must not cross a fork: the runner opens its own */
	resultsdb_close(bc->db);
	bc->db = NULL;
	if (bc->has_lab)
		lab_sync_close(&bc->lab);
	r = detach_runner(&bc->batch);
	if (r == 0) {
		strbuf_reset(&bc->err);
		if (bc->a.db_path && resultsdb_open(bc->a.db_path, &bc->db, &bc->err) < 0) {
			error_msg("cannot open the results database '%s': %s", bc->a.db_path, bc->err.buf);
			ret = HB_EXIT_FAILURE;
		} else {
			ret = prepare_machine(bc);
		}
		/* a followed batch's session stays, the harness's own and idle */
		if (ret == HB_EXIT_OK && login.pid && !bc->a.follow)
			detach_login_say(&login, detach_login_wait(&login, bc->signal_fd));
		if (ret != HB_EXIT_OK) {
			batch_finish(&bc->batch, "failed");
			batch_write_checksums(&bc->batch);
		}
		return ret;
	}
	bc->detached_parent = true;
	if (r < 0) {
		error_msg("the detached runner of batch '%s' did not start (%s)", bc->batch.id,
			  r == -ECHILD ? "it said nothing: see its " BATCH_RUNNER_LOG : strerror(-r));
		return HB_EXIT_FAILURE;
	}
	printf("batch %s expected_s %.0f dir %s\n", bc->batch.id, ceil(expected),
	       realpath(bc->batch.dir, abs) ? abs : bc->batch.dir);
	return bc->a.follow ? detach_follow(&bc->batch, -1) : HB_EXIT_OK;
}

int batch_command(int argc, char **argv, struct context *ctx, const struct batch_hooks *hooks,
		  char **batch_dir)
{
	struct batch_cmd bc;
	int ret, r;

	batch_cmd_init(&bc, ctx, hooks);
	for (int i = 0; i < argc; i++)   /* as written, before getopt permutes them */
		argv_push(&bc.written, argv[i]);
	r = run_args_parse(argc, argv, &bc.a, run_usage);
	if (r != 0) {
		ret = hb_args_exit(r);
		goto out;
	}
	if (bc.a.target) {
		ret = remote_run(argc, bc.written.v, ctx, &bc.a);
		goto out;
	}
	bc.default_out = xasprintf("%s/runs", ctx->results_dir);
	/* --db postgresql://...: this machine's database first, the lab's after
	 * each run (labsync.h) */
	if (bc.a.db_path && sqldb_is_url(bc.a.db_path)) {
		lab_sync_init(&bc.lab, bc.a.db_path);
		bc.has_lab = true;
		bc.a.db_path = ctx->default_db;
	}
	/* What this process starts (helpers, the X server, quieting's commands)
	 * is the harness's: the interference watcher lets it pass. The game's
	 * environment is built afresh and carries the run's marker instead. */
	{
		char pid[24];

		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		setenv(PROCWATCH_HARNESS_ENV, pid, 0);
	}
	/* Everything is checked before anything starts. */
	ret = check_plan(&bc);
	if (ret != HB_EXIT_OK)
		goto out;
	if (bc.a.plan_only) {
		ret = print_plan(&bc.a, &bc.recipe, &bc.variants, bc.sets, bc.n_sets);
		goto out;
	}
	ret = check_machine(&bc);
	if (ret == HB_EXIT_OK && bc.a.detach)
		ret = detach_batch(&bc, argv);
	else if (ret == HB_EXIT_OK && (ret = prepare_machine(&bc)) == HB_EXIT_OK)
		ret = open_batch(&bc, argv);
	if (ret != HB_EXIT_OK || bc.detached_parent)
		goto out;
	fill_runner(&bc);
	ret = run_rounds(&bc, &r);
	ret = end_batch(&bc, r, ret);
	/* the very last: what the batch says of itself is all written. A
	 * detached runner's runner.log is not listed (it is written after
	 * this; pull copies it beside the batch as BATCH.runner.log) */
	fflush(stdout);
	fflush(stderr);
	if ((r = batch_write_checksums(&bc.batch)) < 0) {
		error_msg("cannot write '%s/SHA256SUMS': %s", bc.batch.dir, strerror(-r));
		ret = HB_EXIT_FAILURE;
	}
	if (batch_dir)
		*batch_dir = xstrdup(bc.batch.dir);
out:
	batch_cmd_release(&bc);
	return ret;
}
