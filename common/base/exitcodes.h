/*
 * The exit codes of every hitchbench program, in one place (docs/exit-codes
 * in README.md lists them for users).
 */
#ifndef HB_EXITCODES_H
#define HB_EXITCODES_H

enum hb_exit {
	HB_EXIT_OK = 0,           /* done, and what was asked for happened */
	HB_EXIT_FAILURE = 1,      /* something failed while running (a game, a file, the database) */
	HB_EXIT_USAGE = 2,        /* bad command line or bad input file: nothing was started */
	HB_EXIT_REGRESSION = 3,   /* a comparison found a regression (commands that decide one):
				   * compare's DIFFERENT, regress's change point, either direction */
	HB_EXIT_UNDECIDED = 4,    /* compare: UNKNOWN, more rounds are needed to decide */
	HB_EXIT_SUSPECTS = 5,     /* interference-scan: a run directory shows interference
				   * (1 stays "failed", so a script can tell the two apart) */
	HB_EXIT_REBOOTING = 75,   /* lab ensure-kernel: the node is to reboot into another kernel and
				   * the job was requeued; the job script stops at once
				   * (sysexits.h's EX_TEMPFAIL) */
	HB_EXIT_SKIP = 77,        /* tests only: this test cannot run on this machine */
	HB_EXIT_INTERRUPTED = 130 /* stopped by SIGINT/SIGTERM; the machine was restored */
};

/*
 * What every option parser returns, the commands' and the helpers' alike:
 * HB_EXIT_OK to go on to the work; HB_ARGS_DONE when nothing more is to
 * be done (--help printed the usage on stdout: the program exits 0); any
 * other value is the exit code to stop with, the parser having said what
 * is wrong (HB_EXIT_USAGE). hb_args_exit() turns a stop into its exit code.
 */
#define HB_ARGS_DONE (-1)

static inline int hb_args_exit(int r)
{
	return r == HB_ARGS_DONE ? HB_EXIT_OK : r;
}

#endif
