/*
 * GAMECPU=LIST: the game (every process of it) runs only on these CPUs,
 * for A/B runs of pinning against the scheduler's choice, or to keep the
 * game off the CPU a helper is pinned to.
 */
#include "switch/switch.h"
#include "system/cpulist.h"

#include <errno.h>
#include <string.h>

static void label(const struct switch_on *on, struct strbuf *out)
{
	strbuf_addstr(out, "cpu");
	for (const char *c = on->value; *c; c++)
		strbuf_addch(out, *c == ',' ? '.' : *c);
}

static int prepare(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	cpu_set_t set;

	if (cpu_list_parse(on->value, &set) < 0) {
		strbuf_addf(err, "GAMECPU=%s: not a CPU list", on->value);
		return -EINVAL;
	}
	*ctx->game_cpus = set;
	*ctx->pin_game = true;
	kvfile_add(ctx->bench, "game_cpus", on->value);
	return 0;
}

const struct switch_def switch_gamecpu = {
	.name = "GAMECPU",
	.help = "LIST: run the game on these CPUs only (0, 1-3, 0,2)",
	.check = switch_check_cpus,
	.label = label,
	.prepare = prepare,
};
