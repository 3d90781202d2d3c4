/*
 * bench/target/push.c and bench/target/targets-check.c without a target: which build a
 * target gets, rsync's --stats as a real rsync prints them, push.txt
 * reading back, the program a recipe's command runs, and the check script
 * run by this machine's own /bin/sh (what ssh would run there): ~ resolved
 * against HOME, this machine's answers, a game's missing package named.
 */
#include "text/argv.h"
#include "text/kvfile.h"
#include "target/push.h"
#include "target/targets-check.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

START_TEST(decide)
{
	ck_assert_int_eq(push_decide("amd64", "amd64", false), PUSH_HOST_BUILD);
	ck_assert_int_eq(push_decide("amd64", "s390x", false), PUSH_CROSS);
	ck_assert_int_eq(push_decide("amd64", "amd64", true), PUSH_TARGET_BUILD);
	ck_assert_int_eq(push_decide(NULL, "ppc64", false), PUSH_CROSS);
	ck_assert_str_eq(push_how_name(PUSH_HOST_BUILD), "host-build");
	ck_assert_str_eq(push_how_name(PUSH_CROSS), "cross");
	ck_assert_str_eq(push_how_name(PUSH_TARGET_BUILD), "target-build");
	ck_assert_str_eq(push_arch_triplet("s390x"), "s390x-linux-gnu");
	ck_assert_str_eq(push_arch_triplet("ppc64"), "powerpc64-linux-gnu");
	ck_assert_str_eq(push_arch_triplet("arm64"), "aarch64-linux-gnu");
	ck_assert_str_eq(push_arch_triplet("amd64"), "x86_64-linux-gnu");
	ck_assert_ptr_null(push_arch_triplet("vax"));
}
END_TEST

/* rsync itself, between two directories here: 3 files, then one changed */
START_TEST(stats_of_real_rsync)
{
	char *dir = test_tmpdir(), *cmd, *out = NULL;
	struct push_stats st;
	FILE *p;
	size_t n;

	if (system("command -v rsync >/dev/null 2>&1") != 0) {
		test_skipped("no rsync");
		goto out;
	}
	test_put(dir, "a/x", "1");
	test_put(dir, "a/y", "22");
	test_put(dir, "a/sub/z", "333");
	cmd = xasprintf("cd %s && rsync -rlpc a/ b/ && echo 4444 >a/y && rsync -rlpc --delete-after --stats a/ b/ "
			"2>&1 | tail -n 20",
			dir);
	p = popen(cmd, "r");
	out = zalloc(65536);
	n = fread(out, 1, 65535, p);
	out[n] = '\0';
	ck_assert_int_eq(pclose(p), 0);
	free(cmd);
	ck_assert_int_eq(push_stats_parse(out, &st), 0);
	ck_assert_uint_eq(st.files, 1);
	ck_assert_uint_eq(st.deleted, 0);
	ck_assert_uint_gt(st.bytes_sent, 5);
	ck_assert_int_eq(push_stats_parse("Number of files: 3\n", &st), -EINVAL);
	ck_assert_int_eq(push_stats_parse("Number of regular files transferred: 1,234\nTotal bytes sent: 5,678,901\n",
					  &st), 0);
	ck_assert_uint_eq(st.files, 1234);
	ck_assert_uint_eq(st.bytes_sent, 5678901);
out:
	free(out);
	remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(push_txt)
{
	char *text = push_txt_format("v1.2-3-gabc", "s390x", PUSH_CROSS, 1700000000, "lab-pc");
	struct kvfile kv;
	int line;

	kvfile_init(&kv);
	ck_assert_int_eq(kvfile_parse(&kv, text, &line), 0);
	ck_assert_str_eq(kvfile_get(&kv, "format"), "1");
	ck_assert_str_eq(kvfile_get(&kv, "harness_version"), "v1.2-3-gabc");
	ck_assert_str_eq(kvfile_get(&kv, "arch"), "s390x");
	ck_assert_str_eq(kvfile_get(&kv, "how"), "cross");
	ck_assert_str_eq(kvfile_get(&kv, "pushed_utc"), "2023-11-14T22:13:20Z");
	ck_assert_str_eq(kvfile_get(&kv, "pushed_from"), "lab-pc");
	kvfile_release(&kv);
	free(text);
}
END_TEST

START_TEST(command_program)
{
	static const struct {
		const char *command, *program;
	} cases[] = {
		{ "stdbuf -oL /usr/games/armagetronad -w --playback x", "/usr/games/armagetronad" },
		{ "dsda-doom -iwad freedoom1.wad", "dsda-doom" },
		{ "env LANG=C nice -n 5 xmoto --demo x", "xmoto" },
		{ "env", NULL },
		{ "taskset 0x3 ./game", "./game" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct argv_list a;
		const char *why, *got;

		argv_init(&a);
		ck_assert_int_eq(argv_split(&a, cases[i].command, &why), 0);
		got = check_command_program(a.v);
		if (cases[i].program)
			ck_assert_str_eq(got, cases[i].program);
		else
			ck_assert_ptr_null(got);
		argv_release(&a);
	}
}
END_TEST

/* The script as ssh would run it, but by this machine's sh: its answers
 * are this machine's. */
START_TEST(script_here)
{
	struct check_game g[] = {
		{ "here", "", "sh" },
		{ "gone", "hitchbench-no-such-package", "/no/such/game" },
	};
	struct check_games games = { g, ARRAY_SIZE(g) };
	char *dir = test_tmpdir(), *script = check_script("~/hb", &games), *cmd, *out;
	struct kvfile kv;
	struct utsname u;
	FILE *p;
	size_t n;
	int line;

	test_put(dir, "script.sh", script);
	cmd = xasprintf("HOME=%s sh -s <%s/script.sh", dir, dir);
	p = popen(cmd, "r");
	out = zalloc(65536);
	n = fread(out, 1, 65535, p);
	out[n] = '\0';
	ck_assert_int_eq(pclose(p), 0);
	kvfile_init(&kv);
	ck_assert_int_eq(kvfile_parse(&kv, out, &line), 0);
	ck_assert_str_eq(kvfile_get(&kv, "reachable"), "yes");
	{
		char *want = xasprintf("%s/hb", dir);

		ck_assert_str_eq(kvfile_get(&kv, "prefix"), want);
		free(want);
	}
	ck_assert_int_eq(uname(&u), 0);
	ck_assert_str_eq(kvfile_get(&kv, "machine"), u.machine);
	ck_assert_str_eq(kvfile_get(&kv, "kernel"), u.release);
	ck_assert_uint_eq(strlen(kvfile_get(&kv, "boot_id")), 36);
	ck_assert_str_eq(kvfile_get(&kv, "game.here"), "ok");
	if (access("/usr/bin/dpkg-query", X_OK) == 0)
		ck_assert_str_eq(kvfile_get(&kv, "game.gone"), "hitchbench-no-such-package /no/such/game");
	else
		ck_assert_str_eq(kvfile_get(&kv, "game.gone"), "/no/such/game");
	ck_assert_str_eq(kvfile_get(&kv, "installed_version"), "");
	ck_assert_ptr_nonnull(kvfile_get(&kv, "mem_total_kb"));
	ck_assert_ptr_nonnull(kvfile_get(&kv, "disk_free_kb"));
	ck_assert_ptr_nonnull(kvfile_get(&kv, "build_missing"));
	ck_assert_str_eq(kvfile_get(&kv, "quieting"), getuid() == 0 ? "root" : kvfile_get(&kv, "quieting"));
	kvfile_release(&kv);
	free(out);
	free(cmd);
	free(script);
	remove_tree(dir);
	free(dir);
}
END_TEST

TEST_SUITE(push_suite)
{
	Suite *s = suite_create("push");
	TCase *tc = tcase_create("push");

	tcase_add_test(tc, decide);
	tcase_add_test(tc, stats_of_real_rsync);
	tcase_add_test(tc, push_txt);
	tcase_add_test(tc, command_program);
	tcase_add_test(tc, script_here);
	suite_add_tcase(s, tc);
	return s;
}
