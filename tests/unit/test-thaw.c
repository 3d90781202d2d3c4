/*
 * bench/quiet/thaw-journal.c: the journal's text round-trips (escapes included)
 * and bad journals are refused with their line. bench/quiet/thaw.c: restoring
 * goes in reverse order on a tree in a temporary directory, reads back,
 * reports a mismatch and keeps the journal then; journals of dead owners,
 * live owners, manual sessions and other boots are told apart.
 */
#include "system/fsroot.h"
#include "test.h"
#include "quiet/thaw.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char BOOT[] = "0fc3b0a5-7f6d-4b5e-9a53-b5a3c11d3e4f";

START_TEST(format_round_trip)
{
	struct thaw_owner o = { .pid = 4242, .starttime = 987654, .session = THAW_BATCH,
				.boot_id = (char *)BOOT, .root = (char *)"/tmp/a root",
				.since = (char *)"2026-11-30T10:00:00Z" };
	struct thaw_entry e[] = {
		{ THAW_FILE_SETTING, (char *)"sys/a b/c", (char *)"two words\\and\na newline\r" },
		{ THAW_UNIT, (char *)"display-manager.service", (char *)"active" },
		{ THAW_VT, (char *)"tty0", (char *)"1" },
		{ THAW_FILE_SETTING, (char *)"proc/empty", (char *)"" },
	};
	struct thaw_owner o2;
	struct thaw_entry *e2 = NULL;
	struct strbuf err = STRBUF_INIT;
	size_t n = 0;
	int line = 0;
	char *text = thaw_format(&o, e, ARRAY_SIZE(e));

	ck_assert_str_eq(text, "hitchbench-thaw 1\n"
			       "owner 4242 987654 batch\n"
			       "boot 0fc3b0a5-7f6d-4b5e-9a53-b5a3c11d3e4f\n"
			       "root /tmp/a root\n"
			       "since 2026-11-30T10:00:00Z\n"
			       "file sys/a\\sb/c two words\\\\and\\na newline\\r\n"
			       "unit display-manager.service active\n"
			       "vt tty0 1\n"
			       "file proc/empty \n");
	ck_assert_msg(thaw_parse(text, &o2, &e2, &n, &line, &err) == 0, "%d: %s", line, err.buf);
	ck_assert_int_eq(o2.pid, 4242);
	ck_assert_uint_eq(o2.starttime, 987654);
	ck_assert_int_eq(o2.session, THAW_BATCH);
	ck_assert_str_eq(o2.root, "/tmp/a root");
	ck_assert_uint_eq(n, ARRAY_SIZE(e));
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(e2[i].kind, e[i].kind);
		ck_assert_str_eq(e2[i].key, e[i].key);
		ck_assert_str_eq(e2[i].value, e[i].value);
	}
	thaw_entries_free(e2, n);
	thaw_owner_release(&o2);
	free(text);
	strbuf_release(&err);
}
END_TEST

START_TEST(parse_refused)
{
	static const char head[] = "hitchbench-thaw 1\nowner 4242 0 batch\nboot b\nroot /\nsince s\n";
#define BAD_OWNER "bad owner (expected 'owner PID STARTTIME batch|manual', PID 2 to 4194304, " \
		  "STARTTIME a whole number)"
#define BAD_PATH "a file entry's path must lie under proc/ or sys/ (no empty, '.' or '..' names)"
	static const struct {
		const char *text;
		int line;
		const char *why;
	} bad[] = {
		{ "hitchbench-thaw 2\n", 1, "journal format 2 is newer than this hitchbench (1)" },
		{ "something else\n", 1, "not a hitchbench thaw journal" },
		{ "hitchbench-thaw 1\nowner x 0 batch\n", 2, BAD_OWNER },
		{ "hitchbench-thaw 1\nowner 4242 0 batch\n", 0, "header incomplete (owner, boot, root and since are needed)" },
		/* a pid past an int wrapped to 1 (init: always alive, "another
		 * batch" for ever); pid 1 itself never quiets */
		{ "hitchbench-thaw 1\nowner 4294967297 0 batch\n", 2, BAD_OWNER },
		{ "hitchbench-thaw 1\nowner 1 0 batch\n", 2, BAD_OWNER },
		{ "hitchbench-thaw 1\nowner 0 0 batch\n", 2, BAD_OWNER },
		{ "hitchbench-thaw 1\nowner 4194305 0 batch\n", 2, BAD_OWNER },
		{ "hitchbench-thaw 1\nowner -4242 0 batch\n", 2, BAD_OWNER },
		/* a negative start time wrapped to a huge one */
		{ "hitchbench-thaw 1\nowner 4242 -1 batch\n", 2, BAD_OWNER },
		{ "hitchbench-thaw 1\nowner 4242 18446744073709551616 batch\n", 2, BAD_OWNER },
		{ "hitchbench-thaw 1\nowner 4242 +5 batch\n", 2, BAD_OWNER },
		{ "hitchbench-thaw 1\nowner 4242  0 batch\n", 2, BAD_OWNER },
		{ "hitchbench-thaw 1\nowner 4242 0 batch \n", 2, BAD_OWNER },
		{ "hitchbench-thaw 1\nowner 4242 0 daemon\n", 2, BAD_OWNER },
		/* a second owner used to replace the first without a word */
		{ "HEADowner 4243 0 batch\n", 6, "'owner' repeats line 2" },
		{ "HEADboot c\n", 6, "'boot' repeats line 3" },
		{ "HEADroot /tmp\n", 6, "'root' repeats line 4" },
		/* paths that climb out of the root, or are not under proc or sys */
		{ "HEADfile ../../etc/x 1\n", 6, BAD_PATH },
		{ "HEADfile proc/../../etc/x 1\n", 6, BAD_PATH },
		{ "HEADfile sys/.. 1\n", 6, BAD_PATH },
		{ "HEADfile /etc/passwd x\n", 6, BAD_PATH },
		{ "HEADfile etc/shadow x\n", 6, BAD_PATH },
		{ "HEADfile proc//x 1\n", 6, BAD_PATH },
		{ "HEADfile proc/./x 1\n", 6, BAD_PATH },
		{ "HEADfile proc/x/ 1\n", 6, BAD_PATH },
		{ "HEADfile proc 1\n", 6, BAD_PATH },
		{ "HEADunit -H\\sroot@evil active\n", 6, "not a systemd unit name" },
		{ "HEADunit a/b.service active\n", 6, "not a systemd unit name" },
		{ "HEADunit a.service inactive\n", 6, "a unit entry's state must be 'active'" },
		{ "HEADvt tty0 0\n", 6, "a vt entry is 'vt tty0 N', N 1 to 63" },
		{ "HEADvt tty1 1\n", 6, "a vt entry is 'vt tty0 N', N 1 to 63" },
		{ "HEADvt tty0 4294967297\n", 6, "a vt entry is 'vt tty0 N', N 1 to 63" },
		{ "HEADfile proc/x\n", 6, "expected 'KIND KEY VALUE'" },
		{ "HEADknob proc/x 1\n", 6, "unknown entry kind" },
		{ "HEADfile proc/x \\q\n", 6, "bad escape" },
		{ "HEADfile proc/x 1", 6, "the last line has no newline (a write was cut short)" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
		struct thaw_owner o;
		struct thaw_entry *e = NULL;
		size_t n = 0;
		int line = -1;

		if (str_startswith(bad[i].text, "HEAD")) {
			strbuf_addstr(&text, head);
			strbuf_addstr(&text, bad[i].text + 4);
		} else {
			strbuf_addstr(&text, bad[i].text);
		}
		ck_assert_int_eq(thaw_parse(text.buf, &o, &e, &n, &line, &err), -EINVAL);
		ck_assert_int_eq(line, bad[i].line);
		ck_assert_str_eq(err.buf, bad[i].why);
		strbuf_release(&text);
		strbuf_release(&err);
	}
#undef BAD_OWNER
#undef BAD_PATH
}
END_TEST

static char *root, *state;

static void put(const char *rel, const char *text)
{
	test_put(root, rel, text);
}

static char *get(const char *rel)
{
	char *path = xasprintf("%s/%s", root, rel), *text;

	ck_assert_int_eq(read_file(path, &text, NULL), 0);
	free(path);
	return text;
}

static void tree_setup(void)
{
	root = test_tmpdir();
	state = xasprintf("%s/state", root);
	put("proc/sys/kernel/random/boot_id", "0fc3b0a5-7f6d-4b5e-9a53-b5a3c11d3e4f\n");
	put("proc/sys/kernel/task_delayacct", "0\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "schedutil\n");
	fsroot_set(root);
}

static void tree_teardown(void)
{
	fsroot_set(NULL);
	remove_tree(root);
	free(root);
	free(state);
}

/* Journals a change and makes it, as quiet does. */
static void change(struct thaw_journal *j, const char *rel, const char *value)
{
	char *old;

	ck_assert_int_eq(thaw_read_setting(rel, &old), 0);
	ck_assert_int_eq(thaw_journal_add(j, THAW_FILE_SETTING, rel, old), 0);
	ck_assert_int_eq(thaw_write_setting(rel, value), 0);
	free(old);
}

START_TEST(restore_reverse)
{
	struct thaw_journal j;
	struct thaw_report rep;
	struct strbuf err = STRBUF_INIT;
	char *t, *jpath;

	thaw_journal_init(&j);
	thaw_report_init(&rep);
	ck_assert_int_eq(thaw_journal_open(&j, state, THAW_BATCH, &err), 0);
	ck_assert_int_eq(j.found, THAW_FOUND_NONE);
	change(&j, "proc/sys/kernel/task_delayacct", "1");
	change(&j, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance");
	/* the same setting twice: the first old value is the one kept */
	change(&j, "proc/sys/kernel/task_delayacct", "1");
	ck_assert_uint_eq(j.n, 2);
	/* the journal is on disk before anything else happens */
	jpath = xasprintf("%s/thaw.state", state);
	ck_assert_int_eq(read_file(jpath, &t, NULL), 0);
	ck_assert(strstr(t, "\nfile proc/sys/kernel/task_delayacct 0\n"
			    "file sys/devices/system/cpu/cpu0/cpufreq/scaling_governor schedutil\n"));
	ck_assert(strstr(t, "\nroot "));
	free(t);

	ck_assert_msg(thaw_restore(&j, &rep, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(rep.n, 2);
	ck_assert_uint_eq(rep.mismatches, 0);
	ck_assert_str_eq(rep.r[0].key, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	ck_assert_str_eq(rep.r[0].got, "schedutil");
	ck_assert_str_eq(rep.r[1].key, "proc/sys/kernel/task_delayacct");
	ck_assert(rep.r[1].ok);
	t = get("proc/sys/kernel/task_delayacct");
	ck_assert_str_eq(t, "0\n");
	free(t);
	t = get("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	ck_assert_str_eq(t, "schedutil\n");
	free(t);
	ck_assert_int_eq(access(jpath, F_OK), -1);
	free(jpath);
	thaw_report_release(&rep);
	thaw_journal_release(&j);
	strbuf_release(&err);
}
END_TEST

START_TEST(restore_mismatch_kept)
{
	struct thaw_journal j;
	struct thaw_report rep;
	struct strbuf err = STRBUF_INIT;
	char *jpath = xasprintf("%s/thaw.state", state);

	thaw_journal_init(&j);
	thaw_report_init(&rep);
	ck_assert_int_eq(thaw_journal_open(&j, state, THAW_BATCH, &err), 0);
	change(&j, "proc/sys/kernel/task_delayacct", "1");
	/* a setting whose file went away cannot be put back */
	ck_assert_int_eq(thaw_journal_add(&j, THAW_FILE_SETTING, "sys/gone", "x"), 0);
	ck_assert_int_eq(thaw_restore(&j, &rep, &err), -EIO);
	ck_assert_uint_eq(rep.mismatches, 1);
	ck_assert_str_eq(rep.r[0].key, "sys/gone");
	ck_assert(!rep.r[0].ok);
	ck_assert_ptr_null(rep.r[0].got);
	ck_assert_int_eq(rep.r[0].err, -ENOENT);
	ck_assert(rep.r[1].ok); /* the others are restored all the same */
	ck_assert(strstr(err.buf, "1 setting(s) did not come back"));
	ck_assert_int_eq(access(jpath, F_OK), 0);
	free(jpath);
	thaw_report_release(&rep);
	thaw_journal_release(&j);
	strbuf_release(&err);
}
END_TEST

/* A journal as another process would have left it. */
static void leave_journal(int pid, unsigned long long start, enum thaw_session s, const char *boot)
{
	struct thaw_owner o = { .pid = pid, .starttime = start, .session = s,
				.boot_id = (char *)boot, .root = root,
				.since = (char *)"2026-11-30T10:00:00Z" };
	struct thaw_entry e = { THAW_FILE_SETTING, (char *)"proc/sys/kernel/task_delayacct",
				(char *)"0" };
	char *text = thaw_format(&o, &e, 1);
	char *path = xasprintf("%s/thaw.state", state);

	ck_assert_int_eq(mkdir_p(state, 0700), 0);
	ck_assert_int_eq(write_file_atomic(path, text, strlen(text), 0600), 0);
	put("proc/sys/kernel/task_delayacct", "1\n");
	free(text);
	free(path);
}

static enum thaw_found open_found(enum thaw_session s, struct thaw_journal *j)
{
	struct strbuf err = STRBUF_INIT;

	thaw_journal_init(j);
	ck_assert_msg(thaw_journal_open(j, state, s, &err) == 0, "%s", err.buf);
	strbuf_release(&err);
	return j->found;
}

START_TEST(owners)
{
	struct thaw_journal j;
	struct thaw_report rep;
	struct strbuf err = STRBUF_INIT;
	char *t;

	/* pid 4242 is not under the root: dead, so the runner recovers it */
	leave_journal(4242, 100, THAW_BATCH, BOOT);
	ck_assert_int_eq(open_found(THAW_BATCH, &j), THAW_FOUND_DEAD);
	thaw_report_init(&rep);
	ck_assert_int_eq(thaw_recover(&j, &rep, &err), 0);
	ck_assert(strstr(rep.notes.buf, "restoring what a batch (pid 4242"));
	t = get("proc/sys/kernel/task_delayacct");
	ck_assert_str_eq(t, "0\n");
	free(t);
	/* and the journal is ours now */
	ck_assert_int_eq(thaw_journal_add(&j, THAW_VT, "tty0", "1"), 0);
	ck_assert_int_eq(j.owner.pid, getpid());
	thaw_report_release(&rep);
	thaw_journal_release(&j);

	/* alive, same start time: refused; another start time: a reused pid */
	put("proc/4242/stat", "4242 (hitchbench) S 1 4242 4242 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 100 0 0\n");
	leave_journal(4242, 100, THAW_BATCH, BOOT);
	ck_assert_int_eq(open_found(THAW_BATCH, &j), THAW_FOUND_ALIVE);
	thaw_report_init(&rep);
	strbuf_reset(&err);
	ck_assert_int_eq(thaw_recover(&j, &rep, &err), -EBUSY);
	ck_assert(strstr(err.buf, "a batch (pid 4242, since 2026-11-30T10:00:00Z) is quieting"));
	ck_assert_int_eq(thaw_journal_add(&j, THAW_VT, "tty0", "1"), -EBUSY);
	thaw_report_release(&rep);
	thaw_journal_release(&j);
	leave_journal(4242, 99, THAW_BATCH, BOOT);
	ck_assert_int_eq(open_found(THAW_BATCH, &j), THAW_FOUND_DEAD);
	thaw_journal_release(&j);

	/* another boot: stale, discarded, nothing written back */
	leave_journal(4242, 100, THAW_BATCH, "11111111-2222-3333-4444-555555555555");
	ck_assert_int_eq(open_found(THAW_BATCH, &j), THAW_FOUND_OTHER_BOOT);
	thaw_report_init(&rep);
	ck_assert_int_eq(thaw_recover(&j, &rep, &err), 0);
	ck_assert(strstr(rep.notes.buf, "from another boot"));
	t = get("proc/sys/kernel/task_delayacct");
	ck_assert_str_eq(t, "1\n");
	free(t);
	ck_assert(!j.exists);
	thaw_report_release(&rep);
	thaw_journal_release(&j);

	/* a manual session: a batch refuses it, another manual session adopts it */
	leave_journal(4242, 100, THAW_MANUAL, BOOT);
	ck_assert_int_eq(open_found(THAW_BATCH, &j), THAW_FOUND_MANUAL);
	thaw_report_init(&rep);
	strbuf_reset(&err);
	ck_assert_int_eq(thaw_recover(&j, &rep, &err), -EEXIST);
	ck_assert(strstr(err.buf, "'hitchbench thaw' gives it back first"));
	thaw_report_release(&rep);
	thaw_journal_release(&j);
	ck_assert_int_eq(open_found(THAW_MANUAL, &j), THAW_FOUND_MANUAL);
	thaw_report_init(&rep);
	ck_assert_int_eq(thaw_recover(&j, &rep, &err), 0);
	ck_assert_uint_eq(j.n, 1);
	ck_assert_str_eq(j.owner.since, "2026-11-30T10:00:00Z"); /* the session goes on */
	ck_assert_int_eq(j.owner.pid, getpid());
	thaw_report_release(&rep);
	thaw_journal_release(&j);

	/* another root's journal is not ours to touch */
	fsroot_set("/somewhere/else");
	ck_assert_int_eq(open_found(THAW_MANUAL, &j), THAW_FOUND_OTHER_ROOT);
	thaw_report_init(&rep);
	ck_assert_int_eq(thaw_restore(&j, &rep, &err), -EXDEV);
	thaw_report_release(&rep);
	thaw_journal_release(&j);
	fsroot_set(root);
	strbuf_release(&err);
}
END_TEST

/* A journal's text as someone else may have left it ("<NUL>": a NUL byte). */
static void leave_text(const char *entries)
{
	char *path = xasprintf("%s/thaw.state", state);
	char *text = xasprintf("hitchbench-thaw 1\nowner 4242 0 batch\nboot %s\nroot %s\n"
			       "since 2026-11-30T10:00:00Z\n%s", BOOT, root, entries);
	char *nul = strstr(text, "<NUL>");
	size_t len = strlen(text);

	if (nul) {
		*nul = '\0';
		memmove(nul + 1, nul + 5, strlen(nul + 5) + 1);
		len -= 4;
	}
	ck_assert_int_eq(mkdir_p(state, 0700), 0);
	ck_assert_int_eq(write_file_atomic(path, text, len, 0600), 0);
	free(text);
	free(path);
}

/* The journal is refused at open with its file:line; nothing is written. */
static void open_refused(const char *entries, const char *want)
{
	struct thaw_journal j;
	struct strbuf err = STRBUF_INIT;

	leave_text(entries);
	thaw_journal_init(&j);
	ck_assert_int_eq(thaw_journal_open(&j, state, THAW_BATCH, &err), -EINVAL);
	ck_assert_msg(strstr(err.buf, want), "%s", err.buf);
	thaw_journal_release(&j);
	strbuf_release(&err);
}

/* thaw wrote an entry's value wherever its path led, '..' included, and
 * said 'restored' */
START_TEST(escape_refused)
{
	char *t;

	put("victim", "untouched\n");
	open_refused("file proc/sys/kernel/task_delayacct 0\nfile proc/../victim owned\n",
		     "/thaw.state:7: a file entry's path must lie under proc/ or sys/");
	open_refused("file ../victim owned\n", "/thaw.state:6: a file entry's path");
	open_refused("owner 4243 0 batch\n", "/thaw.state:6: 'owner' repeats line 2");
	open_refused("file proc/x 1\n<NUL>file ../victim owned\n", "/thaw.state:7: NUL byte");
	t = get("victim");
	ck_assert_str_eq(t, "untouched\n");
	free(t);
	{
		/* an owner past an int, on disk */
		char *path = xasprintf("%s/thaw.state", state);
		char *text = xasprintf("hitchbench-thaw 1\nowner 4294967297 0 batch\n");
		struct thaw_journal j;
		struct strbuf err = STRBUF_INIT;

		ck_assert_int_eq(write_file_atomic(path, text, strlen(text), 0600), 0);
		thaw_journal_init(&j);
		ck_assert_int_eq(thaw_journal_open(&j, state, THAW_BATCH, &err), -EINVAL);
		ck_assert_msg(strstr(err.buf, "/thaw.state:2: bad owner"), "%s", err.buf);
		thaw_journal_release(&j);
		strbuf_release(&err);
		free(text);
		free(path);
	}
}
END_TEST

/* A path that reads well but leads out through a link: the write is
 * refused (resolved beneath root/sys only), the entry a mismatch, the
 * file outside untouched. A link that stays beneath (sysfs's cpufreq ->
 * ../cpufreq/policy0) is followed. */
START_TEST(link_escape_refused)
{
	struct thaw_journal j;
	struct thaw_report rep;
	struct strbuf err = STRBUF_INIT;
	char *path, *abs, *t;

	put("victim", "untouched\n");
	put("sys/devices/system/cpu/cpufreq/policy0/scaling_governor", "performance\n");
	path = xasprintf("%s/sys/devices/system/cpu/cpu1/cpufreq", root);
	ck_assert_int_eq(mkdir_p(path, 0755), 0);
	ck_assert_int_eq(rmdir(path), 0);
	ck_assert_int_eq(symlink("../cpufreq/policy0", path), 0);
	free(path);
	path = xasprintf("%s/sys/up", root);
	ck_assert_int_eq(symlink("..", path), 0);
	free(path);
	path = xasprintf("%s/sys/abs", root);
	ck_assert_int_eq(symlink(root, path), 0);
	free(path);
	path = xasprintf("%s/sys/last", root);
	abs = xasprintf("%s/victim", root);
	ck_assert_int_eq(symlink(abs, path), 0);
	free(abs);
	free(path);
	path = xasprintf("%s/sys/rel", root);
	ck_assert_int_eq(symlink("../victim", path), 0);
	free(path);

	leave_text("file sys/devices/system/cpu/cpu1/cpufreq/scaling_governor schedutil\n"
		   "file sys/up/victim owned\n"
		   "file sys/abs/victim owned\n"
		   "file sys/last owned\n"
		   "file sys/rel owned\n");
	thaw_journal_init(&j);
	thaw_report_init(&rep);
	ck_assert_msg(thaw_journal_open(&j, state, THAW_BATCH, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(j.found, THAW_FOUND_DEAD);
	ck_assert_int_eq(thaw_restore(&j, &rep, &err), -EIO);
	ck_assert_uint_eq(rep.n, 5);
	ck_assert_uint_eq(rep.mismatches, 4);
	for (size_t i = 0; i < 4; i++) {
		struct strbuf line = STRBUF_INIT;

		ck_assert_msg(!rep.r[i].ok && rep.r[i].err < 0 && !rep.r[i].got, "%s", rep.r[i].key);
		thaw_result_describe(&rep.r[i], &line);
		ck_assert_msg(str_startswith(line.buf, "MISMATCH"), "%s", line.buf);
		strbuf_release(&line);
	}
	ck_assert_int_eq(rep.r[3].err, -EXDEV); /* sys/up/victim */
	ck_assert_int_eq(rep.r[2].err, -EXDEV); /* sys/abs/victim */
	ck_assert_int_eq(rep.r[1].err, -ELOOP); /* sys/last */
	ck_assert_int_eq(rep.r[0].err, -ELOOP); /* sys/rel */
	ck_assert(rep.r[4].ok);
	t = get("victim");
	ck_assert_str_eq(t, "untouched\n");
	free(t);
	t = get("sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
	ck_assert_str_eq(t, "schedutil\n");
	free(t);
	thaw_report_release(&rep);
	thaw_journal_release(&j);
	strbuf_release(&err);
}
END_TEST

START_TEST(one_at_a_time)
{
	struct thaw_journal a, b;
	struct strbuf err = STRBUF_INIT;

	thaw_journal_init(&a);
	thaw_journal_init(&b);
	ck_assert_int_eq(thaw_journal_open(&a, state, THAW_BATCH, &err), 0);
	ck_assert_int_eq(thaw_journal_open(&b, state, THAW_BATCH, &err), -EBUSY);
	ck_assert(strstr(err.buf, "another hitchbench is quieting or thawing this machine"));
	thaw_journal_release(&a);
	ck_assert_int_eq(thaw_journal_open(&b, state, THAW_BATCH, &err), 0);
	thaw_journal_release(&b);
	strbuf_release(&err);
}
END_TEST

START_TEST(state_dir)
{
	char *d;

	setenv(HB_STATE_DIR_ENV, "/x/y", 1);
	d = thaw_state_dir();
	ck_assert_str_eq(d, "/x/y");
	free(d);
	unsetenv(HB_STATE_DIR_ENV);
	d = thaw_state_dir();
	if (geteuid() == 0)
		ck_assert_str_eq(d, "/var/lib/hitchbench");
	else
		ck_assert(strstr(d, "/hitchbench"));
	free(d);
}
END_TEST

TEST_SUITE(thaw_suite)
{
	Suite *s = suite_create("thaw");
	TCase *fmt = tcase_create("format");
	TCase *tree = tcase_create("restore");

	tcase_add_test(fmt, format_round_trip);
	tcase_add_test(fmt, parse_refused);
	tcase_add_test(fmt, state_dir);
	suite_add_tcase(s, fmt);
	tcase_add_checked_fixture(tree, tree_setup, tree_teardown);
	tcase_add_test(tree, restore_reverse);
	tcase_add_test(tree, restore_mismatch_kept);
	tcase_add_test(tree, owners);
	tcase_add_test(tree, one_at_a_time);
	tcase_add_test(tree, escape_refused);
	tcase_add_test(tree, link_escape_refused);
	suite_add_tcase(s, tree);
	return s;
}
