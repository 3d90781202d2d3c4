/*
 * ensurekernel: 'hitchbench lab ensure-kernel' for the tests, until the
 * lab's dispatcher (cmd-lab.c, the Slurm branch) reaches it from the
 * hitchbench command line: runs cmd_lab_ensure_kernel() with the same
 * arguments and exits with its code.
 *
 *   ensurekernel [--kexec] [--no-requeue] KERNEL
 */
#include "exitcodes.h"
#include "lab-kernel.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	int r = cmd_lab_ensure_kernel(argc, argv, NULL);

	if (fflush(stdout) != 0 || ferror(stdout))
		return HB_EXIT_FAILURE;
	return r;
}
