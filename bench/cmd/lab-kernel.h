/*
 * hitchbench lab ensure-kernel KERNEL (issue 21): the first step of a
 * Slurm job of a kernel campaign. It makes sure the node runs KERNEL
 * before the batch measures anything, and asks Slurm to reboot the node
 * into it when it does not.
 *
 * The contract (docs/lab.md, "Kernels"; the wish file: docs/formats.md,
 * "The kernel wish file"):
 *   0   the running kernel (proc/sys/kernel/osrelease under the root) is
 *       KERNEL: the job goes on.
 *   75  (EX_TEMPFAIL) it is not: the wish (KERNEL, the boot id now, the
 *       time, SLURM_JOB_ID) was written to the wish file, a reboot of
 *       SLURMD_NODENAME was asked of Slurm and this job requeued; the job
 *       script must exit at once without measuring.
 *   1   it cannot be had: KERNEL is not installed on the node, a reboot
 *       into it was already tried (the boot id changed since the wish) and
 *       the node booted another kernel ("asked to boot K, booted into X"),
 *       it runs outside a Slurm job (no SLURMD_NODENAME), the wish cannot
 *       be written, or scontrol failed.
 *   2   usage.
 *
 * cmd-lab.c (the lab's dispatcher) calls it for "lab ensure-kernel" with
 * argv[0] the subcommand's name and its options and KERNEL after it, as
 * the command table calls every cmd_*(); ctx is not used (may be NULL).
 * It prints only diagnostics, to stderr.
 */
#ifndef HB_LAB_KERNEL_H
#define HB_LAB_KERNEL_H

#include "cmd/cmd.h"
#include "base/exitcodes.h" /* HB_EXIT_REBOOTING, 75 */

int cmd_lab_ensure_kernel(int argc, char **argv, struct context *ctx);

#endif
