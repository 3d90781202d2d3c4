/*
 * Mesa's Gallium HUD dump (GALLIUM_HUD_DUMP_DIR): one file per graph, the
 * frame-time graph's named `frametime_(ms)`, one value a line and nothing
 * else (no header, no stamps; Mesa src/gallium/auxiliary/hud/hud_context.c,
 * hud_graph_add_value). A value is a frame's time only with
 * GALLIUM_HUD_PERIOD=0; with the default period (0.5 s) it is the mean
 * frame time of the period, so the rows are samples.
 */
#include "import-internal.h"

#include <errno.h>

int import_gallium_parse(const char *text, size_t len, const char *path,
			 const struct import_opts *o, struct import_series *out,
			 struct strbuf *err)
{
	struct lines l;
	char *line;
	int r = 0;

	out->format = import_format_name(IMPORT_GALLIUM_HUD);
	lines_init(&l, text, len);
	while ((line = lines_next(&l))) {
		double ms;
		uint64_t ns;

		str_strip(line);
		if (!*line)
			continue;
		if (safe_atod(line, &ms) < 0) {
			strbuf_addf(err, "%s:%d: expected a frame time in ms (one number a line), found '%s'",
				    path, l.no, line);
			r = -EINVAL;
			goto out;
		}
		out->rows++;
		/* Mesa clamps to the graph's range and may log 0 for an idle period */
		if (import_ms_to_ns(ms, &ns) == 0)
			import_push_frame(out, ns);
	}
	out->interval = o->gallium_period_s > 0;
	kvfile_add(&out->info, "version", "Mesa GALLIUM_HUD_DUMP_DIR frametime_(ms)");
	kvfile_addf(&out->info, "hud_period_s", "%g", o->gallium_period_s);
	import_finish(out);
out:
	lines_release(&l);
	return r;
}
