/*
 * Kernel campaigns (issue 21): common/system/grubcfg.c on the Debian 12 grub.cfg
 * of tests/fixtures/kernel-root and on made-up corners (a separate /boot,
 * quoting, broken files); common/formats/kernelwish.c's file, decision and
 * installed check; and 'lab ensure-kernel' (bench/cmd/lab-kernel.c) end to end
 * on the fixture root with a stand-in scontrol first in PATH that records
 * its arguments (no Slurm is asked anything).
 */
#include "base/exitcodes.h"
#include "system/fsroot.h"
#include "system/grubcfg.h"
#include "formats/kernelwish.h"
#include "cmd/lab-kernel.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BOOT_ID "9b0e6c53-2f4a-4d8e-a1c7-5e3b9f0d2c61" /* the fixture root's */
#define ADV "Advanced options for Debian GNU/Linux>"

static void menu_of_fixture(struct grub_menu *m)
{
	struct strbuf why = STRBUF_INIT;
	char *text = NULL;

	ck_assert_int_eq(read_file(fixture_path("kernel-root/boot/grub/grub.cfg"), &text, NULL), 0);
	grub_menu_init(m);
	ck_assert_int_eq(grub_menu_parse(text, m, &why), 0);
	free(text);
	strbuf_release(&why);
}

START_TEST(grub_debian12)
{
	struct grub_menu m;
	const struct grub_entry *e;

	menu_of_fixture(&m);
	/* the first entry, three kernels with their recovery entries, firmware */
	ck_assert_uint_eq(m.n, 8);
	ck_assert_str_eq(m.v[0].path, "Debian GNU/Linux");
	ck_assert_str_eq(m.v[0].release, "6.1.0-18-amd64");
	ck_assert_str_eq(m.v[0].id, "gnulinux-simple-3f1c2a9e-5b7d-4e21-9c0a-8d6e4b2f7a10");
	ck_assert_str_eq(m.v[2].path, ADV "Debian GNU/Linux, with Linux 6.1.0-18-amd64 (recovery mode)");
	ck_assert(m.v[2].recovery);
	ck_assert_str_eq(m.v[7].path, "UEFI Firmware Settings");
	ck_assert_ptr_null(m.v[7].image);
	/* the newest kernel: the first entry boots it */
	e = grub_menu_find(&m, "6.1.0-18-amd64");
	ck_assert_ptr_eq(e, &m.v[0]);
	/* an older one: the submenu's normal entry, never the recovery one */
	e = grub_menu_find(&m, "6.1.0-17-amd64");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->path, ADV "Debian GNU/Linux, with Linux 6.1.0-17-amd64");
	ck_assert_str_eq(e->image, "/boot/vmlinuz-6.1.0-17-amd64");
	ck_assert(!e->recovery);
	ck_assert_int_eq(e->line, 147);
	e = grub_menu_find(&m, "6.1.0-13-amd64+rt");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->title, "Debian GNU/Linux, with Linux 6.1.0-13-amd64+rt");
	ck_assert_ptr_null(grub_menu_find(&m, "6.1.0-13-amd64"));
	ck_assert_ptr_null(grub_menu_find(&m, "6.1.0-1"));
	grub_menu_release(&m);
}
END_TEST

START_TEST(grub_corners)
{
	/* a separate /boot (images at the file system's top), a recovery entry
	 * first, a quote in a title as grub-mkconfig escapes it, "..." with
	 * escapes, ';' between commands, a nested submenu, a comment */
	const char *text =
		"menuentry 'Other, with Linux 6.5.0 (recovery mode)' { linux /vmlinuz-6.5.0 ro single; }\n"
		"submenu \"Kernels \\\"lab\\\"\" {\n"
		"  submenu 'Bob'\\''s' --id bob {\n"
		"    menuentry 'Linux 6.5.0' --id l65 { # the one\n"
		"\tlinux\t/vmlinuz-6.5.0 root=/dev/sda2 ro quiet\n"
		"    }\n"
		"  }\n"
		"}\n";
	struct strbuf why = STRBUF_INIT;
	const struct grub_entry *e;
	struct grub_menu m;

	grub_menu_init(&m);
	ck_assert_int_eq(grub_menu_parse(text, &m, &why), 0);
	ck_assert_uint_eq(m.n, 2);
	ck_assert(m.v[0].recovery);
	e = grub_menu_find(&m, "6.5.0");
	ck_assert_ptr_eq(e, &m.v[1]);
	ck_assert_str_eq(e->path, "Kernels \"lab\">Bob's>Linux 6.5.0");
	ck_assert_str_eq(e->id, "l65");
	ck_assert_int_eq(e->line, 4);
	grub_menu_release(&m);

	/* what a broken file says */
	grub_menu_init(&m);
	ck_assert_int_eq(grub_menu_parse("menuentry 'a {\n}\n", &m, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "1: a quote is never closed");
	strbuf_reset(&why);
	ck_assert_int_eq(grub_menu_parse("set a=1\n}\n", &m, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "2: '}' closes no block");
	strbuf_reset(&why);
	ck_assert_int_eq(grub_menu_parse("submenu 'a' {\n menuentry 'b' {\n }\n", &m, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "4: the file ends inside a block");
	/* issue 38: an entry with two ids is refused (it once kept the last
	 * and leaked the first) */
	strbuf_reset(&why);
	ck_assert_int_eq(grub_menu_parse("menuentry 'a' --id one $menuentry_id_option two {\n}\n", &m, &why),
			 -EINVAL);
	ck_assert_str_eq(why.buf, "1: menuentry 'a' has two ids ('one' and 'two')");
	strbuf_reset(&why);
	ck_assert_int_eq(grub_menu_parse("menuentry 'b' --class x --id b1 {\n}\n", &m, &why), 0);
	ck_assert_str_eq(m.v[m.n - 1].id, "b1");
	/* an id's word that is "--id" itself is the id, not a second one */
	ck_assert_int_eq(grub_menu_parse("menuentry 'c' --id --id {\n}\n", &m, &why), 0);
	ck_assert_str_eq(m.v[m.n - 1].id, "--id");
	/* a quoted '{' opens nothing */
	strbuf_reset(&why);
	ck_assert_int_eq(grub_menu_parse("echo '{'\n", &m, &why), 0);
	grub_menu_release(&m);
	strbuf_release(&why);
}
END_TEST

START_TEST(grub_default)
{
	char *text = NULL;

	ck_assert_int_eq(read_file(fixture_path("kernel-root/etc/default/grub"), &text, NULL), 0);
	ck_assert_int_eq(grub_default_is_saved(text), 1);
	free(text);
	ck_assert_int_eq(grub_default_is_saved("GRUB_DEFAULT=0\n"), 0);
	ck_assert_int_eq(grub_default_is_saved("GRUB_DEFAULT=\"saved\"\r\n"), 1);
	ck_assert_int_eq(grub_default_is_saved("GRUB_DEFAULT=saved\nGRUB_DEFAULT=2\n"), 0);
	ck_assert_int_eq(grub_default_is_saved("#GRUB_DEFAULT=saved\n"), 0);
	ck_assert_int_eq(grub_default_is_saved(""), 0);
}
END_TEST

START_TEST(wish_file)
{
	struct kernel_wish w = { .format = 1, .kernel = "6.1.0-17-amd64", .method = KERNEL_BOOT_KEXEC,
				 .boot_id = BOOT_ID, .asked = 1764711600, .job_id = "42", .node = "n1" };
	struct strbuf why = STRBUF_INIT;
	struct kernel_wish r;
	char *text = kernel_wish_format(&w);

	ck_assert_str_eq(text, "format=1\nkernel=6.1.0-17-amd64\nmethod=kexec\nboot_id=" BOOT_ID "\n"
			       "asked=1764711600\nasked_utc=2025-12-02T21:40:00Z\njob_id=42\nnode=n1\n");
	ck_assert_int_eq(kernel_wish_parse(text, &r, &why), 0);
	ck_assert_mem_eq(&r, &w, sizeof(w));
	free(text);
	/* outside a job the two are empty and optional */
	ck_assert_int_eq(kernel_wish_parse("format=1\nkernel=6.1\nmethod=grub\nboot_id=x\nasked=0\n", &r, &why), 0);
	ck_assert_str_eq(r.job_id, "");

#define BAD(text, msg)                                                    \
	do {                                                              \
		strbuf_reset(&why);                                       \
		ck_assert_int_eq(kernel_wish_parse(text, &r, &why), -EINVAL); \
		ck_assert_str_eq(why.buf, msg);                           \
	} while (0)
	BAD("kernel=6.1\n", "no format=");
	BAD("format=2\nkernel=6.1\n", "format 2 is newer than this program's 1");
	BAD("format=1\nmethod=grub\n", "no kernel=");
	BAD("format=1\nkernel=../x\nmethod=grub\nboot_id=x\nasked=0\n", "kernel=../x is not a kernel release");
	BAD("format=1\nkernel=6.1\nmethod=pxe\nboot_id=x\nasked=0\n", "method=pxe is neither grub nor kexec");
	BAD("format=1\nkernel=6.1\nmethod=grub\nboot_id=x\nasked=soon\n", "asked= is not seconds since the epoch");
	BAD("format=1\nnot a pair\n", "line 2: not a key=value line");
	/* a second kernel= before the one asked: not read as the first */
	BAD("format=1\nkernel=6.1.0-9-amd64\nkernel=6.1\nmethod=grub\nboot_id=x\nasked=0\n",
	    "line 3: key 'kernel' repeats line 2");
#undef BAD
	ck_assert(kernel_release_valid("6.1.0-13-amd64+rt"));
	ck_assert(!kernel_release_valid(""));
	ck_assert(!kernel_release_valid("6.1 x"));
	ck_assert(!kernel_release_valid("a/b"));
	ck_assert(!kernel_release_valid("-x"));
	strbuf_release(&why);
}
END_TEST

START_TEST(wish_decide)
{
	struct kernel_wish w = { .format = 1, .kernel = "6.1.0-17-amd64", .boot_id = BOOT_ID };

	ck_assert_int_eq(kernel_wish_decide("6.1.0-17-amd64", BOOT_ID, "6.1.0-17-amd64", NULL), KERNEL_RUNNING);
	ck_assert_int_eq(kernel_wish_decide("6.1.0-18-amd64", BOOT_ID, "6.1.0-17-amd64", NULL), KERNEL_REBOOT);
	/* asked in this boot: not rebooted yet, ask again */
	ck_assert_int_eq(kernel_wish_decide("6.1.0-18-amd64", BOOT_ID, "6.1.0-17-amd64", &w), KERNEL_REBOOT);
	/* asked in an earlier boot, and still the wrong kernel: no loop */
	ck_assert_int_eq(kernel_wish_decide("6.1.0-18-amd64", "other", "6.1.0-17-amd64", &w), KERNEL_MISSED);
	/* the old wish was for another kernel: this one was never tried */
	ck_assert_int_eq(kernel_wish_decide("6.1.0-18-amd64", "other", "6.1.0-13-amd64+rt", &w), KERNEL_REBOOT);
	ck_assert_int_eq(kernel_wish_decide("6.1.0-17-amd64", "other", "6.1.0-17-amd64", &w), KERNEL_RUNNING);
}
END_TEST

START_TEST(installed)
{
	struct strbuf why = STRBUF_INIT;

	fsroot_set(fixture_path("kernel-root"));
	ck_assert_int_eq(kernel_installed("6.1.0-17-amd64", KERNEL_BOOT_GRUB, &why), 0);
	ck_assert_int_eq(kernel_installed("6.1.0-17-amd64", KERNEL_BOOT_KEXEC, &why), 0);
	ck_assert_int_eq(kernel_installed("6.1.0-13-amd64+rt", KERNEL_BOOT_GRUB, &why), 0);
	ck_assert_int_eq(kernel_installed("6.1.0-13-amd64+rt", KERNEL_BOOT_KEXEC, &why), -ENOENT);
	ck_assert_str_eq(why.buf, "boot/initrd.img-6.1.0-13-amd64+rt: No such file or directory");
	strbuf_reset(&why);
	ck_assert_int_eq(kernel_installed("6.5.0", KERNEL_BOOT_GRUB, &why), -ENOENT);
	ck_assert_str_eq(why.buf, "boot/vmlinuz-6.5.0: No such file or directory");
	fsroot_set(NULL);
	strbuf_release(&why);
}
END_TEST

/* ---- lab ensure-kernel on the fixture root ---- */

struct ensure_env {
	char *dir, *wish, *log;
};

/* The fixture root, the wish in a fresh directory, a stand-in scontrol
 * (logging its arguments, exiting $FAKE_SCONTROL_RC) first in PATH, and a
 * job's environment. */
static void ensure_setup(struct ensure_env *t)
{
	char *bin, *prog, *path;

	t->dir = test_tmpdir();
	t->wish = xasprintf("%s/var/lib/hitchbench/kernel-wish", t->dir); /* its directories made on the way */
	t->log = xasprintf("%s/scontrol.log", t->dir);
	test_put(t->dir, "bin/scontrol",
		 "#!/bin/sh\necho \"$*\" >>\"$FAKE_SCONTROL_LOG\"\n"
		 "[ \"${FAKE_SCONTROL_RC:-0}\" = 0 ] || echo 'scontrol: error: Access/permission denied' >&2\n"
		 "exit ${FAKE_SCONTROL_RC:-0}\n");
	prog = xasprintf("%s/bin/scontrol", t->dir);
	ck_assert_int_eq(chmod(prog, 0755), 0);
	bin = xasprintf("%s/bin", t->dir);
	path = xasprintf("%s:%s", bin, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	setenv("FAKE_SCONTROL_LOG", t->log, 1);
	setenv(KERNEL_WISH_ENV, t->wish, 1);
	setenv("SLURMD_NODENAME", "n1", 1);
	setenv("SLURM_JOB_ID", "42", 1);
	unsetenv("FAKE_SCONTROL_RC");
	fsroot_set(fixture_path("kernel-root"));
	free(prog);
	free(bin);
	free(path);
}

static void ensure_teardown(struct ensure_env *t)
{
	fsroot_set(NULL);
	unsetenv(KERNEL_WISH_ENV);
	remove_tree(t->dir);
	free(t->dir);
	free(t->wish);
	free(t->log);
}

static int ensure(const char *a1, const char *a2)
{
	char *argv[] = { "ensure-kernel", (char *)a1, (char *)a2, NULL };

	return cmd_lab_ensure_kernel(a2 ? 3 : 2, argv, NULL);
}

static char *slurp(const char *path)
{
	char *text = NULL;

	return read_file(path, &text, NULL) < 0 ? NULL : text;
}

START_TEST(ensure_running_and_reboot)
{
	struct strbuf why = STRBUF_INIT;
	struct ensure_env t;
	struct kernel_wish w;
	char *log;

	ensure_setup(&t);
	/* the kernel running: nothing asked */
	ck_assert_int_eq(ensure("6.1.0-18-amd64", NULL), HB_EXIT_OK);
	ck_assert_int_eq(access(t.log, F_OK), -1);
	ck_assert_int_eq(access(t.wish, F_OK), -1);

	/* another installed kernel: the wish, the reboot, the requeue, 75 */
	ck_assert_int_eq(ensure("6.1.0-17-amd64", NULL), HB_EXIT_REBOOTING);
	log = slurp(t.log);
	ck_assert_str_eq(log, "reboot ASAP nextstate=RESUME reason=hitchbench: kernel 6.1.0-17-amd64 n1\n"
			      "requeue 42\n");
	free(log);
	ck_assert_int_eq(kernel_wish_read(t.wish, &w, &why), 0);
	ck_assert_str_eq(w.kernel, "6.1.0-17-amd64");
	ck_assert_str_eq(w.boot_id, BOOT_ID);
	ck_assert_str_eq(w.job_id, "42");
	ck_assert_str_eq(w.node, "n1");
	ck_assert_int_eq(w.method, KERNEL_BOOT_GRUB);

	/* requeued onto the node before it rebooted (same boot): asks again */
	unlink(t.log);
	ck_assert_int_eq(ensure("--no-requeue", "6.1.0-17-amd64"), HB_EXIT_REBOOTING);
	log = slurp(t.log);
	ck_assert_str_eq(log, "reboot ASAP nextstate=RESUME reason=hitchbench: kernel 6.1.0-17-amd64 n1\n");
	free(log);

	/* after a reboot (another boot id) into the wrong kernel: 1, no loop */
	snprintf(w.boot_id, sizeof(w.boot_id), "%s", "11111111-2222-3333-4444-555555555555");
	ck_assert_int_eq(kernel_wish_write(t.wish, &w), 0);
	unlink(t.log);
	ck_assert_int_eq(ensure("6.1.0-17-amd64", NULL), HB_EXIT_FAILURE);
	ck_assert_int_eq(access(t.log, F_OK), -1);

	/* after a reboot into the right kernel: 0, and the wish is done with */
	snprintf(w.kernel, sizeof(w.kernel), "%s", "6.1.0-18-amd64");
	ck_assert_int_eq(kernel_wish_write(t.wish, &w), 0);
	ck_assert_int_eq(ensure("6.1.0-18-amd64", NULL), HB_EXIT_OK);
	ck_assert_int_eq(access(t.wish, F_OK), -1);
	ensure_teardown(&t);
	strbuf_release(&why);
}
END_TEST

START_TEST(ensure_refusals)
{
	struct ensure_env t;

	ensure_setup(&t);
	/* not installed; kexec without an initrd; no grub entry */
	ck_assert_int_eq(ensure("6.5.0-1-amd64", NULL), HB_EXIT_FAILURE);
	ck_assert_int_eq(ensure("--kexec", "6.1.0-13-amd64+rt"), HB_EXIT_FAILURE);
	ck_assert_int_eq(access(t.log, F_OK), -1);
	ck_assert_int_eq(access(t.wish, F_OK), -1);
	/* usage */
	ck_assert_int_eq(ensure("6.1 x", NULL), HB_EXIT_USAGE);
	ck_assert_int_eq(ensure("--bogus", "6.1.0-17-amd64"), HB_EXIT_USAGE);
	/* outside a Slurm job: nothing to reboot */
	unsetenv("SLURMD_NODENAME");
	ck_assert_int_eq(ensure("6.1.0-17-amd64", NULL), HB_EXIT_FAILURE);
	ck_assert_int_eq(access(t.wish, F_OK), -1);
	/* scontrol refuses (a user who is not a Slurm operator): 1, no wish left */
	setenv("SLURMD_NODENAME", "n1", 1);
	setenv("FAKE_SCONTROL_RC", "1", 1);
	ck_assert_int_eq(ensure("6.1.0-17-amd64", NULL), HB_EXIT_FAILURE);
	ck_assert_int_eq(access(t.wish, F_OK), -1);
	ensure_teardown(&t);
}
END_TEST

START_TEST(ensure_no_grub_entry)
{
	struct ensure_env t;
	char *root, *cfg;

	ensure_setup(&t);
	/* a kernel whose image is there but update-grub never ran */
	root = test_tmpdir();
	test_put(root, "proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
	test_put(root, "proc/sys/kernel/random/boot_id", BOOT_ID "\n");
	test_put(root, "boot/vmlinuz-6.1.0-19-amd64", "");
	cfg = slurp(fixture_path("kernel-root/boot/grub/grub.cfg"));
	test_put(root, "boot/grub/grub.cfg", cfg);
	fsroot_set(root);
	ck_assert_int_eq(ensure("6.1.0-19-amd64", NULL), HB_EXIT_FAILURE);
	ck_assert_int_eq(access(t.log, F_OK), -1);
	free(cfg);
	remove_tree(root);
	free(root);
	ensure_teardown(&t);
}
END_TEST

TEST_SUITE(kernel_suite)
{
	Suite *s = suite_create("kernel");
	TCase *tc = tcase_create("kernel");

	tcase_add_test(tc, grub_debian12);
	tcase_add_test(tc, grub_corners);
	tcase_add_test(tc, grub_default);
	tcase_add_test(tc, wish_file);
	tcase_add_test(tc, wish_decide);
	tcase_add_test(tc, installed);
	tcase_add_test(tc, ensure_running_and_reboot);
	tcase_add_test(tc, ensure_refusals);
	tcase_add_test(tc, ensure_no_grub_entry);
	suite_add_tcase(s, tc);
	return s;
}
