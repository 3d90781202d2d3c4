/*
 * The prefetch program's parts (harness/prefetch*.c): its commands and
 * what they share on the command line. prefetch-main.c has the usage,
 * the dispatch and the lists' directory; prefetch-cmd-learn.c the learn
 * command; prefetch-cmd-fetch.c fetch and run (a fetch beside the game it
 * execs); prefetch-cmd-lists.c list, show, forget and resident. What they
 * call is the library half, common/prefetch/prefetch-*.c (common/prefetch/prefetch.h).
 * Private to the program.
 */
#ifndef HB_PREFETCH_INTERNAL_H
#define HB_PREFETCH_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define PROG "hitchbench-prefetch"

void usage(FILE *out);
/* This process's CPU time so far, for the commands' last words. */
double cpu_ms(void);
/* The lists' directory: --dir, else $HITCHBENCH_PREFETCH_DIR or the default. */
void set_list_dir(const char *dir);
const char *list_dir(void);
char *list_path_of_key(const char *key);
/* KEY or an executable's path (anything with a '/') into the list's path. */
char *list_path_of(const char *key_or_exe);
/* A program's real path: as given when it has a '/', else found in PATH. */
int resolve_exe(const char *name, char *out, size_t size);
int parse_pid(const char *s, pid_t *pid);

/* The commands: argv[0] is the command's name; an exit status. */
int cmd_learn(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_run_game(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_forget(int argc, char **argv);
int cmd_resident(int argc, char **argv);

#endif
