/*
 * Mesa's Gallium HUD dump (GALLIUM_HUD_DUMP_DIR): one file per graph, the
 * frame-time graph's named `frametime_(ms)`, one value a line and nothing
 * else (no header, no stamps; Mesa src/gallium/auxiliary/hud/hud_context.c,
 * hud_graph_add_value). A value is a frame's time only with
 * GALLIUM_HUD_PERIOD=0; with the default period (0.5 s) it is the mean
 * frame time of the period, so the rows are samples. Mesa ends every
 * value with a line break: a last one without it was cut short and is
 * dropped (counted, warned of).
 */
#include "import/import-internal.h"

#include <errno.h>

int import_gallium_parse(const char *text, size_t len, const char *path,
			 const struct import_opts *o, struct import_series *out,
			 struct strbuf *err)
{
	struct csv_record rec;
	struct csv c;
	int r;

	out->format = import_format_name(IMPORT_GALLIUM_HUD);
	csv_init(&c, text, len, IMPORT_CSV_FLAGS);
	while ((r = csv_next(&c, &rec)) > 0) {
		double ms;

		out->rows++;
		if (rec.cut) {
			import_drop_cut(out, path, rec.line, "no line break after it");
			continue;
		}
		if (rec.n != 1 || import_parse_value(rec.f[0], &ms) < 0) {
			strbuf_addf(err, "%s:%d: expected a frame time in ms (one number a line), found '%.40s'",
				    path, rec.line, rec.f[0]);
			r = -EINVAL;
			goto out;
		}
		/* Mesa clamps to the graph's range and may log 0 for an idle period */
		import_frame_ms(out, rec.line, ms, rec.f[0]);
	}
	if (r < 0) {
		import_csv_error(&c, path, err);
		goto out;
	}
	out->interval = o->gallium_period_s > 0;
	kvfile_add(&out->info, "version", "Mesa GALLIUM_HUD_DUMP_DIR frametime_(ms)");
	kvfile_addf(&out->info, "hud_period_s", "%g", o->gallium_period_s);
	r = import_finish(out, path, err);
out:
	csv_release(&c);
	return r;
}
