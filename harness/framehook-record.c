/*
 * The frame hook's recording half: the frame file the runner created
 * (frames.h), mapped once at load, and the stamp of every present into
 * it, whichever API presented (framehook-gl.c's interposers, the Vulkan
 * layer in framehook-vk.c). It runs inside the measured program, so it
 * must cost little, never crash or block the game, and say nothing per
 * frame.
 *
 * A present often nests (SDL_GL_SwapWindow calls glXSwapBuffers; under
 * Zink, glXSwapBuffers calls vkQueuePresentKHR): a thread-local depth
 * makes only the outermost call record, under its name.
 *
 * Per present: two vDSO clock reads (four on one present in HB_COST_EVERY,
 * to measure the hook's own cost), one atomic add to reserve a slot, one
 * 16-byte record written into a MAP_SHARED mapping of the file. No system
 * call, lock, allocation or message. The pages belong to the file, so a
 * game killed with SIGKILL loses no finished record.
 *
 * Without HITCHBENCH_FRAMES the hook still interposes (the game behaves the
 * same) but records nothing.
 *
 * The SLOWDOWN switch (bench/switch/switch-slowdown.c) makes the hook a known
 * effect: with HITCHBENCH_SLOWDOWN_PCT or _US (read once, at load), or a
 * flip run's live figure in the frame file's header (slowdown_live, loaded
 * at every present; the runner changes it while the game plays), each
 * recorded present, once stamped and before the real call, busy-waits on
 * the vDSO clock for PCT% of the frame that ended at it, less the spin
 * that frame already held, or for N us. Still no system call; the spin is
 * kept out of the hook's cost and of present_us, and summed in the header
 * (spin_ns, spin_presents) so that the run says what was injected.
 */
#include "framehook.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The mapped frame file; NULL when not recording. Written once by the
 * constructor, before the game's main() and its threads (or, for a layer
 * the Vulkan loader opens, before the loader asks it for anything). */
static struct hb_frames_header *frames_header;
static struct hb_frame_record *frames_records;
static uint64_t frames_capacity;
static struct hb_frame_event *frames_events;
static uint64_t frames_event_capacity;
static uint32_t cached_pid;

/* Presents of this thread in progress: only the outermost records. */
static __thread unsigned present_depth __attribute__((tls_model("initial-exec")));

/* The SLOWDOWN spin, set once by the constructor: a fraction of the frame
 * before each present, or a fixed time; both 0 when off. */
static double slow_fraction;
static uint64_t slow_fixed_ns;
/* This thread's previous recorded present and the spin it did (a frame is
 * the interval between one thread's presents: a game presents from one). */
static __thread uint64_t slow_last_ns __attribute__((tls_model("initial-exec")));
static __thread uint64_t slow_last_spin_ns __attribute__((tls_model("initial-exec")));

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool hook_recording(void)
{
	return frames_header != NULL;
}

/*
 * SLOWDOWN: busy-waits on the clock (vDSO, no system call) before the
 * real call. A fraction spins for that fraction of the game's own time in
 * the frame that ended at this present: the interval since this thread's
 * previous present less the spin done at that one, so that each frame
 * grows by the fraction of the game's time (a spin of a fraction of the
 * whole interval would feed on itself: f/(1-f) in the end). Nothing at a
 * thread's first present.
 */
static inline void slow_spin(struct present *p, double fraction, uint64_t fixed_ns)
{
	uint64_t want = fixed_ns, start, t;

	p->spin_ns = 0;
	if (fraction > 0 || !fixed_ns) {
		uint64_t frame = 0;

		if (slow_last_ns && p->t_entry > slow_last_ns)
			frame = p->t_entry - slow_last_ns;
		frame = frame > slow_last_spin_ns ? frame - slow_last_spin_ns : 0;
		want = (uint64_t)((double)frame * fraction);
		slow_last_ns = p->t_entry;
	}
	if (want == 0) {
		slow_last_spin_ns = 0;
		return;
	}
	start = now_ns();
	do
		t = now_ns();
	while (t - start < want);
	p->spin_ns = t - start;
	slow_last_spin_ns = p->spin_ns;
	__atomic_fetch_add(&frames_header->spin_ns, p->spin_ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&frames_header->spin_presents, 1, __ATOMIC_RELAXED);
}

void present_begin(struct present *p, uint16_t source)
{
	struct hb_frame_record *rec;
	uint32_t live;

	p->recording = false;
	if (present_depth++ > 0 || !frames_header)
		return;
	p->t_entry = now_ns();
	p->recording = true;
	p->slot = __atomic_fetch_add(&frames_header->count, 1, __ATOMIC_RELAXED);
	if (p->slot < frames_capacity) {
		/* The present is stamped before the real call, so a game killed
		 * inside it (a hung swap) still leaves this frame behind. t_ns
		 * last, released: a reader sees it only with pid and source. */
		rec = &frames_records[p->slot];
		rec->pid = cached_pid;
		rec->source = source;
		__atomic_store_n(&rec->t_ns, p->t_entry, __ATOMIC_RELEASE);
	} else {
		__atomic_fetch_add(&frames_header->dropped, 1, __ATOMIC_RELAXED);
	}
	/* One present in HB_COST_EVERY is timed, at an offset that moves from
	 * block to block (37 is odd: every offset in turn), so the timed ones
	 * are not always the first of a page of the frame file, whose write
	 * faults the page in: an unbiased sample of the cost per present. */
	p->sampled = (p->slot % HB_COST_EVERY) == (p->slot / HB_COST_EVERY * 37 % HB_COST_EVERY);
	if (p->sampled)
		p->t_call = now_ns();
	/* a flip run's live figure (one load, no system call) replaces the
	 * environment's; while it is set the frame before each present is
	 * tracked even at 0%, so the first spin after a switch to a figure
	 * measures one frame, not the time since the last spin */
	live = __atomic_load_n(&frames_header->slowdown_live, __ATOMIC_RELAXED);
	if (live & HB_SLOWDOWN_LIVE) {
		live &= ~HB_SLOWDOWN_LIVE;
		slow_spin(p, (double)(live > HB_SLOWDOWN_LIVE_MAX ? HB_SLOWDOWN_LIVE_MAX : live) / 1e5, 0);
	} else if (slow_fraction > 0 || slow_fixed_ns) {
		slow_spin(p, slow_fraction, slow_fixed_ns);
	} else {
		p->spin_ns = 0;
	}
}

void present_end(struct present *p)
{
	uint64_t us;

	present_depth--;
	if (!p->recording)
		return;
	p->t_return = now_ns();
	if (p->slot < frames_capacity) {
		us = (p->t_return - p->t_entry - p->spin_ns) / 1000;
		frames_records[p->slot].present_us = us > UINT16_MAX ? UINT16_MAX : (uint16_t)us;
	}
	if (p->sampled) {
		/* the spin came after t_call: not the hook's cost */
		uint64_t cost = (p->t_call - p->t_entry) + (now_ns() - p->t_return);

		__atomic_fetch_add(&frames_header->cost_ns, cost, __ATOMIC_RELAXED);
		__atomic_fetch_add(&frames_header->cost_samples, 1, __ATOMIC_RELAXED);
	}
}

/*
 * A swapchain event of the Vulkan layer, written as a record is: the slot
 * reserved, every field but the time filled, the time stored last
 * (released). An event past the file's room is counted in event_count
 * and lost. Called where a swapchain is made or destroyed, never per
 * present.
 */
void hook_event_write(const struct hb_frame_event *ev)
{
	struct hb_frame_event *slot;
	uint64_t i;

	if (!frames_header)
		return;
	i = __atomic_fetch_add(&frames_header->event_count, 1, __ATOMIC_RELAXED);
	if (i >= frames_event_capacity)
		return;
	slot = &frames_events[i];
	*slot = *ev;
	slot->t_ns = 0;
	slot->pid = cached_pid;
	__atomic_store_n(&slot->t_ns, now_ns(), __ATOMIC_RELEASE);
}

void hook_count_vk_instance(void)
{
	if (frames_header)
		__atomic_fetch_add(&frames_header->vk_instances, 1, __ATOMIC_RELAXED);
}

/* A forked child presents under its own pid. */
static void hook_atfork_child(void)
{
	cached_pid = (uint32_t)getpid();
}

/*
 * Maps the frame file the runner created. 0 or -errno; *why says what was
 * wrong with a file that opened. The header is checked against this
 * build's format (version 2 exactly: the events' slots, then the
 * records), and the file's size against both capacities: a store past
 * the end of a shared mapping would kill the game with SIGBUS.
 */
static int frames_map(const char *path, const char **why)
{
	struct hb_frames_header h;
	struct stat st;
	uint64_t bytes;
	void *map;
	int fd, r = 0;

	*why = NULL;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		*why = "shorter than the frame file header";
		r = -EINVAL;
		goto out;
	}
	if (memcmp(h.magic, HB_FRAMES_MAGIC, sizeof(h.magic)) != 0 || h.version != HB_FRAMES_VERSION ||
	    h.header_size != sizeof(h) || h.record_size != sizeof(struct hb_frame_record) ||
	    h.event_size != sizeof(struct hb_frame_event) ||
	    h.records_offset != sizeof(h) + (uint64_t)h.event_capacity * h.event_size ||
	    h.clock_id != CLOCK_MONOTONIC) {
		*why = "not a frame file of this hook's format version";
		r = -EINVAL;
		goto out;
	}
	/* event_capacity is 32 bits: records_offset cannot overflow */
	if (h.capacity == 0 || h.records_offset > SIZE_MAX ||
	    h.capacity > (SIZE_MAX - h.records_offset) / sizeof(struct hb_frame_record)) {
		*why = "frame file capacity out of range";
		r = -EINVAL;
		goto out;
	}
	bytes = h.records_offset + h.capacity * sizeof(struct hb_frame_record);
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if ((uint64_t)st.st_size < bytes) {
		*why = "frame file smaller than its capacity";
		r = -EINVAL;
		goto out;
	}
	map = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		r = -errno;
		goto out;
	}
	frames_header = map;
	frames_events = (struct hb_frame_event *)((char *)map + sizeof(h));
	frames_event_capacity = h.event_capacity;
	frames_records = (struct hb_frame_record *)((char *)map + h.records_offset);
	frames_capacity = h.capacity;
out:
	close(fd);
	return r;
}

/*
 * The SLOWDOWN figure from the environment, once: PCT (0 to 100, decimals
 * allowed) or US (0 to HB_SLOWDOWN_US_MAX). A bad value is said and spins
 * nothing; the runner checked it before, so this is someone else's start.
 */
static void slow_init(void)
{
	const char *pct = getenv(HB_SLOWDOWN_PCT_ENV), *us = getenv(HB_SLOWDOWN_US_ENV);
	char *end;

	if (pct && *pct) {
		double v;

		errno = 0;
		v = strtod(pct, &end);
		if (errno || *end || !(v >= 0 && v <= 100))
			fprintf(stderr, "hitchbench-hook: %s='%s' is not 0 to 100: no slowdown\n",
				HB_SLOWDOWN_PCT_ENV, pct);
		else
			slow_fraction = v / 100.0;
	}
	if (us && *us) {
		unsigned long long v;

		errno = 0;
		v = strtoull(us, &end, 10);
		if (errno || *end || us[0] == '-' || v > HB_SLOWDOWN_US_MAX)
			fprintf(stderr, "hitchbench-hook: %s='%s' is not 0 to %u: no slowdown\n",
				HB_SLOWDOWN_US_ENV, us, HB_SLOWDOWN_US_MAX);
		else
			slow_fixed_ns = (uint64_t)v * 1000u;
	}
	if (slow_fraction > 0 && slow_fixed_ns) {
		fprintf(stderr, "hitchbench-hook: both %s and %s: no slowdown\n", HB_SLOWDOWN_PCT_ENV,
			HB_SLOWDOWN_US_ENV);
		slow_fraction = 0;
		slow_fixed_ns = 0;
	}
}

__attribute__((constructor)) static void hook_init(void)
{
	const char *path = getenv(HB_FRAMES_ENV);
	const char *why = NULL;
	int r;

	hook_gl_init();
	if (!path || !*path)
		return;
	cached_pid = (uint32_t)getpid();
	r = pthread_atfork(NULL, NULL, hook_atfork_child);
	if (r == 0)
		r = frames_map(path, &why);
	else
		r = -r;
	if (r < 0) {
		fprintf(stderr, "hitchbench-hook: not recording frames: '%s': %s\n", path,
			why ? why : strerror(-r));
		return;
	}
	__atomic_fetch_add(&frames_header->hooked_procs, 1, __ATOMIC_RELAXED);
	slow_init();
}
