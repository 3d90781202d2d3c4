/*
 * The kernel wish (issue 21): what a Slurm job of a kernel campaign wants
 * the node to boot, written by 'hitchbench lab ensure-kernel' before it
 * asks Slurm for a reboot, read by hitchbench-reboot (Slurm's
 * RebootProgram, run as root with no arguments, so the wish is the only
 * way to tell it which kernel) and again by ensure-kernel after the reboot
 * to tell "rebooted, still the wrong kernel" from "not tried yet". Its
 * format is docs/formats.md, "The kernel wish file (format 1)".
 *
 * The file lives under the swappable root (fsroot.h) at
 * var/lib/hitchbench/kernel-wish, or where HITCHBENCH_KERNEL_WISH says.
 * Nothing here prints.
 */
#ifndef HB_KERNELWISH_H
#define HB_KERNELWISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

#define KERNEL_WISH_ENV "HITCHBENCH_KERNEL_WISH"
#define KERNEL_WISH_REL "var/lib/hitchbench/kernel-wish"
#define KERNEL_WISH_FORMAT 1

/* How the node is to be booted into the kernel. */
enum kernel_boot_method {
	KERNEL_BOOT_GRUB,  /* grub-reboot the entry, then reboot through the firmware */
	KERNEL_BOOT_KEXEC, /* kexec -l the image, then kexec straight into it */
};

struct kernel_wish {
	int format;
	char kernel[128];      /* the release, as uname -r prints it */
	enum kernel_boot_method method;
	char boot_id[40];      /* proc/sys/kernel/random/boot_id when it was asked */
	int64_t asked;         /* when, seconds since the epoch */
	char job_id[32];       /* SLURM_JOB_ID, "" outside a job */
	char node[64];         /* SLURMD_NODENAME, "" outside a job */
};

/* "grub" / "kexec". */
const char *kernel_boot_method_name(enum kernel_boot_method m);

/* A kernel release is a word of [A-Za-z0-9._+~-], at most 127 bytes (it
 * becomes a file name under boot/ and a word on scontrol's command line). */
bool kernel_release_valid(const char *s);

/* The wish file's path: $HITCHBENCH_KERNEL_WISH, else the root's
 * var/lib/hitchbench/kernel-wish (caller frees). */
char *kernel_wish_path(void);

/* Parses a wish file's text. 0, or -EINVAL with what is wrong in err
 * ("line 3: not a key=value line", "no kernel=", "format 2 is newer than
 * this program's 1"). */
int kernel_wish_parse(const char *text, struct kernel_wish *w, struct strbuf *err);
/* The file's text (caller frees). */
char *kernel_wish_format(const struct kernel_wish *w);
/* When it was asked, "2026-12-02T21:40:00Z", into buf; returns buf. */
const char *kernel_wish_asked_utc(const struct kernel_wish *w, char *buf, size_t size);
/* Reads path: 0, -ENOENT (no wish), -errno, or -EINVAL with what is wrong in err. */
int kernel_wish_read(const char *path, struct kernel_wish *w, struct strbuf *err);
/* Writes path atomically (mode 0644). 0 or -errno. */
int kernel_wish_write(const char *path, const struct kernel_wish *w);

/* What ensure-kernel does, decided from the kernel running, its boot id,
 * the kernel wanted and the wish on file (NULL: none). */
enum kernel_verdict {
	KERNEL_RUNNING,  /* the kernel running is the one wanted */
	KERNEL_REBOOT,   /* not yet tried since this boot: ask for a reboot */
	KERNEL_MISSED,   /* a reboot into it was asked and happened (the boot id
			  * changed), yet another kernel runs: give up */
};
enum kernel_verdict kernel_wish_decide(const char *running, const char *boot_id, const char *wanted,
				       const struct kernel_wish *wish);

/* Whether release is installed under the root for method: boot/vmlinuz-K,
 * and for kexec also boot/initrd.img-K (kexec loads it itself; grub's
 * entry names its own). 0, or -ENOENT with the missing file (relative to
 * the root) in err. */
int kernel_installed(const char *release, enum kernel_boot_method method, struct strbuf *err);

#endif
