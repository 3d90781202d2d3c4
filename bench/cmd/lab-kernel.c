/*
 * hitchbench lab ensure-kernel KERNEL (see lab-kernel.h): the running
 * kernel against the one a kernel campaign's job wants, and the kernel
 * wish plus Slurm's reboot and requeue when they differ. The library
 * halves are common/formats/kernelwish.c (the wish, the decision, what is
 * installed) and common/system/grubcfg.c (the boot entry); the reboot itself is
 * hitchbench-reboot's, Slurm's RebootProgram (harness/reboot.c).
 */
#include "cmd/lab-kernel.h"
#include "base/exitcodes.h"
#include "system/fsroot.h"
#include "system/grubcfg.h"
#include "formats/kernelwish.h"
#include "runner/spawn.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char ensure_usage[] =
	"usage: hitchbench lab ensure-kernel [--kexec] [--no-requeue] KERNEL\n"
	"\n"
	"The first step of a Slurm job that must measure on kernel KERNEL (as uname -r\n"
	"prints it). Exit 0 when the node runs it. Otherwise, when it is installed\n"
	"(/boot/vmlinuz-KERNEL, and its grub entry; with --kexec its initrd), writes\n"
	"the kernel wish (var/lib/hitchbench/kernel-wish, or $HITCHBENCH_KERNEL_WISH),\n"
	"asks Slurm to reboot the node ($SLURMD_NODENAME) into it with\n"
	"'scontrol reboot ASAP nextstate=RESUME', requeues the job ($SLURM_JOB_ID;\n"
	"--no-requeue leaves that to the job script or RequeueExit=75) and exits 75:\n"
	"the job script must then exit without measuring. Exit 1 when the kernel is\n"
	"not installed, when a reboot into it already happened and the node booted\n"
	"another kernel, or when scontrol fails; 2 on a usage error.\n";

struct ensure {
	const char *kernel;
	enum kernel_boot_method method;
	bool requeue;
	char running[128];
	char boot_id[sizeof(((struct kernel_wish *)0)->boot_id)];
	char *wish_path;
	struct kernel_wish wish;
	bool have_wish;
};

/* Runs scontrol with args; on failure says what it printed. 0 or -1. */
static int scontrol(char *const *argv)
{
	struct strbuf err = STRBUF_INIT;
	char how[64];
	int status = 0, r;

	r = spawn_capture_io(argv, NULL, NULL, &err, &status);
	if (r < 0) {
		error_msg("cannot run scontrol: %s", strerror(-r));
	} else if (status != 0) {
		describe_wait_status(status, how, sizeof(how));
		error_msg("scontrol %s %s failed (%s): %s", argv[1], argv[2], how,
			  err.len ? str_strip(err.buf) : "(no message)");
		r = -1;
	}
	strbuf_release(&err);
	return r < 0 ? -1 : 0;
}

/* The machine's state: the kernel running, this boot's id, the wish. 0,
 * or the exit code after saying what is wrong. */
static int ensure_read(struct ensure *e)
{
	struct strbuf why = STRBUF_INIT;
	int r;

	r = fsroot_read_line("proc/sys/kernel/osrelease", e->running, sizeof(e->running));
	if (r < 0) {
		error_msg("cannot read the kernel's release (%s/proc/sys/kernel/osrelease): %s", fsroot(),
			  strerror(-r));
		return HB_EXIT_FAILURE;
	}
	r = fsroot_read_line("proc/sys/kernel/random/boot_id", e->boot_id, sizeof(e->boot_id));
	if (r < 0) {
		error_msg("cannot read the boot id (%s/proc/sys/kernel/random/boot_id): %s", fsroot(),
			  strerror(-r));
		return HB_EXIT_FAILURE;
	}
	e->wish_path = kernel_wish_path();
	r = kernel_wish_read(e->wish_path, &e->wish, &why);
	if (r == 0)
		e->have_wish = true;
	else if (r == -EINVAL)
		warn_msg("%s: %s: taken as no wish", e->wish_path, why.buf);
	else if (r != -ENOENT)
		warn_msg("cannot read '%s': %s: taken as no wish", e->wish_path, strerror(-r));
	strbuf_release(&why);
	return HB_EXIT_OK;
}

/* Whether the wanted kernel can be booted here: its image (and initrd for
 * kexec), and for grub an entry in grub.cfg when the job may read it (a
 * 0600 grub.cfg is left to hitchbench-reboot, which runs as root). 0, or
 * HB_EXIT_FAILURE after saying why. */
static int ensure_bootable(const struct ensure *e)
{
	struct strbuf why = STRBUF_INIT;
	struct grub_menu menu;
	char *text = NULL;
	int r, ret = HB_EXIT_FAILURE;

	grub_menu_init(&menu);
	if (kernel_installed(e->kernel, e->method, &why) < 0) {
		error_msg("kernel %s is not installed on this node: %s", e->kernel, why.buf);
		goto out;
	}
	ret = HB_EXIT_OK;
	if (e->method != KERNEL_BOOT_GRUB)
		goto out;
	r = fsroot_read_all("boot/grub/grub.cfg", &text);
	if (r < 0) {
		warn_msg("cannot read /boot/grub/grub.cfg (%s): its entry for %s is not checked", strerror(-r),
			 e->kernel);
	} else if (grub_menu_parse(text, &menu, &why) < 0) {
		error_msg("/boot/grub/grub.cfg:%s", why.buf);
		ret = HB_EXIT_FAILURE;
	} else if (!grub_menu_find(&menu, e->kernel)) {
		error_msg("/boot/grub/grub.cfg has no entry booting kernel %s (run update-grub)", e->kernel);
		ret = HB_EXIT_FAILURE;
	}
out:
	free(text);
	grub_menu_release(&menu);
	strbuf_release(&why);
	return ret;
}

/* The wish, then Slurm's reboot and the requeue. The exit code. */
static int ensure_reboot(struct ensure *e)
{
	const char *node = getenv("SLURMD_NODENAME"), *job = getenv("SLURM_JOB_ID");
	struct kernel_wish w;
	char *reason, *dir;
	int r;

	if (!node || !*node) {
		error_msg("kernel %s is wanted, %s runs, and SLURMD_NODENAME is not set: not in a Slurm job, "
			  "no reboot asked", e->kernel, e->running);
		return HB_EXIT_FAILURE;
	}
	memset(&w, 0, sizeof(w));
	w.format = KERNEL_WISH_FORMAT;
	snprintf(w.kernel, sizeof(w.kernel), "%s", e->kernel);
	w.method = e->method;
	snprintf(w.boot_id, sizeof(w.boot_id), "%s", e->boot_id);
	w.asked = (int64_t)time(NULL);
	snprintf(w.job_id, sizeof(w.job_id), "%s", job ? job : "");
	snprintf(w.node, sizeof(w.node), "%s", node);
	dir = xstrdup(e->wish_path);
	if (strrchr(dir, '/') && strrchr(dir, '/') != dir) {
		*strrchr(dir, '/') = '\0';
		mkdir_p(dir, 0755); /* lab init makes it; a job running as root may too */
	}
	free(dir);
	r = kernel_wish_write(e->wish_path, &w);
	if (r < 0) {
		error_msg("cannot write the kernel wish '%s': %s", e->wish_path, strerror(-r));
		return HB_EXIT_FAILURE;
	}
	reason = xasprintf("reason=hitchbench: kernel %s", e->kernel);
	r = scontrol((char *const[]){ "scontrol", "reboot", "ASAP", "nextstate=RESUME", reason, (char *)node,
				       NULL });
	free(reason);
	if (r < 0) {
		unlink(e->wish_path);
		return HB_EXIT_FAILURE;
	}
	note_msg("node %s runs kernel %s: a reboot into %s is asked of Slurm (wish in %s)", node, e->running,
		 e->kernel, e->wish_path);
	if (!e->requeue || !job || !*job) {
		note_msg("job not requeued (%s): the job script must stop now", e->requeue ? "no SLURM_JOB_ID"
												: "--no-requeue");
	} else if (scontrol((char *const[]){ "scontrol", "requeue", (char *)job, NULL }) < 0) {
		warn_msg("the reboot is asked but job %s was not requeued: the job script must stop now", job);
	} else {
		note_msg("job %s requeued: it starts again once the node is back", job);
	}
	return HB_EXIT_REBOOTING;
}

/* Parses the command line into e (the parser contract, exitcodes.h). */
static int ensure_args(int argc, char **argv, struct ensure *e)
{
	static const struct option opts[] = {
		{ "kexec", no_argument, NULL, 'k' },
		{ "no-requeue", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': e->method = KERNEL_BOOT_KEXEC; break;
		case 'n': e->requeue = false; break;
		case 'h': fputs(ensure_usage, stdout); return HB_ARGS_DONE;
		default: fputs(ensure_usage, stderr); return HB_EXIT_USAGE;
		}
	}
	if (argc - optind != 1)
		return usage_error(ensure_usage, "ensure-kernel takes one kernel release");
	e->kernel = argv[optind];
	if (!kernel_release_valid(e->kernel))
		return usage_error(ensure_usage, "'%s' is not a kernel release", e->kernel);
	return HB_EXIT_OK;
}

int cmd_lab_ensure_kernel(int argc, char **argv, struct context *ctx)
{
	struct ensure e = { .method = KERNEL_BOOT_GRUB, .requeue = true };
	char when[32];
	int ret;

	(void)ctx;
	ret = ensure_args(argc, argv, &e);
	if (ret != HB_EXIT_OK)
		return hb_args_exit(ret);
	ret = ensure_read(&e);
	if (ret != HB_EXIT_OK)
		goto out;
	switch (kernel_wish_decide(e.running, e.boot_id, e.kernel, e.have_wish ? &e.wish : NULL)) {
	case KERNEL_RUNNING:
		/* done with the wish: a later campaign starts afresh */
		if (e.have_wish && !strcmp(e.wish.kernel, e.kernel) && unlink(e.wish_path) < 0 && errno != ENOENT)
			warn_msg("cannot remove the fulfilled wish '%s': %s", e.wish_path, strerror(errno));
		ret = HB_EXIT_OK;
		break;
	case KERNEL_MISSED:
		error_msg("asked to boot %s, booted into %s (the reboot was asked by job %s at %s; remove '%s' "
			  "to try again)", e.kernel, e.running, *e.wish.job_id ? e.wish.job_id : "-",
			  kernel_wish_asked_utc(&e.wish, when, sizeof(when)), e.wish_path);
		ret = HB_EXIT_FAILURE;
		break;
	case KERNEL_REBOOT:
		ret = ensure_bootable(&e);
		if (ret == HB_EXIT_OK)
			ret = ensure_reboot(&e);
		break;
	}
out:
	free(e.wish_path);
	return ret;
}
