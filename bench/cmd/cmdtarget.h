/*
 * What the commands that talk to a target share (push, target check, run
 * --target): the target a name on their command line means, and their
 * words for a target that cannot be reached and for the connections they
 * opened. Command-layer code: it says what is wrong and returns an exit
 * code.
 */
#ifndef HB_CMDTARGET_H
#define HB_CMDTARGET_H

#include "target/ssh.h"
#include "target/targets.h"

/* "--target NAME" / "push NAME" / "target check NAME": the config loaded
 * into l and *t set. HB_EXIT_OK, or the exit code after saying what is
 * wrong (a bad config or an unknown target: 2). */
int targets_lookup(const char *name, struct target_list *l, const struct ssh_target **t);

/* "cannot reach target 'NAME' (URL): what ssh said" for a failed
 * ssh_open, as the commands print it. */
void targets_say_unreachable(const struct ssh_target *t, const struct ssh_conn *c, int r);

/* -v's line: how many connections the command opened (1), after what
 * stdout holds so far. */
void targets_say_connections(const struct ssh_conn *c);

#endif
