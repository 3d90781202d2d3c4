/*
 * The frame sources that are another tool's log (see framesource.h): the
 * game's environment for them, waiting for the log, and turning it into
 * the run's frames.bin on the hook's clock.
 */
#include "runner/framesource.h"
#include "formats/frames.h"
#include "import/import.h"
#include "stats/stats.h"
#include "base/timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* As `mangohud --dlsym` preloads them; $LIB is the dynamic linker's own
 * token (lib/x86_64-linux-gnu here), so a 32-bit game finds its build. */
#define MANGOHUD_PRELOAD "/usr/$LIB/mangohud/libMangoHud_dlsym.so:/usr/$LIB/mangohud/libMangoHud.so"
#define MANGOHUD_LOG_AFTER_S 1 /* autostart_log: MangoHud starts logging this long after it loads */
/* The log's duration counts from MangoHud's load, the window from the
 * game's first frame: this much of a first frame's delay is covered (a
 * game drew its first frame 1.9 s after launch on a loaded machine, and
 * its log ended 90 ms before the window did) */
#define MANGOHUD_LOAD_SLACK_S 8
#define GALLIUM_FILE "frametime_(ms)"
#define ALIGN_COMPARE 256
#define SETTLED_NS (300 * NSEC_PER_MSEC)

bool framesource_has_log(enum frame_source f)
{
	return f == FRAMES_MANGOHUD || f == FRAMES_GALLIUM_HUD;
}

const char *framesource_preload(enum frame_source f)
{
	return f == FRAMES_MANGOHUD ? MANGOHUD_PRELOAD : NULL;
}

void framesource_env(struct argv_list *env, enum frame_source f, const char *home, double run_s)
{
	switch (f) {
	case FRAMES_MANGOHUD:
		/* Per-frame rows (log_interval=0), no overlay drawn, and a log
		 * long enough to outlast the window: MangoHud writes it only
		 * when log_duration ends (0.6.8 writes nothing when the game
		 * exits or is stopped). Options: MangoHud.conf.example. */
		argv_push(env, "MANGOHUD=1");
		argv_pushf(env, "MANGOHUD_CONFIG=output_folder=%s/%s,autostart_log=%d,log_interval=0,"
			   "log_duration=%.0f,no_display", home, FRAMESOURCE_MANGOHUD_DIR,
			   MANGOHUD_LOG_AFTER_S, ceil(run_s) + MANGOHUD_LOG_AFTER_S + MANGOHUD_LOAD_SLACK_S);
		break;
	case FRAMES_GALLIUM_HUD:
		/* Mesa's HUD: the frame time of every frame (period 0) dumped to
		 * DIR/frametime_(ms), a line per frame as it goes; not drawn. */
		argv_push(env, "GALLIUM_HUD=frametime");
		argv_push(env, "GALLIUM_HUD_PERIOD=0");
		argv_push(env, "GALLIUM_HUD_VISIBLE=false");
		argv_pushf(env, "GALLIUM_HUD_DUMP_DIR=%s/%s", home, FRAMESOURCE_HUD_DIR);
		break;
	case FRAMES_HOOK:
	case FRAMES_VULKAN:
		break;
	}
}

static const char *log_dir_name(enum frame_source f)
{
	return f == FRAMES_MANGOHUD ? FRAMESOURCE_MANGOHUD_DIR :
	       f == FRAMES_GALLIUM_HUD ? FRAMESOURCE_HUD_DIR : NULL;
}

int framesource_prepare(enum frame_source f, const char *home, struct strbuf *err)
{
	char *dir;
	int r;

	if (!log_dir_name(f))
		return 0;
	dir = xasprintf("%s/%s", home, log_dir_name(f));
	r = mkdir_p(dir, 0755);
	if (r < 0)
		strbuf_addf(err, "cannot make the %s log directory '%s': %s", frame_source_name(f), dir,
			    strerror(-r));
	free(dir);
	return r;
}

static bool is_summary(const char *name)
{
	size_t n = strlen(name), s = strlen("_summary.csv");

	return n >= s && strcmp(name + n - s, "_summary.csv") == 0;
}

static bool is_csv(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcmp(name + n - 4, ".csv") == 0;
}

/* The newest MangoHud log in dir (not a summary), a new string, or NULL;
 * *count is how many logs there are (one per process that logged). */
static char *newest_mangohud_log(const char *dir, size_t *count, struct timespec *mtime)
{
	struct timespec best = { 0, 0 };
	char *path = NULL;
	struct dirent *de;
	DIR *d = opendir(dir);

	*count = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		if (!is_csv(de->d_name) || is_summary(de->d_name))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		/* the game's to write: a symlink is no log (docs/security.md) */
		if (lstat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		++*count;
		if (!path || st.st_mtim.tv_sec > best.tv_sec ||
		    (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec > best.tv_nsec) ||
		    (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec == best.tv_nsec &&
		     strcmp(p, path) > 0)) {
			free(path);
			path = p;
			best = st.st_mtim;
		} else {
			free(p);
		}
	}
	closedir(d);
	if (mtime)
		*mtime = best;
	return path;
}

static uint64_t ts_ns(struct timespec t)
{
	return (uint64_t)t.tv_sec * NSEC_PER_SEC + (uint64_t)t.tv_nsec;
}

bool framesource_log_ready(enum frame_source f, const char *home, uint64_t past_window_ns,
			   uint64_t presents_past)
{
	struct timespec now, mt;
	struct stat st;
	char *dir, *log, *summary = NULL;
	size_t n;
	bool ready = false;

	if (f == FRAMES_GALLIUM_HUD)
		return past_window_ns >= (uint64_t)(FRAMESOURCE_HUD_AFTER_S * 1e9) &&
		       presents_past >= FRAMESOURCE_HUD_AFTER_PRESENTS;
	if (f != FRAMES_MANGOHUD)
		return true;
	dir = xasprintf("%s/%s", home, FRAMESOURCE_MANGOHUD_DIR);
	log = newest_mangohud_log(dir, &n, &mt);
	if (log) {
		/* MangoHud writes the log and its summary in two threads and
		 * joins them: both there and quiet for a moment is finished */
		summary = xasprintf("%.*s_summary.csv", (int)(strlen(log) - 4), log);
		clock_gettime(CLOCK_REALTIME, &now);
		ready = stat(summary, &st) == 0 && ts_ns(now) > ts_ns(mt) + SETTLED_NS &&
			ts_ns(now) > ts_ns(st.st_mtim) + SETTLED_NS;
	}
	free(summary);
	free(log);
	free(dir);
	return ready;
}

/* Sum of |a[i] - b[i]|, stopping once over limit. */
static uint64_t frame_time_distance(const uint64_t *hook, const uint64_t *log, size_t m,
				    uint64_t limit)
{
	uint64_t sum = 0;

	for (size_t j = 0; j < m && sum <= limit; j++) {
		uint64_t h = hook[j + 1] - hook[j], l = log[j + 1] - log[j];

		sum += h > l ? h - l : l - h;
	}
	return sum;
}

/* The median of |hook frame time - log frame time| over the log's first m
 * (at most ALIGN_COMPARE), the hook's from hook[0]; with hook NULL, of
 * the log's frame times themselves. */
static uint64_t median_difference(const uint64_t *hook, const uint64_t *log, size_t m)
{
	double d[ALIGN_COMPARE];

	for (size_t j = 0; j < m; j++) {
		uint64_t l = log[j + 1] - log[j], h = hook ? hook[j + 1] - hook[j] : 0;

		d[j] = (double)(h > l ? h - l : l - h);
	}
	return (uint64_t)llround(stats_median(d, m));
}

int framesource_align(const uint64_t *hook, size_t n_hook, const uint64_t *log, size_t n_log,
		      struct framesource_align *out)
{
	struct framesource_align a = { 0 };
	uint64_t best = UINT64_MAX, tie_limit, median_ft;
	double dist[ALIGN_COMPARE + 1];
	size_t m, last;

	if (n_hook < 2 || n_log < 2)
		return -EINVAL;
	m = n_log < n_hook ? n_log - 1 : n_hook - 1;
	if (m > ALIGN_COMPARE)
		m = ALIGN_COMPARE;
	for (size_t k = 0; k + m < n_hook; k++) {
		uint64_t d = frame_time_distance(hook + k, log, m, best);

		if (d < best) {
			best = d;
			a.hook_index = k;
		}
	}
	/* placements about as good: a game that presents at a steady rate
	 * matches anywhere, and the choice between them is arbitrary */
	tie_limit = best + best / 100 + m * 1000;
	for (size_t k = 0; k + m < n_hook; k++)
		if (k != a.hook_index && frame_time_distance(hook + k, log, m, tie_limit) <= tie_limit)
			a.ties++;
	a.compared = m;
	a.residual_ns = (double)best / (double)m;
	a.median_ns = median_difference(hook + a.hook_index, log, m);
	a.frame_ns = median_ft = median_difference(NULL, log, m);
	/* where the log's presents are, placed: the median of the distances
	 * of the matched presents, then the median of what is left of them */
	for (size_t j = 0; j <= m; j++)
		dist[j] = (double)(int64_t)(hook[a.hook_index + j] - log[j]);
	a.offset_ns = (int64_t)llround(stats_median(dist, m + 1));
	for (size_t j = 0; j <= m; j++)
		dist[j] = fabs(dist[j] - (double)a.offset_ns);
	a.placed_ns = (uint64_t)llround(stats_median(dist, m + 1));
	if (a.placed_ns > NSEC_PER_MSEC && a.placed_ns > median_ft / 2) {
		*out = a;
		return -ERANGE;
	}
	last = a.hook_index + n_log - 1;
	a.end_matched = last < n_hook;
	if (a.end_matched)
		a.end_error_ns = (int64_t)(log[n_log - 1] + (uint64_t)a.offset_ns - hook[last]);
	*out = a;
	return 0;
}

/* The last present at or before t, or the first one. */
static uint64_t present_at(const uint64_t *t, size_t n, uint64_t at)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid] <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? t[lo - 1] : t[0];
}

#define COVER_SLACK_NS NSEC_PER_MSEC

static void record(struct kvfile *bench, enum frame_source f, const struct import_series *s,
		   const char *rel, const char *abs_log, size_t n_logs, const struct framesource_align *a)
{
	import_series_describe(s, abs_log, rel, bench);
	if (f == FRAMES_MANGOHUD)
		kvfile_addf(bench, "log_files", "%zu", n_logs);
	kvfile_addf(bench, "log_presents", "%zu", s->n_presents);
	kvfile_add(bench, "hook_frames", "hook-frames.bin");
	kvfile_set(bench, "frames_clock", "the log's frame times summed, placed on the hook's "
		   "CLOCK_MONOTONIC by matching frame times (align.*)");
	kvfile_addf(bench, "align.hook_index", "%zu", a->hook_index);
	kvfile_addf(bench, "align.offset_ns", "%lld", (long long)a->offset_ns);
	kvfile_addf(bench, "align.compared", "%zu", a->compared);
	kvfile_addf(bench, "align.residual_ns", "%.0f", a->residual_ns);
	kvfile_addf(bench, "align.median_ns", "%llu", (unsigned long long)a->median_ns);
	kvfile_addf(bench, "align.placed_ns", "%llu", (unsigned long long)a->placed_ns);
	kvfile_addf(bench, "align.frame_ns", "%llu", (unsigned long long)a->frame_ns);
	kvfile_addf(bench, "align.ties", "%zu", a->ties);
	if (a->end_matched)
		kvfile_addf(bench, "align.end_error_ns", "%lld", (long long)a->end_error_ns);
}

static int keep_log(const char *name, const char *home, const char *run_dir, const char *source,
		    char **rel, struct strbuf *err);

/* The frame source's log in HOME, kept in the run directory (its path
 * there, relative, in *rel) and read from root's copy into s (its path in
 * *source): the game's files are read once, by keep_log. */
static int read_log(enum frame_source f, const char *home, const char *run_dir,
		    struct import_series *s, char **source, char **rel, size_t *n_logs,
		    struct strbuf *err)
{
	char *kept = NULL;
	struct import_opts opts = IMPORT_OPTS_DEFAULT;
	char *dir, *log = NULL;
	int r;

	if (!log_dir_name(f)) {
		strbuf_addf(err, "frame source '%s' has no log", frame_source_name(f));
		return -EINVAL;
	}
	dir = xasprintf("%s/%s", home, log_dir_name(f));
	if (f == FRAMES_MANGOHUD) {
		log = newest_mangohud_log(dir, n_logs, NULL);
		if (!log) {
			r = -ENOENT;
			strbuf_addf(err, "no MangoHud log in HOME/%s: MangoHud writes it only when its "
				    "log_duration ends, and the game exited or was stopped before that, "
				    "or MangoHud did not load (see game.log)", FRAMESOURCE_MANGOHUD_DIR);
			goto out;
		}
	} else {
		log = xasprintf("%s/%s", dir, GALLIUM_FILE);
		if (access(log, F_OK) < 0) {
			r = -ENOENT;
			strbuf_addf(err, "no Gallium HUD dump HOME/%s/%s: the game did not draw with "
				    "a Mesa Gallium driver (GALLIUM_HUD works with those only)",
				    FRAMESOURCE_HUD_DIR, GALLIUM_FILE);
			goto out;
		}
		opts.gallium_period_s = 0; /* GALLIUM_HUD_PERIOD=0: a line per frame */
	}
	r = keep_log(frame_source_name(f), home, run_dir, log, rel, err);
	if (r < 0)
		goto out;
	kept = xasprintf("%s/%s", run_dir, *rel);
	r = import_read(f == FRAMES_MANGOHUD ? IMPORT_MANGOHUD : IMPORT_GALLIUM_HUD, kept, &opts, s,
			source, err);
	if (r == 0 && s->n_presents < 2) {
		r = -EINVAL;
		strbuf_addf(err, "the %s log '%s' holds no frame", frame_source_name(f), *source);
	}
out:
	free(kept);
	free(log);
	free(dir);
	return r;
}

/* The log's presents placed on the hook's clock (*t, a new array), when
 * they match the hook's and cover the window: the window's frames end in
 * (start, end], so the log needs the present before the first of them and
 * the last of them. */
static int place_log(const char *name, const struct hb_frames *hook, const struct import_series *s,
		     uint64_t window_start_ns, uint64_t window_end_ns, struct framesource_align *a,
		     uint64_t **t_out, struct strbuf *err)
{
	uint64_t *t, first, last, need_first, need_last;
	double t0;
	int r = framesource_align(hook->t_ns, hook->n, s->t_ns, s->n_presents, a);

	if (r == -EINVAL) {
		strbuf_addf(err, "the %s log has %zu presents, the hook recorded %llu: too few to "
			    "place the log on the run's clock", name, s->n_presents,
			    (unsigned long long)hook->n);
		return -ERANGE;
	}
	if (r < 0) {
		strbuf_addf(err, "the %s log's presents, placed where its frame times match the hook's "
			    "best, lie %.2f ms from the hook's in the median, over half its median frame "
			    "(%.2f ms): not a log of this run's presents", name, a->placed_ns / 1e6,
			    a->frame_ns / 1e6);
		return r;
	}
	t = zalloc(s->n_presents * sizeof(*t));
	for (size_t i = 0; i < s->n_presents; i++)
		t[i] = s->t_ns[i] + (uint64_t)a->offset_ns;
	first = t[0];
	last = t[s->n_presents - 1];
	need_first = present_at(hook->t_ns, hook->n, window_start_ns);
	need_last = present_at(hook->t_ns, hook->n, window_end_ns);
	if (first <= need_first + COVER_SLACK_NS && last + COVER_SLACK_NS >= need_last) {
		*t_out = t;
		return 0;
	}
	t0 = (double)hook->t_ns[0];
	strbuf_addf(err, "the %s log covers %.2f-%.2f s after the first frame, the window "
		    "%.2f-%.2f s: %s", name, ((double)first - t0) / 1e9, ((double)last - t0) / 1e9,
		    ((double)window_start_ns - t0) / 1e9, ((double)window_end_ns - t0) / 1e9,
		    first > need_first + COVER_SLACK_NS
			    ? "it starts too late (MangoHud logs from 1 s after it loads: a "
			      "longer warm-up)"
			    : "it ends too early");
	free(t);
	return -ERANGE;
}

/* Copies HOME/rel, the game's, to root's path kept: never through a
 * symlink anywhere under HOME, a regular file only, at most
 * HB_READ_FILE_MAX bytes. */
static int keep_untrusted(const char *home, const char *rel, const char *kept)
{
	int in = open_regular_beneath(home, rel, NULL), out, r;

	if (in < 0)
		return in;
	out = open(kept, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	r = copy_fd(in, out, HB_READ_FILE_MAX);
	if (close(out) < 0 && r == 0)
		r = -errno;
	close(in);
	if (r < 0)
		unlink(kept);
	return r;
}

/* The log kept in the run directory's home/ (the runner's copy of HOME
 * skips big files); its path there, relative, in *rel. */
static int keep_log(const char *name, const char *home, const char *run_dir, const char *source,
		    char **rel, struct strbuf *err)
{
	char *kept, *parent;
	struct stat st;
	int r = 0;

	*rel = xasprintf("home/%s", source + strlen(home) + 1);
	kept = xasprintf("%s/%s", run_dir, *rel);
	/* the copy of HOME holds it already, unless what it holds there is a
	 * link (the game's to point anywhere) */
	if (lstat(kept, &st) == 0 && S_ISREG(st.st_mode))
		goto out;
	if (unlink(kept) < 0 && errno != ENOENT) {
		r = -errno;
		goto fail;
	}
	parent = xstrdup(kept);
	*strrchr(parent, '/') = '\0';
	r = mkdir_p(parent, 0755);
	/* the copy of HOME keeps the game's links as links: the log goes
	 * through real directories of root's only */
	for (char *c = parent + strlen(run_dir); r == 0 && c; c = strchr(c + 1, '/')) {
		*c = '\0';
		if (lstat(parent, &st) < 0 || !S_ISDIR(st.st_mode))
			r = -ELOOP;
		*c = '/';
	}
	if (r == 0 && (lstat(parent, &st) < 0 || !S_ISDIR(st.st_mode)))
		r = -ELOOP;
	free(parent);
	if (r == 0)
		r = keep_untrusted(home, source + strlen(home) + 1, kept);
fail:
	if (r < 0)
		strbuf_addf(err, "cannot keep the %s log as '%s': %s", name, kept, strerror(-r));
out:
	free(kept);
	return r;
}

/* frames.bin becomes hook-frames.bin, and the log's presents frames.bin. */
static int replace_frames(enum frame_source f, const char *run_dir, const uint64_t *t, size_t n,
			  struct strbuf *err)
{
	char *frames = xasprintf("%s/frames.bin", run_dir);
	char *hook_frames = xasprintf("%s/hook-frames.bin", run_dir);
	int r = 0;

	if (rename(frames, hook_frames) < 0) {
		r = -errno;
		strbuf_addf(err, "cannot rename '%s': %s", frames, strerror(errno));
		goto out;
	}
	r = hb_frames_write(frames, t, n, f == FRAMES_MANGOHUD ? HB_SRC_MANGOHUD : HB_SRC_GALLIUM_HUD,
			    0644);
	if (r < 0) {
		strbuf_addf(err, "cannot write '%s': %s", frames, strerror(-r));
		rename(hook_frames, frames);
	}
out:
	free(frames);
	free(hook_frames);
	return r;
}

int framesource_collect(enum frame_source f, const char *home, const char *run_dir,
			uint64_t window_start_ns, uint64_t window_end_ns, struct kvfile *bench,
			struct strbuf *err)
{
	struct import_series s;
	struct framesource_align a;
	struct hb_frames hook = { 0 };
	const char *why = NULL, *name = frame_source_name(f);
	char *source = NULL, *rel = NULL;
	char *frames = xasprintf("%s/frames.bin", run_dir);
	uint64_t *t = NULL;
	size_t n_logs = 1;
	int r;

	import_series_init(&s);
	r = read_log(f, home, run_dir, &s, &source, &rel, &n_logs, err);
	if (r < 0)
		goto out;
	r = hb_frames_load(frames, &hook, &why);
	if (r < 0) {
		strbuf_addf(err, "cannot read the hook's frames '%s': %s", frames, why ? why : strerror(-r));
		goto out;
	}
	r = place_log(name, &hook, &s, window_start_ns, window_end_ns, &a, &t, err);
	if (r == 0)
		r = replace_frames(f, run_dir, t, s.n_presents, err);
	if (r == 0)
		record(bench, f, &s, rel, source, n_logs, &a);
out:
	free(t);
	hb_frames_release(&hook);
	import_series_release(&s);
	free(rel);
	free(source);
	free(frames);
	return r;
}
