/*
 * hitchbench-reboot: Slurm's RebootProgram on a lab node (issue 21).
 *
 * slurmd runs it as root through system() when 'scontrol reboot' (or a job's
 * --reboot) reaches the idle node: no arguments of ours (slurmd keeps only
 * the program's path of the RebootProgram line and appends the node
 * features a reboot asked for, if any), slurmd's environment. So what to
 * boot comes from the kernel wish file 'hitchbench lab ensure-kernel' wrote
 * (common/formats/kernelwish.h): with a wish made in this boot it makes the next
 * boot, once, the wish's kernel (grub-reboot "Submenu>Entry" of the entry
 * grub.cfg has for it; or with method=kexec, kexec -l its image) and then
 * reboots (systemctl reboot, or systemctl kexec; plain 'reboot' when systemctl
 * fails). Without a wish, or when choosing the kernel fails, it just reboots:
 * Slurm asked for a reboot and marks the node DOWN if none comes within
 * ResumeTimeout; ensure-kernel tells the job afterwards that the kernel is
 * not the one asked for.
 *
 * Every step is logged to the log file (the root's
 * var/log/hitchbench-reboot.log, or --log) and to stderr with syslog's
 * "<N>" level prefix (slurmd's log, or the journal). --dry-run prints the
 * commands it would run on stdout, one a line as a shell would take them,
 * and runs none.
 */
#include "base/message.h"
#include "text/argv.h"
#include "base/exitcodes.h"
#include "system/fsroot.h"
#include "system/grubcfg.h"
#include "formats/kernelwish.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "hitchbench-reboot"
#define LOG_REL "var/log/hitchbench-reboot.log"

static FILE *log_file;
static bool dry_run;

/* Every message (message.h, with syslog's "<N>" levels on stderr) is also
 * a line of the log file, when it could be opened. */
static void log_line(enum msg_level level, const char *msg, void *data)
{
	const char *name = level == MSG_ERROR ? "error" : level == MSG_WARNING ? "warning" : "info";
	char when[32] = "";
	struct tm tm;
	time_t t = time(NULL);

	if (!log_file)
		return;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(log_file, "%s %s[%d]: %s: %s%s\n", when, PROG, (int)getpid(), name, dry_run ? "(dry run) " : "",
		msg);
	fflush(log_file);
}

/* Runs (or, dry, prints) a command: its exit status, -1 when it could not
 * run or was killed. */
static int run(char *const *argv)
{
	char *line = argv_join(argv);
	int status;
	pid_t pid;

	if (dry_run) {
		info_msg("would run: %s", line);
		printf("%s\n", line);
		fflush(stdout);
		free(line);
		return 0;
	}
	info_msg("running: %s", line);
	free(line);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		error_msg("cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		error_msg("cannot run %s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			error_msg("cannot wait for %s: %s", argv[0], strerror(errno));
			return -1;
		}
	}
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status))
			error_msg("%s exited with status %d", argv[0], WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	error_msg("%s was killed by signal %d", argv[0], WTERMSIG(status));
	return -1;
}

/* grub-reboot the entry grub.cfg has for the wish's kernel. 0, or -1
 * (said why). */
static int choose_grub(const struct kernel_wish *w)
{
	struct strbuf why = STRBUF_INIT;
	const struct grub_entry *e;
	struct grub_menu menu;
	char *text = NULL;
	int r;

	grub_menu_init(&menu);
	r = fsroot_read_all("boot/grub/grub.cfg", &text);
	if (r < 0) {
		error_msg("cannot read /boot/grub/grub.cfg: %s", strerror(-r));
		goto out;
	}
	r = grub_menu_parse(text, &menu, &why);
	if (r < 0) {
		error_msg("/boot/grub/grub.cfg:%s", why.buf);
		goto out;
	}
	e = grub_menu_find(&menu, w->kernel);
	if (!e) {
		error_msg("/boot/grub/grub.cfg has no entry booting kernel %s (%zu entries); run update-grub",
		    w->kernel, menu.n);
		r = -ENOENT;
		goto out;
	}
	info_msg("kernel %s: entry '%s' (grub.cfg line %d, image %s)", w->kernel, e->path, e->line, e->image);
	free(text);
	text = NULL;
	if (fsroot_read_all("etc/default/grub", &text) < 0 || !grub_default_is_saved(text))
		warn_msg("/etc/default/grub does not set GRUB_DEFAULT=saved: grub-reboot's entry may "
			       "be ignored at the next boot");
	r = run((char *const[]){ "grub-reboot", e->path, NULL }) == 0 ? 0 : -1;
out:
	free(text);
	grub_menu_release(&menu);
	strbuf_release(&why);
	return r < 0 ? -1 : 0;
}

/* kexec -l the wish's kernel with its initrd and this boot's command
 * line. 0, or -1 (said why). */
static int choose_kexec(const struct kernel_wish *w)
{
	struct strbuf why = STRBUF_INIT;
	char *image, *initrd;
	int r;

	if (kernel_installed(w->kernel, KERNEL_BOOT_KEXEC, &why) < 0) {
		error_msg("kernel %s cannot be kexec'd: %s", w->kernel, why.buf);
		strbuf_release(&why);
		return -1;
	}
	image = xasprintf("/boot/vmlinuz-%s", w->kernel);
	initrd = xasprintf("--initrd=/boot/initrd.img-%s", w->kernel);
	r = run((char *const[]){ "kexec", "-l", image, initrd, "--reuse-cmdline", NULL });
	free(image);
	free(initrd);
	return r == 0 ? 0 : -1;
}

/* The wish to act on, if there is one made in this boot: 1 (in *w), 0. */
static int current_wish(const char *path, struct kernel_wish *w)
{
	struct strbuf why = STRBUF_INIT;
	char boot_id[64];
	int r = kernel_wish_read(path, w, &why);

	if (r == -ENOENT) {
		info_msg("no kernel wish (%s): a plain reboot", path);
	} else if (r < 0) {
		error_msg("%s: %s: a plain reboot", path, r == -EINVAL ? why.buf : strerror(-r));
	} else if (fsroot_read_line("proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id)) < 0) {
		error_msg("cannot read this boot's id: a plain reboot");
		r = -1;
	} else if (strcmp(boot_id, w->boot_id)) {
		info_msg("the kernel wish for %s (job %s) was made in an earlier boot: a plain reboot",
		    w->kernel, *w->job_id ? w->job_id : "-");
		r = -1;
	} else {
		info_msg("kernel wish: %s by %s (job %s, node %s)", w->kernel, kernel_boot_method_name(w->method),
		    *w->job_id ? w->job_id : "-", *w->node ? w->node : "-");
	}
	strbuf_release(&why);
	return r == 0;
}

static const char usage[] =
	"usage: " PROG " [--dry-run] [--wish PATH] [--log PATH] [--grub | --kexec] [FEATURES]\n"
	"Slurm's RebootProgram: boots the kernel of the wish file once, else just reboots.\n";

int main(int argc, char **argv)
{
	msg_program(PROG);
	msg_levels(true);
	msg_copy(log_line, NULL);
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' }, { "wish", required_argument, NULL, 'w' },
		{ "log", required_argument, NULL, 'l' }, { "grub", no_argument, NULL, 'g' },
		{ "kexec", no_argument, NULL, 'k' },   { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *wish_path = NULL, *log_path = NULL;
	int method = -1, c, chose = -1, r;
	struct kernel_wish w;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n': dry_run = true; break;
		case 'w': free(wish_path); wish_path = xstrdup(optarg); break;
		case 'l': free(log_path); log_path = xstrdup(optarg); break;
		case 'g': method = KERNEL_BOOT_GRUB; break;
		case 'k': method = KERNEL_BOOT_KEXEC; break;
		case 'h': fputs(usage, stdout); return HB_EXIT_OK;
		default: fputs(usage, stderr); return HB_EXIT_USAGE;
		}
	}
	if (!wish_path)
		wish_path = kernel_wish_path();
	if (!log_path)
		log_path = xasprintf("%s/%s", fsroot(), LOG_REL);
	log_file = fopen(log_path, "ae");
	if (!log_file)
		warn_msg("cannot open the log '%s': %s", log_path, strerror(errno));
	info_msg("asked to reboot (uid %d%s%s)", (int)getuid(), optind < argc ? ", features " : "",
	    optind < argc ? argv[optind] : "");
	if (current_wish(wish_path, &w)) {
		if (method >= 0)
			w.method = (enum kernel_boot_method)method;
		chose = w.method == KERNEL_BOOT_KEXEC ? choose_kexec(&w) : choose_grub(&w);
		if (chose < 0)
			error_msg("could not make the next boot kernel %s: rebooting into the default", w.kernel);
	}
	if (chose == 0 && w.method == KERNEL_BOOT_KEXEC)
		r = run((char *const[]){ "systemctl", "kexec", NULL });
	else
		r = run((char *const[]){ "systemctl", "reboot", NULL });
	if (r != 0) {
		warn_msg("systemctl failed: trying reboot");
		r = run((char *const[]){ "reboot", NULL });
	}
	if (r != 0)
		error_msg("could not reboot");
	free(wish_path);
	free(log_path);
	if (log_file)
		fclose(log_file);
	return r == 0 ? HB_EXIT_OK : HB_EXIT_FAILURE;
}
