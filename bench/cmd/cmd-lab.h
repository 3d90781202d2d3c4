/*
 * hitchbench lab's subcommands (cmd-lab.c dispatches; submit in
 * cmd-lab-submit.c, status and results in cmd-lab-status.c, ensure-kernel
 * in lab-kernel.h) and what they share.
 */
#ifndef HB_CMD_LAB_H
#define HB_CMD_LAB_H

#include <stdio.h>

#include "cmd/cmd.h"

int cmd_lab_submit(int argc, char **argv, struct context *ctx);
int cmd_lab_status(int argc, char **argv, struct context *ctx);
int cmd_lab_results(int argc, char **argv, struct context *ctx);

/* What the lab's subcommands share: the usage (printed to out), a usage
 * error (exit 2), the lab's directory (RESULTS/lab, absolute; the caller
 * frees it), and the ids of the recorded jobs Slurm has not finished (0,
 * or -1 after saying why not). */
void lab_usage_print(FILE *out);
int lab_usage_error(const char *fmt, const char *arg);
char *lab_dir(const struct context *ctx);
/* --site DIR of submit and job checked (lab_site_dir_check): 0, or the
 * usage error said and HB_EXIT_USAGE. */
int lab_site_usage(const char *dir);
/* --site-minutes M of submit and job into *minutes: 0, or the usage
 * error said and HB_EXIT_USAGE. */
int lab_site_minutes_usage(const char *arg, double *minutes);
struct argv_list;
int lab_jobs_active(struct context *ctx, struct argv_list *ids);

#endif
