/*
 * bench/switch/switch.c: the token grammar ("-", NAME=VALUE terms joined by '+'),
 * what it refuses before a batch starts, the labels runs are named by, and
 * what the switches of this issue do to the game (environment, CPUs).
 */
#include "system/cpulist.h"
#include "system/fsroot.h"
#include "formats/frames.h"
#include "quiet/thaw.h"
#include "switch/switch.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* Parses token; returns the error text ("" when it parsed). */
static char *parse(const char *token, struct switch_set *set)
{
	struct strbuf err = STRBUF_INIT;

	if (switch_set_parse(token, set, &err) == 0)
		ck_assert_uint_eq(err.len, 0);
	else
		ck_assert_uint_gt(err.len, 0);
	return strbuf_detach(&err);
}

static void refused(const char *token, const char *why)
{
	struct switch_set set;
	char *e = parse(token, &set);

	if (!strstr(e, why))
		ck_abort_msg("token '%s': expected '%s' in '%s'", token, why, e);
	free(e);
	switch_set_release(&set);
}

START_TEST(none)
{
	struct switch_set set;
	char *e = parse("-", &set);

	ck_assert_str_eq(e, "");
	ck_assert_str_eq(set.token, "-");
	ck_assert_str_eq(set.label, "");
	for (size_t i = 0; i < set.n; i++)
		ck_assert(!set.on[i].explicit); /* only observers on by default */
	free(e);
	switch_set_release(&set);
}
END_TEST

START_TEST(terms_and_labels)
{
	struct switch_set set;
	char *e = parse("GAMECPU=1+GAMEENV=MESA_NO_ERROR=1", &set);

	ck_assert_str_eq(e, "");
	ck_assert_uint_ge(set.n, 2);
	ck_assert_str_eq(set.on[0].def->name, "GAMECPU");
	ck_assert_str_eq(set.on[0].value, "1");
	ck_assert_str_eq(set.on[1].def->name, "GAMEENV");
	ck_assert_str_eq(set.on[1].value, "MESA_NO_ERROR=1");
	ck_assert_str_eq(set.label, "cpu1+mesa_no_error1");
	free(e);
	switch_set_release(&set);

	/* a parameter, before or after its switch, names the label */
	e = parse("GAMEENV_LABEL=noerr+GAMEENV=MESA_NO_ERROR=1", &set);
	ck_assert_str_eq(e, "");
	ck_assert_str_eq(set.label, "noerr");
	ck_assert_str_eq(switch_param(&set.on[0], "GAMEENV_LABEL"), "noerr");
	free(e);
	switch_set_release(&set);

	e = parse("GAMECPU=0,1", &set);
	ck_assert_str_eq(set.label, "cpu0.1");
	free(e);
	switch_set_release(&set);

	/* the stall recorder: its period, and what else changes its effect */
	e = parse("STALLS=1", &set);
	ck_assert_str_eq(e, "");
	ck_assert_str_eq(set.label, "rec10");
	free(e);
	switch_set_release(&set);
	e = parse("STALLS=1+STALLS_MS=20+STALLS_NOWRITE=1+STALLS_NICE=-5", &set);
	ck_assert_str_eq(set.label, "rec20nwn-5");
	free(e);
	switch_set_release(&set);
	e = parse("STALLS=1+STALLS_CGROUP=0", &set);
	ck_assert_str_eq(set.label, "rec10ncg");
	free(e);
	switch_set_release(&set);
	e = parse("STALLS=0", &set);
	ck_assert_str_eq(set.label, "nostalls");
	free(e);
	switch_set_release(&set);

	/* the interference watcher: on by default, its name only when changed */
	e = parse("INTF=1", &set);
	ck_assert_str_eq(e, "");
	ck_assert_str_eq(set.label, "");
	free(e);
	switch_set_release(&set);
	e = parse("INTF=0", &set);
	ck_assert_str_eq(set.label, "nointf");
	free(e);
	switch_set_release(&set);
	e = parse("INTF=1+INTF_SCAN=1", &set);
	ck_assert_str_eq(set.label, "intfscan");
	free(e);
	switch_set_release(&set);
}
END_TEST

START_TEST(refusals)
{
	refused("", "empty term");
	refused("GAMECPU=1+", "empty term");
	refused("+GAMECPU=1", "empty term");
	refused("GAMECPU=1++GAMEENV=A=1", "empty term");
	refused("NOSUCH=1", "no switch or parameter 'NOSUCH'");
	refused("GAMECPU", "is not NAME=VALUE");
	refused("STALLS=2", "STALLS");
	refused("STALLS=1+STALLS_NICE=20", "niceness");
	refused("STALLS=1+STALLS_MS=0", "STALLS_MS");
	refused("=1", "is not NAME=VALUE");
	refused("gamecpu=1", "not a switch name");
	refused("GAMECPU=1+GAMECPU=0", "GAMECPU is set twice");
	refused("GAMEENV_LABEL=x", "without GAMEENV=VALUE");
	refused("GAMECPU=x", "CPU list");
	refused("GAMECPU=3-1", "CPU list");
	refused("GAMEENV=LD_PRELOAD=/x.so", "set by the harness");
	refused("GAMEENV=HITCHBENCH_ROOT=/", "harness's");
	refused("GAMEENV=NOVALUE", "NAME=VALUE");
	refused("GAMEENV=A-B=1", "not a variable name");
	refused("GAMEENV=A=1+GAMEENV_LABEL=a/b", "short name");
}
END_TEST

/* A CPU that is not online is refused (under the swappable root). */
START_TEST(cpus_online)
{
	char *root = test_tmpdir(), *d = xasprintf("%s/sys/devices/system/cpu", root);
	char *f = xasprintf("%s/online", d);
	struct switch_set set;
	cpu_set_t cs;
	char *e;

	ck_assert_int_eq(mkdir_p(d, 0755), 0);
	ck_assert_int_eq(write_file_atomic(f, "0-1\n", 4, 0644), 0);
	fsroot_set(root);
	refused("GAMECPU=2", "CPU 2 is not online (online: 0-1)");
	e = parse("GAMECPU=0-1", &set);
	ck_assert_str_eq(e, "");
	free(e);
	switch_set_release(&set);
	fsroot_set(NULL);
	ck_assert_int_eq(cpu_list_parse("0,2-3", &cs), 0);
	ck_assert(CPU_ISSET(0, &cs) && !CPU_ISSET(1, &cs) && CPU_ISSET(2, &cs) && CPU_ISSET(3, &cs));
	ck_assert_int_eq(CPU_COUNT(&cs), 3);
	ck_assert_int_lt(cpu_list_parse("1,", &cs), 0);
	ck_assert_int_lt(cpu_list_parse("", &cs), 0);
	remove_tree(root);
	free(root);
	free(d);
	free(f);
}
END_TEST

START_TEST(token_lists)
{
	struct strbuf err = STRBUF_INIT;
	struct switch_set *sets = NULL;
	size_t n = 0;

	ck_assert_int_eq(switch_tokens_parse("- GAMECPU=0 GAMECPU=0+GAMEENV=A=1", &sets, &n, &err), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(sets[0].label, "");
	ck_assert_str_eq(sets[1].label, "cpu0");
	ck_assert_str_eq(sets[2].label, "cpu0+a1");
	switch_sets_free(sets, n);
	/* nothing at all is one token: none */
	ck_assert_int_eq(switch_tokens_parse(NULL, &sets, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(sets[0].token, "-");
	switch_sets_free(sets, n);
	/* two tokens that would give runs the same name */
	ck_assert_int_eq(switch_tokens_parse("GAMECPU=0 GAMECPU=0", &sets, &n, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "name the same runs"));
	strbuf_release(&err);
}
END_TEST

/* GAMEENV replaces a variable the game already has, GAMECPU restricts it. */
START_TEST(prepare_hooks)
{
	struct strbuf err = STRBUF_INIT;
	struct switch_set set;
	struct argv_list env;
	struct kvfile bench;
	cpu_set_t cpus;
	bool pin = false;
	struct switch_ctx ctx = { .game_env = &env, .game_cpus = &cpus, .pin_game = &pin,
				  .bench = &bench };
	char *e;

	argv_init(&env);
	kvfile_init(&bench);
	argv_push(&env, "MESA_NO_ERROR=0");
	argv_push(&env, "HOME=/h");
	e = parse("GAMEENV=MESA_NO_ERROR=1+GAMECPU=0", &set);
	ck_assert_str_eq(e, "");
	for (size_t i = 0; i < set.n; i++)
		if (set.on[i].def->prepare)
			ck_assert_int_eq(set.on[i].def->prepare(&set.on[i], &ctx, &err), 0);
	ck_assert_uint_eq(env.n, 2);
	ck_assert_str_eq(env.v[0], "MESA_NO_ERROR=1");
	ck_assert(pin);
	ck_assert(CPU_ISSET(0, &cpus));
	ck_assert_int_eq(CPU_COUNT(&cpus), 1);
	ck_assert_str_eq(kvfile_get(&bench, "game_cpus"), "0");
	free(e);
	switch_set_release(&set);
	argv_release(&env);
	kvfile_release(&bench);
	strbuf_release(&err);
}
END_TEST

/* SLOWDOWN: its labels (one name per figure), its refusals, and the
 * figure in the game's environment. */
START_TEST(slowdown)
{
	struct strbuf err = STRBUF_INIT;
	struct switch_set *sets = NULL, set;
	struct argv_list env;
	struct kvfile bench;
	struct switch_ctx ctx = { .game_env = &env, .bench = &bench };
	size_t n = 0;
	char *e;

	ck_assert_int_eq(switch_tokens_parse("SLOWDOWN=0 - SLOWDOWN=3 SLOWDOWN=2.50 SLOWDOWN_US=250",
					     &sets, &n, &err), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(sets[0].label, "slow0");
	ck_assert_str_eq(sets[1].label, "");
	ck_assert_str_eq(sets[2].label, "slow3");
	ck_assert_str_eq(sets[3].label, "slow2.5");
	ck_assert_str_eq(sets[4].label, "slow250us");
	switch_sets_free(sets, n);
	/* two spellings of one figure name the same runs */
	ck_assert_int_eq(switch_tokens_parse("SLOWDOWN=3 SLOWDOWN=3.0", &sets, &n, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "name the same runs"));
	strbuf_reset(&err);
	ck_assert_int_eq(switch_tokens_parse("SLOWDOWN=3+SLOWDOWN_US=100", &sets, &n, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "a token takes one"));
	refused("SLOWDOWN=101", "wants a percentage from 0 to 100");
	refused("SLOWDOWN=-1", "wants a percentage");
	refused("SLOWDOWN=3%", "wants a percentage");
	refused("SLOWDOWN_US=1.5", "whole microseconds");
	refused("SLOWDOWN_US=1000001", "whole microseconds");

	argv_init(&env);
	kvfile_init(&bench);
	argv_push(&env, "HITCHBENCH_SLOWDOWN_PCT=9");
	e = parse("SLOWDOWN=03", &set);
	ck_assert_str_eq(e, "");
	ck_assert_int_eq(set.on[0].def->prepare(&set.on[0], &ctx, &err), 0);
	ck_assert_uint_eq(env.n, 1);
	ck_assert_str_eq(env.v[0], "HITCHBENCH_SLOWDOWN_PCT=3");
	ck_assert_str_eq(kvfile_get(&bench, "slowdown.pct"), "3");
	free(e);
	switch_set_release(&set);
	e = parse("SLOWDOWN_US=250", &set);
	ck_assert_int_eq(set.on[0].def->prepare(&set.on[0], &ctx, &err), 0);
	ck_assert_str_eq(env.v[1], "HITCHBENCH_SLOWDOWN_US=250");
	ck_assert_str_eq(kvfile_get(&bench, "slowdown.us"), "250");
	free(e);
	switch_set_release(&set);
	argv_release(&env);
	kvfile_release(&bench);
	strbuf_release(&err);
}
END_TEST

/* KNOB under a fixture root: the grammar, its label, the old value
 * journaled before the write (a choice file's choice), the value taken,
 * flipped and put back; a value the kernel does not keep is refused. */
START_TEST(knob)
{
	char *root = test_tmpdir(), *d = xasprintf("%s/sys/kernel/mm/transparent_hugepage", root);
	char *f = xasprintf("%s/enabled", d), *state = xasprintf("%s/state", root), *got = NULL;
	struct strbuf err = STRBUF_INIT;
	struct thaw_journal j;
	struct switch_set a, b;
	struct kvfile bench;
	struct switch_ctx ctx = { .bench = &bench };
	const struct switch_on *on_a, *on_b;
	char *e;

	refused("KNOB=/etc/passwd=x", "under /proc/sys or /sys");
	refused("KNOB=/sys/../etc/passwd=x", "no '..'");
	refused("KNOB=/proc/sys/vm/swappiness", "wants PATH=VALUE");
	refused("KNOB=/proc/sys/vm/swappiness=1 2", "one word");
	ck_assert_int_eq(mkdir_p(d, 0755), 0);
	ck_assert_int_eq(write_file_atomic(f, "always [madvise] never\n", 23, 0644), 0);
	fsroot_set(root);
	thaw_journal_init(&j);
	ck_assert_int_eq(thaw_journal_open(&j, state, THAW_BATCH, &err), 0);
	ctx.journal = &j;
	kvfile_init(&bench);
	e = parse("KNOB=/sys/kernel/mm/transparent_hugepage/enabled=always", &a);
	ck_assert_str_eq(e, "");
	free(e);
	ck_assert_str_eq(a.label, "transparent_hugepage.enabled-always");
	e = parse("KNOB=/sys/kernel/mm/transparent_hugepage/enabled=never", &b);
	free(e);
	ck_assert_int_eq(switch_flip_pair(&a, &b, &on_a, &on_b, &err), 0);
	ck_assert_int_eq(a.on[0].def->prepare(&a.on[0], &ctx, &err), 0);
	ck_assert_str_eq(kvfile_get(&bench, "knob.before"), "madvise");
	ck_assert_ptr_nonnull(thaw_journal_find(&j, THAW_FILE_SETTING, "sys/kernel/mm/transparent_hugepage/enabled"));
	ck_assert_str_eq(thaw_journal_find(&j, THAW_FILE_SETTING, "sys/kernel/mm/transparent_hugepage/enabled")->value,
			 "madvise");
	ck_assert_int_eq(thaw_read_setting("sys/kernel/mm/transparent_hugepage/enabled", &got), 0);
	ck_assert_str_eq(got, "always");
	free(got);
	ck_assert_int_eq(on_b->def->flip(on_b, &ctx, &err), 0);
	ck_assert_int_eq(thaw_read_setting("sys/kernel/mm/transparent_hugepage/enabled", &got), 0);
	ck_assert_str_eq(got, "never");
	free(got);
	a.on[0].def->finish(&a.on[0], &ctx);
	ck_assert_str_eq(kvfile_get(&bench, "knob.restored"), "yes");
	ck_assert_int_eq(thaw_read_setting("sys/kernel/mm/transparent_hugepage/enabled", &got), 0);
	ck_assert_str_eq(got, "madvise");
	free(got);
	ck_assert(thaw_setting_is("always [madvise] never", "madvise"));
	ck_assert(!thaw_setting_is("always [madvise] never", "always"));
	ck_assert(!thaw_setting_is("[mad", "mad"));
	/* a knob that is not there fails the run with the reason */
	switch_set_release(&b);
	e = parse("KNOB=/proc/sys/vm/no_such_knob=1", &b);
	free(e);
	strbuf_reset(&err);
	ck_assert_int_lt(b.on[0].def->prepare(&b.on[0], &ctx, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.buf, "cannot read /proc/sys/vm/no_such_knob"));
	thaw_journal_release(&j);
	fsroot_set(NULL);
	switch_set_release(&a);
	switch_set_release(&b);
	kvfile_release(&bench);
	strbuf_release(&err);
	remove_tree(root);
	free(root);
	free(d);
	free(f);
	free(state);
}
END_TEST

/* SLOWDOWN flips through the frame file's header: the live figure in
 * thousandths of a percent, with the flag; off is 0%. Only into the file
 * the runner's view opened: not through a link the game put in its place,
 * not into another file. */
START_TEST(slowdown_flip)
{
	char *root = test_tmpdir(), *path = xasprintf("%s/frames.bin", root);
	char *moved = xasprintf("%s/moved.bin", root);
	struct hb_frames_header h;
	struct hb_frames_view view;
	struct strbuf err = STRBUF_INIT;
	struct switch_set a, b;
	struct kvfile bench;
	struct switch_ctx ctx = { .bench = &bench, .frames_path = path, .frames = &view };
	const struct switch_on *on_a, *on_b;
	int fd;
	char *e;

	kvfile_init(&bench);
	ck_assert_int_eq(hb_frames_create(path, 16, 0644), 0);
	ck_assert_int_eq(hb_frames_view_open(&view, path, NULL), 0);
	e = parse("SLOWDOWN=0", &a);
	free(e);
	e = parse("SLOWDOWN=2.5", &b);
	free(e);
	ck_assert_int_eq(switch_flip_pair(&a, &b, &on_a, &on_b, &err), 0);
	ck_assert_int_eq(on_b->def->flip(on_b, &ctx, &err), 0);
	fd = open(path, O_RDONLY);
	ck_assert_int_eq(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	ck_assert_uint_eq(h.slowdown_live, HB_SLOWDOWN_LIVE | 2500);
	ck_assert_int_eq(on_a->def->flip(on_a, &ctx, &err), 0);
	ck_assert_int_eq(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	ck_assert_uint_eq(h.slowdown_live, HB_SLOWDOWN_LIVE | 0);
	close(fd);
	/* the game moved its file away: a link in its place is not followed,
	 * another file is not written */
	ck_assert_int_eq(rename(path, moved), 0);
	ck_assert_int_eq(symlink(moved, path), 0);
	ck_assert_int_eq(on_b->def->flip(on_b, &ctx, &err), -ELOOP);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(hb_frames_create(path, 16, 0644), 0);
	ck_assert_int_eq(on_b->def->flip(on_b, &ctx, &err), -ESTALE);
	hb_frames_view_close(&view);
	/* no frame file: the flip fails and says so */
	ctx.frames_path = NULL;
	ck_assert_int_lt(on_b->def->flip(on_b, &ctx, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.buf, "live SLOWDOWN figure"));
	switch_set_release(&a);
	switch_set_release(&b);
	kvfile_release(&bench);
	strbuf_release(&err);
	remove_tree(root);
	free(root);
	free(path);
	free(moved);
}
END_TEST

/* A helper program a switch needs is looked for before a batch starts. */
START_TEST(helpers_ready)
{
	char *dir = test_tmpdir(), *prog = xasprintf("%s/hitchbench-sampler", dir);
	char *watcher = xasprintf("%s/hitchbench-intfwatch", dir);
	struct strbuf err = STRBUF_INIT;
	struct switch_set *sets = NULL;
	size_t n = 0;

	ck_assert_int_eq(switch_tokens_parse("- GAMECPU=0", &sets, &n, &err), 0);
	ck_assert_int_eq(switch_sets_ready(sets, n, dir, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.buf, "switch SENSORS needs"));
	ck_assert_ptr_nonnull(strstr(err.buf, "SENSORS=0"));
	switch_sets_free(sets, n);
	strbuf_reset(&err);
	/* turned off in every token: not needed */
	ck_assert_int_eq(switch_tokens_parse("SENSORS=0+INTF=0 SENSORS=0+INTF=0+GAMECPU=0", &sets, &n,
					     &err), 0);
	ck_assert_int_eq(switch_sets_ready(sets, n, dir, &err), 0);
	switch_sets_free(sets, n);
	/* there and executable: the sampler alone is not enough */
	ck_assert_int_eq(write_file_atomic(prog, "#!/bin/sh\n", 10, 0755), 0);
	ck_assert_int_eq(switch_tokens_parse("-", &sets, &n, &err), 0);
	ck_assert_int_eq(switch_sets_ready(sets, n, dir, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.buf, "switch INTF needs"));
	ck_assert_int_eq(write_file_atomic(watcher, "#!/bin/sh\n", 10, 0755), 0);
	strbuf_reset(&err);
	ck_assert_int_eq(switch_sets_ready(sets, n, dir, &err), 0);
	switch_sets_free(sets, n);
	strbuf_release(&err);
	remove_tree(dir);
	free(dir);
	free(prog);
	free(watcher);
}
END_TEST

/* switch_ctx_start_helper(), every switch's one way to start its helper:
 * "--ready STAGE/NAME.ready" appended to argv, output to RUN/LOG_NAME, a
 * helper that exits before its ready file said with the log a user reads
 * (ready_log), one that cannot start not kept among the run's helpers. */
START_TEST(start_helper)
{
	static const struct switch_helper_start ready = {
		.name = "echoer", .log_name = "echoer.log", .wait_ready = true, .grace_s = 7,
	};
	static const struct switch_helper_start quits = {
		.name = "quitter", .log_name = "quitter.log", .ready_log = "what.log", .wait_ready = true,
	};
	static const struct switch_helper_start missing = { .name = "ghost", .log_name = "ghost.log" };
	/* $0 and $1 are what the helper is given after the script */
	const char *echoer[] = { "/bin/sh", "-c", "echo \"$0 $1\"; : >\"$1\"; exec sleep 30", NULL };
	const char *quitter[] = { "/bin/sh", "-c", "echo bye; exit 3", NULL };
	const char *ghost[] = { "hitchbench-ghost", NULL };
	char *tmp = test_tmpdir(), *run = xasprintf("%s/run", tmp), *stage = xasprintf("%s/stage", tmp);
	char *want = xasprintf("--ready %s/echoer.ready\n", stage), *log = xasprintf("%s/echoer.log", run);
	struct strbuf err = STRBUF_INIT;
	struct kvfile bench;
	struct switch_ctx ctx = { .run_dir = run, .stage_dir = stage, .helper_dir = tmp, .bench = &bench };
	struct switch_helper *h;
	char *text, *msg;
	size_t len;

	kvfile_init(&bench);
	ck_assert_int_eq(mkdir(run, 0755), 0);
	ck_assert_int_eq(mkdir(stage, 0755), 0);

	ck_assert_msg(switch_ctx_start_helper(&ctx, &ready, echoer, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(read_file(log, &text, &len), 0);
	ck_assert_str_eq(text, want);
	free(text);
	h = switch_ctx_helper(&ctx, "echoer");
	ck_assert_ptr_nonnull(h);
	ck_assert(!h->exited);
	ck_assert(h->grace_s == 7);

	ck_assert_int_eq(switch_ctx_start_helper(&ctx, &quits, quitter, &err), -ECHILD);
	msg = xasprintf("quitter exited before it was ready (see %s/what.log)", run);
	ck_assert_str_eq(err.buf, msg);
	free(msg);
	h = switch_ctx_helper(&ctx, "quitter");
	ck_assert(h && h->exited && WIFEXITED(h->status) && WEXITSTATUS(h->status) == 3);
	strbuf_reset(&err);

	/* found in helper_dir (no '/'), not there: not one of the helpers */
	ck_assert_int_eq(switch_ctx_start_helper(&ctx, &missing, ghost, &err), -ENOENT);
	msg = xasprintf("cannot start ghost ('%s/hitchbench-ghost'): %s", tmp, strerror(ENOENT));
	ck_assert_str_eq(err.buf, msg);
	free(msg);
	ck_assert_ptr_null(switch_ctx_helper(&ctx, "ghost"));
	ck_assert_uint_eq(ctx.n_helpers, 2);

	switch_ctx_stop_helpers(&ctx, 1.0);
	ck_assert_ptr_nonnull(kvfile_get(&bench, "helper.echoer"));
	ck_assert_ptr_nonnull(kvfile_get(&bench, "helper.quitter"));
	switch_ctx_release(&ctx);
	kvfile_release(&bench);
	strbuf_release(&err);
	remove_tree(tmp);
	free(tmp);
	free(run);
	free(stage);
	free(want);
	free(log);
}
END_TEST

TEST_SUITE(switch_suite)
{
	Suite *s = suite_create("switch");
	TCase *tc = tcase_create("switch");

	tcase_add_test(tc, none);
	tcase_add_test(tc, terms_and_labels);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, cpus_online);
	tcase_add_test(tc, token_lists);
	tcase_add_test(tc, prepare_hooks);
	tcase_add_test(tc, slowdown);
	tcase_add_test(tc, knob);
	tcase_add_test(tc, slowdown_flip);
	tcase_add_test(tc, helpers_ready);
	tcase_add_test(tc, start_helper);
	suite_add_tcase(s, tc);
	return s;
}
