/*
 * Which graphics API a run's frames came from, from its frame file: each
 * record names the function that presented (hb_present_source), and the
 * frames of the measured window, counted by source, say whether the game
 * rendered through OpenGL, Vulkan or SDL's renderer. The runner records
 * the answer in bench.txt (frames_api, window_sources), and a recipe's
 * `frames = vulkan` (bench.txt frame_source=vulkan) makes it a rule of run
 * integrity (run_check()): a run whose window holds a present that was no
 * vkQueuePresentKHR measured another API than the recipe asked for, say a
 * game that fell back to OpenGL, and is invalid. Counted from the run's
 * loaded frames (hb_frames keeps each present's source), so the rule
 * holds for every reader of the run directory alike.
 */
#include "run/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(HB_SRC_MAX <= RUN_SOURCES, "RUN_SOURCES holds every present source");

void run_window_sources_of(const struct hb_frames *f, uint64_t start_ns, uint64_t end_ns,
			   struct run_window_sources *out)
{
	memset(out, 0, sizeof(*out));
	/* a frame ends at its present: those in (start, end], as the window's
	 * frames are counted */
	for (uint64_t i = 0; i < f->n; i++) {
		if (f->t_ns[i] <= start_ns || f->t_ns[i] > end_ns)
			continue;
		out->n++;
		out->per_source[f->source[i] < RUN_SOURCES ? f->source[i] : HB_SRC_UNKNOWN]++;
	}
}

int run_window_sources(const char *frames_path, uint64_t start_ns, uint64_t end_ns,
		       struct run_window_sources *out, const char **why)
{
	struct hb_frames f;
	int r = hb_frames_load(frames_path, &f, why);

	if (r < 0)
		return r;
	run_window_sources_of(&f, start_ns, end_ns, out);
	hb_frames_release(&f);
	return 0;
}

char *run_frames_api(const struct run_window_sources *ws)
{
	uint64_t per_api[8] = { 0 };
	unsigned order[8], n = 0;
	struct strbuf sb = STRBUF_INIT;

	if (!ws->n)
		return xstrdup("none");
	for (unsigned s = 0; s < RUN_SOURCES; s++) {
		unsigned api = hb_present_source_api(s);

		per_api[api < ARRAY_SIZE(per_api) ? api : HB_API_UNKNOWN] += ws->per_source[s];
	}
	/* the APIs that presented, most presents first (ties in API order) */
	for (unsigned a = 0; a < ARRAY_SIZE(per_api); a++) {
		unsigned k;

		if (!per_api[a])
			continue;
		for (k = n++; k > 0 && per_api[order[k - 1]] < per_api[a]; k--)
			order[k] = order[k - 1];
		order[k] = a;
	}
	if (n == 1)
		return xstrdup(hb_api_name(order[0]));
	strbuf_addstr(&sb, "mixed(");
	for (unsigned i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s %llu", i ? ", " : "", hb_api_name(order[i]),
			    (unsigned long long)per_api[order[i]]);
	strbuf_addch(&sb, ')');
	return strbuf_detach(&sb);
}

void run_window_sources_describe(const struct run_window_sources *ws, bool skip_vulkan,
				 struct strbuf *out)
{
	bool first = true;

	for (unsigned s = 0; s < RUN_SOURCES; s++) {
		if (!ws->per_source[s] || (skip_vulkan && s == HB_SRC_VK_QUEUE_PRESENT))
			continue;
		strbuf_addf(out, "%s%s %llu", first ? "" : ", ", hb_present_source_name(s),
			    (unsigned long long)ws->per_source[s]);
		first = false;
	}
}

/* The non-Vulkan sources, for the reason: "glXSwapBuffers" when there is
 * one, "glXSwapBuffers 3000, SDL_RenderPresent 12" when several. */
static void others(const struct run_window_sources *ws, struct strbuf *out)
{
	unsigned kinds = 0, only = 0;

	for (unsigned s = 0; s < RUN_SOURCES; s++)
		if (ws->per_source[s] && s != HB_SRC_VK_QUEUE_PRESENT) {
			kinds++;
			only = s;
		}
	if (kinds == 1)
		strbuf_addstr(out, hb_present_source_name(only));
	else
		run_window_sources_describe(ws, true, out);
}

int run_check_api(const struct run *run, struct strbuf *err)
{
	const char *source = kvfile_get(&run->bench, "frame_source");
	struct run_window_sources ws;
	struct strbuf from = STRBUF_INIT;
	uint64_t vk;

	if (!source || strcmp(source, "vulkan") != 0)
		return 0;
	/* run_check() asks this last, of a run with its frames loaded */
	run_window_sources_of(&run->frames, run->window_start_ns, run->window_end_ns, &ws);
	vk = ws.per_source[HB_SRC_VK_QUEUE_PRESENT];
	if (ws.n == vk && vk > 0)
		return 0;
	others(&ws, &from);
	if (!ws.n)
		strbuf_addstr(err, "frames = vulkan, but the window holds no present");
	else if (!vk)
		strbuf_addf(err, "frames = vulkan, but the window's %llu presents came from %s: the "
			    "game did not render through Vulkan", (unsigned long long)ws.n, from.buf);
	else
		strbuf_addf(err, "frames = vulkan, but %llu of the window's %llu presents came from "
			    "%s, not vkQueuePresentKHR", (unsigned long long)(ws.n - vk),
			    (unsigned long long)ws.n, from.buf);
	strbuf_release(&from);
	return -EINVAL;
}
