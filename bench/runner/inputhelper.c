/*
 * Starting the input helper beside the game and reading what it played
 * (see inputhelper.h).
 */
#include "runner/inputhelper.h"
#include "text/argv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int input_helper_start(struct switch_ctx *sw, const struct recipe_input *in, const char *run_dir,
		       const char *display, const char *xauth, const char *run_id, struct strbuf *err)
{
	static const struct switch_helper_start hs = { .name = "input", .log_name = "input.log" };
	struct argv_list a;
	int r;

	if (in->n_steps == 0)
		return 0;
	argv_init(&a);
	argv_push(&a, INPUT_HELPER);
	argv_push(&a, "--driver");
	argv_push(&a, input_driver_name(in->driver));
	argv_push(&a, "--game-log");
	argv_pushf(&a, "%s/game.log", run_dir);
	argv_push(&a, "--display");
	argv_push(&a, display);
	if (xauth) {
		argv_push(&a, "--xauth");
		argv_push(&a, xauth);
	}
	argv_push(&a, "--name");
	argv_pushf(&a, "hitchbench input %s", run_id ? run_id : "");
	argv_push(&a, "--");
	for (size_t i = 0; i < in->n_steps; i++)
		argv_push(&a, in->steps[i].text);
	r = switch_ctx_start_helper(sw, &hs, (const char *const *)a.v, err);
	argv_release(&a);
	return r;
}

int input_helper_finish(struct switch_ctx *sw, const struct recipe_input *in, const char *run_dir,
			struct kvfile *bench, struct strbuf *what)
{
	struct switch_helper *h = switch_ctx_helper(sw, "input");
	struct strbuf devs = STRBUF_INIT;
	char *path, *text = NULL, *end = NULL;
	size_t len;

	if (!h)
		return 0;
	path = xasprintf("%s/input.log", run_dir);
	if (read_file(path, &text, &len) == 0) {
		for (char *line = text, *nl; *line; line = nl + 1) {
			nl = strchrnul(line, '\n');
			if (str_startswith(line, "# end played="))
				end = line + 13;
			else if (str_startswith(line, "# device "))
				/* its syspath: the driver's device, a play's */
				strbuf_addf(&devs, "%s%.*s", devs.len ? " " : "",
					    (int)strcspn(line + 9, " \n"), line + 9);
			if (!*nl)
				break;
			*nl = '\0';
		}
	}
	if (end) {
		unsigned played, of;
		int n = 0;

		if (sscanf(end, "%u of %u%n", &played, &of, &n) == 2)
			strbuf_addf(what, "%u of %u steps played (%s)%s%s", played, of,
				    input_driver_name(in->driver), end[n] == ':' ? ";" : "",
				    end[n] == ':' ? end + n + 1 : "");
	}
	if (!what->len)
		strbuf_addf(what, "unknown: the helper left no end line (%s; see input.log)",
			    input_driver_name(in->driver));
	kvfile_add(bench, "input", what->buf);
	if (devs.len)
		kvfile_add(bench, "input_device", devs.buf);
	strbuf_release(&devs);
	free(text);
	free(path);
	return WIFEXITED(h->status) && WEXITSTATUS(h->status) == 0 ? 0 : -EIO;
}
