/*
 * Finding a target by name, and the commands' words about connecting to
 * it (see cmdtarget.h).
 */
#include "cmd/cmdtarget.h"
#include "base/exitcodes.h"
#include "base/message.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int targets_lookup(const char *name, struct target_list *l, const struct ssh_target **t)
{
	struct strbuf err = STRBUF_INIT;
	char *path = targets_default_path();
	int r = targets_load(path, l, &err);

	if (r < 0) {
		error_msg("%s", err.buf);
		strbuf_release(&err);
		free(path);
		return r == -EINVAL ? HB_EXIT_USAGE : HB_EXIT_FAILURE;
	}
	strbuf_release(&err);
	*t = targets_find(l, name);
	if (!*t) {
		error_msg("no target '%s' in %s; see 'hitchbench target list'", name, path);
		free(path);
		return HB_EXIT_USAGE;
	}
	free(path);
	return HB_EXIT_OK;
}

void targets_say_unreachable(const struct ssh_target *t, const struct ssh_conn *c, int r)
{
	struct strbuf said = STRBUF_INIT;

	/* ssh's own words, its last line first: "Connection refused",
	 * "Host key verification failed." */
	strbuf_addstr(&said, c->err.len ? c->err.buf : strerror(-r));
	while (said.len && (said.buf[said.len - 1] == '\n' || said.buf[said.len - 1] == '\r'))
		said.buf[--said.len] = '\0';
	for (size_t i = 0; i < said.len; i++)
		if (said.buf[i] == '\n' || said.buf[i] == '\r')
			said.buf[i] = ' ';
	error_msg("cannot reach target '%s' (%s): %s", t->name, t->url, said.buf);
	strbuf_release(&said);
}

void targets_say_connections(const struct ssh_conn *c)
{
	fflush(stdout);
	fprintf(stderr, "hitchbench: ssh: %zu connection(s) opened (one ControlMaster)\n", c->masters);
}
