/*
 * The frame file: hitchbench's record of every present of a run, written by
 * the frame hook (harness/framehook*.c: the GL hook and the Vulkan layer)
 * from inside the game and read by the analysis. Format version 2,
 * documented in docs/formats.md; version 1 files (no events) still load.
 *
 * The runner creates the file (header filled, file sized sparse to
 * HB_FRAMES_CAPACITY records) before the game starts; every process of the
 * game that presents maps it MAP_SHARED and appends records without a system
 * call: a slot is reserved with an atomic add on the header's count, then
 * the record is filled. A killed game loses nothing (the pages belong to the
 * file, not the process). After the run the runner copies the records
 * written through its view (hb_frames_view_keep()); the game's file is
 * never written by root after its creation, save slowdown_live.
 *
 * Byte order: a finished file (a run directory's, hb_frames_write()'s) is
 * little-endian, whatever machine wrote it: it travels from a target to
 * the host (docs/formats.md, "Byte order"). The live file, which the hook
 * fills with atomics, is in the writer's order; the runner makes its copy
 * little-endian (hb_frames_keep()). Readers tell the order from the
 * header and read both.
 * A record is stamped (t_ns, pid, source) before the real present is
 * called and completed (present_us) after it returns. The record of an
 * unfinished write (a game killed between reserving and stamping a slot)
 * has t_ns == 0 and is skipped by readers.
 *
 * Version 2 adds events (what a reader of the frame times needs besides
 * the presents: a Vulkan swapchain's creation, with its present mode,
 * images and extent, and its destruction) in a region of fixed slots
 * between the header and the records, written as records are; and the
 * source vkQueuePresentKHR. Which API a frame came from follows from its
 * source (hb_present_source_api()).
 */
#ifndef HB_FRAMES_H
#define HB_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HB_FRAMES_MAGIC "HBFRAMES"
#define HB_FRAMES_VERSION 2
#define HB_FRAMES_VERSION_MIN 1 /* the oldest this build reads */
#define HB_FRAMES_CAPACITY (16u * 1024 * 1024) /* records: 4.6 h at 1000 fps */
#define HB_FRAMES_EVENT_CAPACITY 1024u           /* event slots of a file the runner creates */

/* Which function presented (the outermost hooked call of a present). */
enum hb_present_source {
	HB_SRC_UNKNOWN = 0,
	HB_SRC_GLX_SWAP_BUFFERS = 1,
	HB_SRC_EGL_SWAP_BUFFERS = 2,
	HB_SRC_SDL_GL_SWAP_WINDOW = 3,
	HB_SRC_SDL_RENDER_PRESENT = 4,
	HB_SRC_SDL_GL_SWAP_BUFFERS = 5, /* SDL 1.2 */
	/* frames read from another tool's log (hitchbench import, or a recipe's
	 * frames = mangohud): present times summed from its frame times */
	HB_SRC_MANGOHUD = 6,
	HB_SRC_GALLIUM_HUD = 7,
	HB_SRC_PRESENTMON = 8,
	HB_SRC_VK_QUEUE_PRESENT = 9, /* the Vulkan layer (version 2) */
	/* more tools' logs (added within version 2: an older reader counts
	 * them as unknown) */
	HB_SRC_OCAT = 10,
	HB_SRC_FRAMEVIEW = 11,
	HB_SRC_CAPFRAMEX = 12,
	HB_SRC_MAX
};

/* The API a present went through (from its source). */
enum hb_api {
	HB_API_UNKNOWN = 0,
	HB_API_OPENGL = 1,       /* glXSwapBuffers, eglSwapBuffers, SDL's GL swaps */
	HB_API_VULKAN = 2,       /* vkQueuePresentKHR */
	HB_API_SDL_RENDERER = 3, /* SDL_RenderPresent: whatever SDL's renderer drew with */
	HB_API_LOG = 4,          /* frames read from another tool's log */
	HB_API_MAX
};

/* What an event records. */
enum hb_event_kind {
	HB_EV_SWAPCHAIN_CREATE = 1,  /* a swapchain made; a recreation has old_object or a surface seen before */
	HB_EV_SWAPCHAIN_DESTROY = 2,
	HB_EV_MAX
};

struct hb_frames_header {
	char magic[8];          /* "HBFRAMES" */
	uint32_t version;       /* HB_FRAMES_VERSION */
	uint32_t header_size;   /* sizeof(struct hb_frames_header): records start here */
	uint32_t record_size;   /* sizeof(struct hb_frame_record) */
	uint32_t clock_id;      /* CLOCK_MONOTONIC (1): the clock of t_ns */
	uint64_t capacity;      /* records the file has room for */
	uint64_t count;         /* slots reserved (atomic); may exceed capacity: see dropped */
	uint64_t dropped;       /* presents not recorded because the file was full (atomic) */
	uint64_t cost_ns;       /* the hook's own time, summed over sampled presents (atomic) */
	uint64_t cost_samples;  /* presents whose cost was sampled (one in HB_COST_EVERY) */
	uint64_t hooked_procs;  /* processes that mapped the file (atomic) */
	/* The SLOWDOWN switch's spin (bench/switch/switch-slowdown.c): ns the hook
	 * busy-waited in all, and at how many presents (atomic). Zero without
	 * it, as in files written before these fields. */
	uint64_t spin_ns;
	uint64_t spin_presents;
	/* Version 2. Events sit between the header and the records. */
	uint64_t records_offset; /* where record 0 is: header_size + event_capacity * event_size */
	uint32_t event_size;     /* sizeof(struct hb_frame_event) */
	uint32_t event_capacity; /* event slots (0: none) */
	uint64_t event_count;    /* event slots reserved (atomic); may exceed event_capacity */
	uint64_t vk_instances;   /* VkInstances the Vulkan layer recorded in (atomic) */
	/* A flip run's live SLOWDOWN figure (the runner writes it while the
	 * game plays; the hook loads it at every present): 0, as in every file
	 * written before it, leaves the environment's figure in force;
	 * HB_SLOWDOWN_LIVE | thousandths of a percent (0 to 100000) replaces
	 * it. Only the runner writes it; the hook only reads it. */
	uint32_t slowdown_live;
	uint8_t reserved[4];     /* zero; room for later fields (header is 128 bytes) */
};

struct hb_frame_record {
	uint64_t t_ns;          /* CLOCK_MONOTONIC at the present call's entry */
	uint32_t pid;           /* process that presented */
	uint16_t source;        /* enum hb_present_source */
	uint16_t present_us;    /* time spent in the real present, us, saturating at 65535;
				 * 0 also when the game died inside the present */
};

/* An event (version 2), written as a record is: a slot reserved with an
 * atomic add on event_count, every field filled, t_ns last (released). A
 * destroy fills object (and surface when known) and leaves the rest 0. */
struct hb_frame_event {
	uint64_t t_ns;            /* CLOCK_MONOTONIC; 0: unfinished, skipped */
	uint32_t pid;
	uint16_t kind;            /* enum hb_event_kind */
	uint16_t api;             /* enum hb_api */
	uint64_t object;          /* the swapchain (its handle's value) */
	uint64_t old_object;      /* create: the oldSwapchain it replaces, 0 if none */
	uint64_t surface;         /* the VkSurfaceKHR it presents to */
	uint32_t width, height;   /* the image extent */
	uint32_t present_mode;    /* VkPresentModeKHR: 0 IMMEDIATE, 1 MAILBOX, 2 FIFO, 3 FIFO_RELAXED */
	uint32_t min_image_count; /* images asked for */
	uint32_t image_count;     /* images got; 0: unknown */
	uint32_t format;          /* VkFormat */
};

#define HB_COST_EVERY 64 /* the hook times one present in 64 (a moving offset: unbiased) */

_Static_assert(sizeof(struct hb_frames_header) == 128, "frames header is 128 bytes");
_Static_assert(sizeof(struct hb_frame_record) == 16, "frame record is 16 bytes");
_Static_assert(sizeof(struct hb_frame_event) == 64, "frame event is 64 bytes");

#define HB_FRAMES_ENV "HITCHBENCH_FRAMES" /* the hook's input: the file's path */
/* The SLOWDOWN switch's figure, read by the hook at load: spin at each
 * present for PCT% of the frame before it, or for N microseconds. */
#define HB_SLOWDOWN_PCT_ENV "HITCHBENCH_SLOWDOWN_PCT"
#define HB_SLOWDOWN_US_ENV "HITCHBENCH_SLOWDOWN_US"
#define HB_SLOWDOWN_US_MAX 1000000u
/* slowdown_live: the flag that it is set, and its largest figure. */
#define HB_SLOWDOWN_LIVE 0x80000000u
#define HB_SLOWDOWN_LIVE_MAX 100000u /* 100%, in thousandths of a percent */

/* The Vulkan layer: an implicit layer, loaded by the Vulkan loader when
 * HB_VK_ENABLE_ENV=1 is set, from a manifest named HB_VK_MANIFEST_NAME in a
 * vulkan/implicit_layer.d directory (docs/framehook.md). The layer's name
 * and the variable that disables it are the manifest's own
 * (harness/VkLayer_hitchbench.json.in), read by the loader alone. */
#define HB_VK_ENABLE_ENV "HITCHBENCH_VULKAN"
#define HB_VK_MANIFEST_NAME "VkLayer_hitchbench.json"

const char *hb_present_source_name(unsigned source);
/* enum hb_api of a source; its name ("opengl", "vulkan", "sdl-renderer",
 * "log", "unknown"); the name of a VkPresentModeKHR value ("fifo", ...,
 * "mode-N" for one this build does not name, in buf). */
unsigned hb_present_source_api(unsigned source);
const char *hb_api_name(unsigned api);
const char *hb_present_mode_name(uint32_t mode, char buf[24]);

/*
 * A live view of a frame file being written: the runner and root's stall
 * recorder watch the game's presents through it. The file is the game's
 * (its hook maps it read-write): any byte of it may change, and the file
 * may be cut, at any moment. So the view trusts nothing in it after open
 * (docs/formats.md, "What a reader of the live file trusts"):
 * - at open, the header is read once and its layout (capacity, where the
 *   records start, the sizes) checked against itself and against the
 *   file's size (fstat); those values are kept here, private, and never
 *   read from the file again;
 * - every later read is a pread() from the file into a private copy, never
 *   a load from a shared mapping: a file cut short gives a short read (no
 *   SIGBUS), a rewritten capacity is never used as a bound;
 * - each copy is checked: the header's fixed fields as at open, a count
 *   that never goes backwards (clamped to the kept capacity), presents not
 *   stamped in the future, no run of reserved slots far past the last
 *   stamped one, the file not shorter than at open. The first check that
 *   fails makes the view "tampered" (hb_frames_view_tampered() says why):
 *   from then on its count stays at the last trusted one and the caller
 *   marks the run invalid.
 * Each call costs a pread or two (a header, or up to a kilobyte of
 * records), whatever the file says.
 */
struct hb_frames_view {
	int fd;
	bool is_open;
	bool swapped;            /* the file is in the other byte order */
	unsigned char fixed[sizeof(struct hb_frames_header)]; /* the header at open, as read */
	uint64_t capacity;       /* validated at open: records the file has room for */
	uint64_t records_offset; /* validated at open */
	uint64_t size;           /* the file's size at open (holds every record) */
	uint64_t raw_count;      /* the last count read (may exceed the capacity) */
	uint64_t count;          /* the same, at most the capacity */
	uint64_t last_t;         /* the latest stamped present seen */
	const char *tampered;    /* why the view stopped trusting the file, or NULL */
};
/* 0 or -errno: -EINVAL when the file is no live frame file of this
 * version or its header's capacity does not fit in the file (*why, when
 * why is not NULL, says which); -ELOOP for a symbolic link. */
int hb_frames_view_open(struct hb_frames_view *v, const char *path, const char **why);
void hb_frames_view_close(struct hb_frames_view *v);
/* Slots reserved so far (at most the capacity). */
uint64_t hb_frames_view_count(struct hb_frames_view *v);
/* The present time of slot i; 0 while it is not stamped yet (or out of
 * the file). */
uint64_t hb_frames_view_time(struct hb_frames_view *v, uint64_t i);
/* The time of the last stamped present; 0 if none (a count read, then
 * hb_frames_view_latest()). */
uint64_t hb_frames_view_last(struct hb_frames_view *v);
/* The last stamped record below the count last read (no new read of the
 * header: one pread of at most 64 records): 0, -ENOENT (none), -EIO. */
int hb_frames_view_latest(struct hb_frames_view *v, struct hb_frame_record *out);
/* A copy of the header as it is now, its fixed fields checked: 0, or -EIO
 * (the view is tampered; *out then holds the header at open). */
int hb_frames_view_header(struct hb_frames_view *v, struct hb_frames_header *out);
/* Every check once more, the file's size included (fstat): what a caller
 * does before it trusts what it saw. NULL, or why the view is tampered. */
const char *hb_frames_view_check(struct hb_frames_view *v);
/* Writes slowdown_live (the one field root writes in the game's file) into
 * the file at path, when it is the file the view opened (not followed
 * through a link, the same device and inode): 0, -ESTALE (another file),
 * or -errno. */
int hb_frames_view_set_slowdown(struct hb_frames_view *v, const char *path, uint32_t live);
/* NULL, or why the view stopped trusting the file (the first reason). */
const char *hb_frames_view_tampered(const struct hb_frames_view *v);
/* What the runner keeps of the live file, through the view (never through
 * the path, never writing the live file): the header with its layout as at
 * open, the event slots, and the min(count, capacity) records the file
 * still holds, into dst (in the file's byte order). A file cut short gives
 * a kept file cut short (hb_frames_cut()). 0 or -errno. */
int hb_frames_view_keep(struct hb_frames_view *v, const char *dst, int mode);

/* A frame file loaded for analysis: the finished records' present times. */
struct hb_frames {
	uint64_t *t_ns;         /* present times, sorted ascending */
	uint16_t *source;       /* each one's source (enum hb_present_source), beside t_ns */
	uint32_t *pid;          /* each one's process (0: not known, as in imported logs) */
	uint64_t n;
	uint64_t dropped;       /* presents the hook could not record */
	uint64_t unfinished;    /* reserved slots never filled (game killed mid-write) */
	uint64_t cost_ns;
	uint64_t cost_samples;
	uint64_t hooked_procs;
	uint64_t spin_ns, spin_presents;
	uint64_t per_source[HB_SRC_MAX];
	unsigned version;       /* the file's format version */
	/* Version 2: the finished events, in time order. */
	struct hb_frame_event *events;
	uint64_t n_events;
	uint64_t events_unfinished;
	uint64_t events_dropped; /* events past the file's event slots */
	uint64_t vk_instances;
	/* Whether the file is whole: the header's records (min(count,
	 * capacity)) against the whole records the file holds. A file the
	 * runner kept holds exactly its records, a live one (never kept) is
	 * sized to its capacity; fewer in the file than in the header is a
	 * file cut short (a copy that stopped, a full disk), of which only
	 * what is there was read (hb_frames_cut()). */
	uint64_t header_records;
	uint64_t file_records;
	bool big_endian;        /* the file's byte order (a big-endian writer's live file) */
};

/* Creates an empty frame file (header written, HB_FRAMES_EVENT_CAPACITY
 * event slots, sized for the capacity). 0 or -errno. */
int hb_frames_create(const char *path, uint64_t capacity, int mode);
/* Writes a finished frame file of n presents (t_ns ascending, none 0),
 * every record with this source and pid 0, and no event slots, through a
 * temporary file and a rename. 0 or -errno. */
int hb_frames_write(const char *path, const uint64_t *t_ns, size_t n, unsigned source, int mode);
/* The same with each present's pid (pid NULL: 0 for all). */
int hb_frames_write_pids(const char *path, const uint64_t *t_ns, const uint32_t *pid, size_t n,
			 unsigned source, int mode);
/* Truncates a frame file to the records it holds (its events kept).
 * 0 or -errno. Used by the tests (tests/unit) to make finished files: the
 * runner never writes the game's live file (hb_frames_view_keep()). */
int hb_frames_trim(const char *path);

/*
 * Byte order. header_size (offset 12) is at least 128 and below 65536 in
 * every version, so it reads so in one byte order only: the file's.
 */
/* 1 when a frame file's bytes are big-endian, 0 little-endian, -EINVAL
 * when the header is no frame file's. */
int hb_frames_big_endian(const void *data, size_t len);
/* Rewrites a frame file's bytes in the other byte order: the header, the
 * event slots and every whole record that len holds. 0 or -EINVAL (not a
 * frame file this build reads). */
int hb_frames_swap(void *data, size_t len);
/* Makes the frame file at path little-endian in place; one that is
 * already (every file a little-endian machine writes) is left untouched.
 * 0 or -errno. */
int hb_frames_to_le(const char *path);
/* What the runner keeps of a run's live frame file at path (a dead
 * runner's, found later): opened as a view and kept through it
 * (hb_frames_view_keep()), the live file untouched; dst is made
 * little-endian. 0 or -errno. */
int hb_frames_keep(const char *live, const char *dst, int mode);
/* Parses a frame file's bytes. 0, -EINVAL (not a frame file, or a newer
 * version: *why says which), or -ENOMEM. A file cut short is read as far
 * as it goes and is no error here: the caller decides (hb_frames_cut()). */
int hb_frames_parse(const void *data, size_t len, struct hb_frames *out, const char **why);
int hb_frames_load(const char *path, struct hb_frames *out, const char **why);
void hb_frames_release(struct hb_frames *f);
/* Whether the file held fewer records than its header says were written. */
bool hb_frames_cut(const struct hb_frames *f);

#endif
