/*
 * GAMEENV=NAME=VALUE: one more variable in the game's environment, for
 * A/B runs of a driver or library setting (MESA_NO_ERROR=1,
 * mesa_glthread=true) without writing a variant for it. GAMEENV_LABEL
 * names it in reports; the default label is the variable and its value.
 */
#include "switch/switch.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Variables the harness sets itself: a switch may not change them. */
static const char *const reserved[] = {
	"LD_PRELOAD", "HOME", "DISPLAY", "XAUTHORITY", "USER", "LOGNAME", "PATH",
	"XDG_RUNTIME_DIR", "SDL_VIDEODRIVER",
};

static int check(const char *value, struct strbuf *err)
{
	const char *eq = strchr(value, '=');
	size_t n = eq ? (size_t)(eq - value) : 0;

	if (!eq || n == 0 || isdigit((unsigned char)value[0])) {
		strbuf_addstr(err, "wants NAME=VALUE (GAMEENV=MESA_NO_ERROR=1)");
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)value[i]) && value[i] != '_') {
			strbuf_addf(err, "'%.*s' is not a variable name", (int)n, value);
			return -EINVAL;
		}
	for (size_t i = 0; i < ARRAY_SIZE(reserved); i++)
		if (strlen(reserved[i]) == n && strncmp(value, reserved[i], n) == 0) {
			strbuf_addf(err, "%s is set by the harness", reserved[i]);
			return -EINVAL;
		}
	/* the runner put the Vulkan layer's manifest in the game's data home
	 * (stage_vulkan_layer) before any switch runs: a recipe may move it */
	if (n == strlen("XDG_DATA_HOME") && strncmp(value, "XDG_DATA_HOME", n) == 0) {
		strbuf_addstr(err, "XDG_DATA_HOME holds the Vulkan layer's manifest: set it in the "
			      "recipe's env");
		return -EINVAL;
	}
	if (strncmp(value, "HITCHBENCH_", 11) == 0) {
		strbuf_addstr(err, "HITCHBENCH_ variables are the harness's");
		return -EINVAL;
	}
	return 0;
}

static int check_label(const char *value, struct strbuf *err)
{
	if (!*value)
		goto bad;
	for (const char *c = value; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_')
			goto bad;
	return 0;
bad:
	strbuf_addstr(err, "wants a short name of letters, digits, '.', '-' or '_'");
	return -EINVAL;
}

static void label(const struct switch_on *on, struct strbuf *out)
{
	const char *l = switch_param(on, "GAMEENV_LABEL");

	if (l) {
		strbuf_addstr(out, l);
		return;
	}
	for (const char *c = on->value; *c; c++)
		if (isalnum((unsigned char)*c) || *c == '.' || *c == '-' || *c == '_')
			strbuf_addch(out, *c);
}

static int prepare(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	switch_ctx_setenv(ctx, on->value);
	kvfile_add(ctx->bench, "env", on->value);
	return 0;
}

const struct switch_def switch_gameenv = {
	.name = "GAMEENV",
	.help = "NAME=VALUE: set one more variable in the game's environment",
	.check = check,
	.params = {
		{ "GAMEENV_LABEL", NULL, "its name in reports (default: the variable and value)",
		  check_label },
	},
	.label = label,
	.prepare = prepare,
};
