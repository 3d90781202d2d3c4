/*
 * bench/target/targets.c: the targets config reads into targets with their
 * parsed addresses, refuses a bad file with the line at fault, and a
 * rewrite (add, remove, a new arch) leaves every other target's lines as
 * they were, comments included, even when another writer changed the file
 * after this one read it.
 */
#include "target/targets.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

static const char two_targets[] =
	"; the lab\n"
	"version = 1\n"
	"\n"
	"[ps3]\n"
	"; the PS3 under the desk\n"
	"url = ssh://root@ps3.lan:2222\n"
	"prefix = /home/root/hb   ; by hand\n"
	"arch = ppc64\n"
	"\n"
	"; the board\n"
	"[board-1]\n"
	"url = ssh://pi@10.0.0.9\n"
	"ssh_config = /home/me/.ssh/lab\n";

/* A config file in a directory of its own (text NULL: none there yet)
 * and a list to load it into. */
struct cfg {
	char *dir, *path;
	struct target_list l;
	struct strbuf err;
};

static void cfg_open(struct cfg *c, const char *text)
{
	c->dir = test_tmpdir();
	if (text) {
		test_put(c->dir, "targets.ini", text);
		c->path = xasprintf("%s/targets.ini", c->dir);
	} else {
		c->path = xasprintf("%s/none/targets.ini", c->dir);
	}
	target_list_init(&c->l);
	strbuf_init(&c->err);
}

static void cfg_close(struct cfg *c)
{
	target_list_release(&c->l);
	strbuf_release(&c->err);
	remove_tree(c->dir);
	free(c->path);
	free(c->dir);
}

static void assert_file(const char *path, const char *want)
{
	char *text;

	ck_assert_int_eq(read_file(path, &text, NULL), 0);
	ck_assert_str_eq(text, want);
	free(text);
}

START_TEST(load_fields)
{
	struct cfg c;
	const struct ssh_target *t;
	char *again;

	cfg_open(&c, two_targets);
	ck_assert_int_eq(targets_load(c.path, &c.l, &c.err), 0);
	ck_assert_uint_eq(c.l.n, 2);
	t = targets_find(&c.l, "ps3");
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->url, "ssh://root@ps3.lan:2222");
	ck_assert_str_eq(t->user, "root");
	ck_assert_str_eq(t->host, "ps3.lan");
	ck_assert_int_eq(t->port, 2222);
	ck_assert_str_eq(t->prefix, "/home/root/hb");
	ck_assert_ptr_null(t->ssh_config);
	ck_assert_str_eq(targets_entry(&c.l, "ps3")->arch, "ppc64");
	t = targets_find(&c.l, "board-1");
	ck_assert_str_eq(t->ssh_config, "/home/me/.ssh/lab");
	ck_assert_ptr_null(t->prefix);
	ck_assert_ptr_null(targets_entry(&c.l, "board-1")->arch);
	ck_assert_ptr_null(targets_find(&c.l, "nope"));
	/* nothing changed: written back byte for byte */
	again = targets_format(&c.l);
	ck_assert_str_eq(again, two_targets);
	free(again);
	cfg_close(&c);
}
END_TEST

START_TEST(missing_file)
{
	struct cfg c;
	const char *why = NULL;

	cfg_open(&c, NULL);
	ck_assert_int_eq(targets_load(c.path, &c.l, &c.err), 0);
	ck_assert_uint_eq(c.err.len, 0);
	ck_assert_uint_eq(c.l.n, 0);
	ck_assert_int_eq(targets_add(&c.l, "t", "ssh://127.0.0.1:2200", NULL, NULL, NULL, &why), 0);
	ck_assert_int_eq(targets_save(&c.l, &c.err), 0);
	assert_file(c.path, "; hitchbench targets (docs/targets.md)\nversion = 1\n\n[t]\nurl = ssh://127.0.0.1:2200\n");
	ck_assert_uint_eq(c.l.n, 1);
	ck_assert_int_eq(targets_find(&c.l, "t")->port, 2200);
	cfg_close(&c);
}
END_TEST

START_TEST(bad_files)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "version = 2\n", ":1: version '2' is not one this hitchbench reads (1)" },
		{ "url = ssh://x\n", ":1: 'url' before the first target (only 'version' is there)" },
		{ "version = 1\n[a]\nurl = ssh://x\nport = 22\n",
		  ":4: unknown key 'port' in target 'a' (url, prefix, ssh_config, arch)" },
		{ "[a]\nprefix = /x\n\n[b]\nurl = ssh://y\n", ":1: target 'a' has no url" },
		{ "[a]\nurl = ssh://x\n[b]\nurl = ssh://y\n[a]\nurl = ssh://z\n", ":5: target 'a' again (first at line 1)" },
		{ "[a]\nurl = http://x\n", ":2: url 'http://x': not an ssh:// address" },
		{ "[a]\nurl = ssh://x:99999\n", ":2: url 'ssh://x:99999': the port is not a number" },
		{ "[a]\nurl = ssh://x\nurl = ssh://y\n", ":3: 'url' again in target 'a'" },
		{ "[a]\nurl = ssh://x\narch = PowerPC\n", ":3: 'arch' is not a Debian architecture name" },
		{ "[a]\nurl = ssh://x\nprefix =\n", ":3: 'prefix' is empty" },
		{ "[-a]\nurl = ssh://x\n", ":1: '-a' is not a target name" },
		/* issue 38 */
		{ "[a]\nurl = ssh://-oProxyCommand=x\n", ":2: url 'ssh://-oProxyCommand=x': the host name starts with '-'" },
		{ "[a]\n\nurl = ssh://-l@h\n", ":3: url 'ssh://-l@h': the user name starts with '-'" },
		{ "[a]\nurl = ssh://x\njust words\n", ":3: expected 'key = value' or '[target]'" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cfg c;
		char *want;

		cfg_open(&c, cases[i].text);
		want = xasprintf("%s%s", c.path, cases[i].msg);
		ck_assert_msg(targets_load(c.path, &c.l, &c.err) == -EINVAL, "case %zu loaded", i);
		ck_assert_msg(str_startswith(c.err.buf, want), "case %zu: [%s], wanted [%s]", i, c.err.buf, want);
		ck_assert_uint_eq(c.l.n, 0);
		free(want);
		cfg_close(&c);
	}
}
END_TEST

/* A new arch for board-1 and a removed ps3: what is left is byte for byte
 * what was there, the edited section's comments where they were. */
START_TEST(rewrite_keeps_lines)
{
	struct cfg c;
	const char *why;
	char *text;

	cfg_open(&c, two_targets);
	ck_assert_int_eq(targets_load(c.path, &c.l, &c.err), 0);
	ck_assert_int_eq(targets_set_arch(&c.l, "ps3", "s390x"), 0);
	text = targets_format(&c.l);
	ck_assert_str_eq(text, "; the lab\nversion = 1\n\n[ps3]\n; the PS3 under the desk\n"
			       "url = ssh://root@ps3.lan:2222\nprefix = /home/root/hb   ; by hand\narch = s390x\n\n"
			       "; the board\n[board-1]\nurl = ssh://pi@10.0.0.9\nssh_config = /home/me/.ssh/lab\n");
	free(text);

	ck_assert_int_eq(targets_set_arch(&c.l, "board-1", "arm64"), 0);
	ck_assert_int_eq(targets_remove(&c.l, "ps3"), 0);
	ck_assert_int_eq(targets_remove(&c.l, "ps3"), -ENOENT);
	ck_assert_int_eq(targets_set_arch(&c.l, "ps3", "x"), -ENOENT);
	ck_assert_int_eq(targets_add(&c.l, "new", "ssh://h", "~/hb", NULL, NULL, &why), 0);
	ck_assert_int_eq(targets_add(&c.l, "new", "ssh://h", NULL, NULL, NULL, &why), -EEXIST);
	ck_assert_int_eq(targets_add(&c.l, "bad name", "ssh://h", NULL, NULL, NULL, &why), -EINVAL);
	ck_assert_int_eq(targets_add(&c.l, "x", "ssh://", NULL, NULL, NULL, &why), -EINVAL);
	ck_assert_int_eq(targets_add(&c.l, "x", "ssh://h", NULL, NULL, "Power PC", &why), -EINVAL);
	ck_assert_ptr_null(targets_find(&c.l, "x"));
	ck_assert_int_eq(targets_save(&c.l, &c.err), 0);
	assert_file(c.path, "; the lab\nversion = 1\n\n"
			    "[board-1]\nurl = ssh://pi@10.0.0.9\nssh_config = /home/me/.ssh/lab\narch = arm64\n\n"
			    "[new]\nurl = ssh://h\nprefix = ~/hb\n");
	cfg_close(&c);
}
END_TEST

/* Two commands that read the file before either wrote: the second's save
 * keeps the first's target, and what it did not touch is not undone. */
START_TEST(save_merges_other_writers)
{
	struct cfg c;
	struct target_list b;
	const char *why;
	char *text;
	struct stat st;
	DIR *d;
	struct dirent *de;
	size_t files = 0;

	cfg_open(&c, two_targets);
	chmod(c.path, 0600);
	target_list_init(&b);
	ck_assert_int_eq(targets_load(c.path, &c.l, &c.err), 0);
	ck_assert_int_eq(targets_load(c.path, &b, &c.err), 0);
	ck_assert_int_eq(targets_add(&c.l, "from-a", "ssh://a", NULL, NULL, NULL, &why), 0);
	ck_assert_int_eq(targets_remove(&c.l, "board-1"), 0);
	ck_assert_int_eq(targets_save(&c.l, &c.err), 0);
	ck_assert_int_eq(targets_set_arch(&b, "ps3", "amd64"), 0);
	ck_assert_int_eq(targets_add(&b, "from-b", "ssh://b", NULL, NULL, NULL, &why), 0);
	ck_assert_int_eq(targets_save(&b, &c.err), 0);
	ck_assert_uint_eq(b.n, 3);
	ck_assert_ptr_null(targets_find(&b, "board-1"));
	ck_assert_ptr_nonnull(targets_find(&b, "from-a"));
	ck_assert_str_eq(targets_entry(&b, "ps3")->arch, "amd64");
	ck_assert_int_eq(read_file(c.path, &text, NULL), 0);
	ck_assert_ptr_nonnull(strstr(text, "[from-a]\nurl = ssh://a\n\n[from-b]\nurl = ssh://b\n"));
	ck_assert_ptr_nonnull(strstr(text, "; the PS3 under the desk\n"));
	free(text);
	/* the file's mode kept; nothing but the file left in its directory */
	ck_assert_int_eq(stat(c.path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	d = opendir(c.dir);
	while ((de = readdir(d)))
		files += de->d_name[0] != '.';
	closedir(d);
	ck_assert_uint_eq(files, 1);
	target_list_release(&b);
	cfg_close(&c);
}
END_TEST

START_TEST(default_path)
{
	char *p;

	setenv("HITCHBENCH_TARGETS", "/x/t.ini", 1);
	p = targets_default_path();
	ck_assert_str_eq(p, "/x/t.ini");
	free(p);
	unsetenv("HITCHBENCH_TARGETS");
	setenv("XDG_CONFIG_HOME", "/cfg", 1);
	p = targets_default_path();
	ck_assert_str_eq(p, "/cfg/hitchbench/targets.ini");
	free(p);
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", "/home/u", 1);
	p = targets_default_path();
	ck_assert_str_eq(p, "/home/u/.config/hitchbench/targets.ini");
	free(p);
}
END_TEST

TEST_SUITE(targets_suite)
{
	Suite *s = suite_create("targets");
	TCase *tc = tcase_create("targets");

	tcase_add_test(tc, load_fields);
	tcase_add_test(tc, missing_file);
	tcase_add_test(tc, bad_files);
	tcase_add_test(tc, rewrite_keeps_lines);
	tcase_add_test(tc, save_merges_other_writers);
	tcase_add_test(tc, default_path);
	suite_add_tcase(s, tc);
	return s;
}
