/*
 * common/formats/frames.c: the frame file as the runner creates it, as the hook
 * leaves it (records built by hand here, including an unfinished one and
 * presents stamped out of order), with its events (version 2), trimmed,
 * a version 1 file still read, and refused when it is not a frame file
 * this hitchbench can read.
 */
#include "formats/frames.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char *tmp;
static char *path;

static void setup(void)
{
	tmp = test_tmpdir();
	path = xasprintf("%s/frames.bin", tmp);
}

static void teardown(void)
{
	remove_tree(tmp);
	free(tmp);
	free(path);
}

static off_t file_size(const char *p)
{
	struct stat st;

	ck_assert_int_eq(stat(p, &st), 0);
	return st.st_size;
}

static void header_init(struct hb_frames_header *h, uint64_t capacity, uint64_t count)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, HB_FRAMES_MAGIC, 8);
	h->version = HB_FRAMES_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = sizeof(struct hb_frame_record);
	h->clock_id = CLOCK_MONOTONIC;
	h->capacity = capacity;
	h->count = count;
	h->event_size = sizeof(struct hb_frame_event);
	h->records_offset = sizeof(*h);
}

#define EVENTS_BYTES (HB_FRAMES_EVENT_CAPACITY * 64)

static struct hb_frame_event swapchain_event(uint64_t t_ns, uint16_t kind, uint64_t object, uint64_t old)
{
	struct hb_frame_event e = { .t_ns = t_ns, .pid = 7, .kind = kind, .api = HB_API_VULKAN,
				    .object = object, .old_object = old, .surface = 0x55,
				    .width = 800, .height = 600, .present_mode = 2,
				    .min_image_count = 3, .image_count = 3, .format = 44 };

	return e;
}

static struct hb_frame_record rec(uint64_t t_ns, uint32_t pid, uint16_t source)
{
	struct hb_frame_record r = { t_ns, pid, source, 100 };

	return r;
}

/* A header and its records in one buffer, as the mapped file holds them. */
struct image {
	struct hb_frames_header h;
	struct hb_frame_record r[8];
};

START_TEST(create_empty)
{
	struct hb_frames f;
	struct hb_frames_header h;
	const char *why = NULL;
	struct stat st;
	int fd;

	ck_assert_int_eq(hb_frames_create(path, 1000, 0640), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0640);
	ck_assert_int_eq(st.st_size, 128 + EVENTS_BYTES + 1000 * 16);
	/* the header as the hook expects it */
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &h, sizeof(h), 0), sizeof(h));
	close(fd);
	ck_assert_int_eq(memcmp(h.magic, "HBFRAMES", 8), 0);
	ck_assert_uint_eq(h.version, 2);
	ck_assert_uint_eq(h.header_size, 128);
	ck_assert_uint_eq(h.record_size, 16);
	ck_assert_uint_eq(h.event_size, 64);
	ck_assert_uint_eq(h.event_capacity, HB_FRAMES_EVENT_CAPACITY);
	ck_assert_uint_eq(h.records_offset, 128 + EVENTS_BYTES);
	ck_assert_uint_eq(h.event_count, 0);
	ck_assert_uint_eq(h.clock_id, CLOCK_MONOTONIC);
	ck_assert_uint_eq(h.capacity, 1000);
	ck_assert_uint_eq(h.count, 0);

	ck_assert_int_eq(hb_frames_load(path, &f, &why), 0);
	ck_assert_uint_eq(f.n, 0);
	ck_assert_ptr_nonnull(f.t_ns);
	ck_assert_uint_eq(f.dropped, 0);
	ck_assert_uint_eq(f.unfinished, 0);
	ck_assert_uint_eq(f.version, 2);
	ck_assert_uint_eq(f.n_events, 0);
	hb_frames_release(&f);
	hb_frames_release(&f);
	hb_frames_release(NULL);

	/* never over an existing file (a run directory is written once) */
	ck_assert_int_eq(hb_frames_create(path, 10, 0640), -EEXIST);
	ck_assert_int_eq(file_size(path), 128 + EVENTS_BYTES + 1000 * 16);
}
END_TEST

START_TEST(parse_records)
{
	struct image img;
	struct hb_frames f;
	const char *why = NULL;

	header_init(&img.h, 8, 3);
	img.h.cost_ns = 12345;
	img.h.cost_samples = 2;
	img.h.hooked_procs = 1;
	memset(img.r, 0, sizeof(img.r));
	img.r[0] = rec(3000000, 77, HB_SRC_GLX_SWAP_BUFFERS);
	img.r[1] = rec(0, 78, HB_SRC_EGL_SWAP_BUFFERS); /* reserved, never filled */
	img.r[2] = rec(1000000, 78, HB_SRC_SDL_GL_SWAP_WINDOW);

	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img), &f, &why), 0);
	ck_assert_uint_eq(f.n, 2);
	ck_assert_uint_eq(f.unfinished, 1);
	ck_assert_uint_eq(f.t_ns[0], 1000000); /* sorted */
	ck_assert_uint_eq(f.t_ns[1], 3000000);
	ck_assert_uint_eq(f.per_source[HB_SRC_GLX_SWAP_BUFFERS], 1);
	ck_assert_uint_eq(f.per_source[HB_SRC_SDL_GL_SWAP_WINDOW], 1);
	ck_assert_uint_eq(f.per_source[HB_SRC_EGL_SWAP_BUFFERS], 0);
	ck_assert_uint_eq(f.per_source[HB_SRC_UNKNOWN], 0);
	ck_assert_uint_eq(f.dropped, 0);
	ck_assert_uint_eq(f.cost_ns, 12345);
	ck_assert_uint_eq(f.cost_samples, 2);
	ck_assert_uint_eq(f.hooked_procs, 1);
	hb_frames_release(&f);
}
END_TEST

START_TEST(parse_sources_and_sort)
{
	static const uint64_t times[8] = { 50, 10, 40, 20, 30, 80, 60, 70 };
	struct image img;
	struct hb_frames f;
	const char *why = NULL;

	header_init(&img.h, 8, 8);
	for (size_t i = 0; i < 8; i++)
		img.r[i] = rec(times[i], 1, (uint16_t)(i < 6 ? HB_SRC_SDL_RENDER_PRESENT : 999));
	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img), &f, &why), 0);
	ck_assert_uint_eq(f.n, 8);
	for (uint64_t i = 0; i < 8; i++)
		ck_assert_uint_eq(f.t_ns[i], 10 * (i + 1));
	/* each present keeps its source through the sort: 60 and 70 were
	 * stamped by the out-of-range source, 80 by SDL_RenderPresent */
	ck_assert_uint_eq(f.source[0], HB_SRC_SDL_RENDER_PRESENT);
	ck_assert_uint_eq(f.source[5], HB_SRC_UNKNOWN);
	ck_assert_uint_eq(f.source[6], HB_SRC_UNKNOWN);
	ck_assert_uint_eq(f.source[7], HB_SRC_SDL_RENDER_PRESENT);
	ck_assert_uint_eq(f.per_source[HB_SRC_SDL_RENDER_PRESENT], 6);
	ck_assert_uint_eq(f.per_source[HB_SRC_UNKNOWN], 2); /* out-of-range source */
	hb_frames_release(&f);
}
END_TEST

START_TEST(parse_dropped)
{
	struct image img;
	struct hb_frames f;
	const char *why = NULL;

	/* 11 slots reserved for 8: 3 presents never recorded. The hook also
	 * counts each in dropped, so the two counts say the same thing: the
	 * larger one wins (a writer killed before it counted), never the sum */
	header_init(&img.h, 8, 11);
	for (size_t i = 0; i < 8; i++)
		img.r[i] = rec(1000 + i, 1, HB_SRC_GLX_SWAP_BUFFERS);
	img.h.dropped = 3;
	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img), &f, &why), 0);
	ck_assert_uint_eq(f.n, 8);
	ck_assert_uint_eq(f.dropped, 3);
	hb_frames_release(&f);
	img.h.dropped = 2;
	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img), &f, &why), 0);
	ck_assert_uint_eq(f.dropped, 3);
	hb_frames_release(&f);
	img.h.dropped = 5;
	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img), &f, &why), 0);
	ck_assert_uint_eq(f.dropped, 5);
	hb_frames_release(&f);
	/* within capacity, the hook's count alone */
	img.h.count = 8;
	img.h.dropped = 0;
	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img), &f, &why), 0);
	ck_assert_uint_eq(f.dropped, 0);
	hb_frames_release(&f);

	/* a copy cut short mid-record: only whole records are read */
	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img.h) + 3 * 16 + 7, &f, &why), 0);
	ck_assert_uint_eq(f.n, 3);
	hb_frames_release(&f);
}
END_TEST

START_TEST(parse_larger_records)
{
	/* a later version of the same major format may grow records: readers
	 * step by record_size */
	unsigned char buf[128 + 3 * 24];
	struct hb_frames_header h;
	struct hb_frames f;
	const char *why = NULL;

	memset(buf, 0xee, sizeof(buf));
	header_init(&h, 3, 3);
	h.record_size = 24;
	memcpy(buf, &h, sizeof(h));
	for (size_t i = 0; i < 3; i++) {
		struct hb_frame_record r = rec(100 * (i + 1), 1, HB_SRC_EGL_SWAP_BUFFERS);

		memcpy(buf + 128 + 24 * i, &r, sizeof(r));
	}
	ck_assert_int_eq(hb_frames_parse(buf, sizeof(buf), &f, &why), 0);
	ck_assert_uint_eq(f.n, 3);
	ck_assert_uint_eq(f.t_ns[2], 300);
	ck_assert_uint_eq(f.per_source[HB_SRC_EGL_SWAP_BUFFERS], 3);
	hb_frames_release(&f);
}
END_TEST

static void expect_refused(const void *data, size_t len, const char *what)
{
	struct hb_frames f;
	const char *why = NULL;

	memset(&f, 0x5a, sizeof(f));
	ck_assert_msg(hb_frames_parse(data, len, &f, &why) == -EINVAL, "%s: accepted", what);
	ck_assert_msg(why && *why, "%s: no reason given", what);
	ck_assert_msg(f.n == 0x5a5a5a5a5a5a5a5aull, "%s: output written", what);
}

START_TEST(parse_refused)
{
	struct image img;
	const char *why = NULL;
	struct hb_frames f;

	header_init(&img.h, 8, 0);
	expect_refused(&img, 0, "empty");
	expect_refused(&img, sizeof(img.h) - 1, "short header");

	memcpy(img.h.magic, "HBFRAMEZ", 8);
	expect_refused(&img, sizeof(img), "bad magic");
	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img), &f, &why), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "magic"));

	header_init(&img.h, 8, 0);
	img.h.version = HB_FRAMES_VERSION + 1;
	expect_refused(&img, sizeof(img), "newer version");
	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img), &f, &why), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "version"));

	header_init(&img.h, 8, 0);
	img.h.record_size = 8;
	expect_refused(&img, sizeof(img), "records smaller than defined");
	header_init(&img.h, 8, 0);
	img.h.header_size = 64;
	expect_refused(&img, sizeof(img), "header smaller than defined");
	header_init(&img.h, 8, 0);
	img.h.header_size = sizeof(img) + 1;
	expect_refused(&img, sizeof(img), "header past the end");
}
END_TEST

START_TEST(trim)
{
	struct hb_frame_record r[3] = { rec(10, 1, HB_SRC_VK_QUEUE_PRESENT), rec(30, 1, HB_SRC_VK_QUEUE_PRESENT),
					rec(20, 1, HB_SRC_VK_QUEUE_PRESENT) };
	struct hb_frame_event ev = swapchain_event(5, HB_EV_SWAPCHAIN_CREATE, 0xabc, 0);
	struct hb_frames_header h;
	struct hb_frames f;
	const char *why = NULL;
	int fd;

	ck_assert_int_eq(hb_frames_create(path, 100, 0644), 0);
	ck_assert_int_eq(file_size(path), 128 + EVENTS_BYTES + 100 * 16);
	/* what the layer would leave: a swapchain and 3 presents */
	fd = open(path, O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &h, sizeof(h), 0), sizeof(h));
	h.count = 3;
	h.event_count = 1;
	ck_assert_int_eq(pwrite(fd, &h, sizeof(h), 0), sizeof(h));
	ck_assert_int_eq(pwrite(fd, &ev, sizeof(ev), 128), sizeof(ev));
	ck_assert_int_eq(pwrite(fd, r, sizeof(r), (off_t)h.records_offset), sizeof(r));
	close(fd);

	ck_assert_int_eq(hb_frames_trim(path), 0);
	ck_assert_int_eq(file_size(path), 128 + EVENTS_BYTES + 3 * 16);
	ck_assert_int_eq(hb_frames_load(path, &f, &why), 0);
	ck_assert_uint_eq(f.n, 3);
	ck_assert_uint_eq(f.t_ns[1], 20);
	ck_assert_uint_eq(f.per_source[HB_SRC_VK_QUEUE_PRESENT], 3);
	ck_assert_uint_eq(f.n_events, 1); /* the events stay */
	ck_assert_uint_eq(f.events[0].object, 0xabc);
	hb_frames_release(&f);
	ck_assert_int_eq(hb_frames_trim(path), 0); /* again: nothing changes */
	ck_assert_int_eq(file_size(path), 128 + EVENTS_BYTES + 3 * 16);
}
END_TEST

START_TEST(trim_full_and_empty)
{
	struct hb_frames_header h;
	char *other = xasprintf("%s/empty.bin", tmp);
	int fd;

	/* count past capacity: trimmed to capacity, the file never grows */
	ck_assert_int_eq(hb_frames_create(path, 4, 0644), 0);
	fd = open(path, O_RDWR);
	ck_assert_int_eq(pread(fd, &h, sizeof(h), 0), sizeof(h));
	h.count = 9;
	ck_assert_int_eq(pwrite(fd, &h, sizeof(h), 0), sizeof(h));
	close(fd);
	ck_assert_int_eq(hb_frames_trim(path), 0);
	ck_assert_int_eq(file_size(path), 128 + EVENTS_BYTES + 4 * 16);

	/* nothing presented: the header and the event slots alone */
	ck_assert_int_eq(hb_frames_create(other, 1000, 0644), 0);
	ck_assert_int_eq(hb_frames_trim(other), 0);
	ck_assert_int_eq(file_size(other), 128 + EVENTS_BYTES);
	free(other);
}
END_TEST

START_TEST(trim_refused)
{
	char *missing = xasprintf("%s/missing.bin", tmp);
	char junk[200];

	memset(junk, 'j', sizeof(junk));
	ck_assert_int_eq(write_file_atomic(path, junk, sizeof(junk), 0644), 0);
	ck_assert_int_eq(hb_frames_trim(path), -EINVAL);
	ck_assert_int_eq(file_size(path), 200);
	ck_assert_int_eq(write_file_atomic(path, "HBFRAMES", 8, 0644), 0);
	ck_assert_int_eq(hb_frames_trim(path), -EINVAL);
	ck_assert_int_eq(hb_frames_trim(missing), -ENOENT);
	free(missing);
}
END_TEST

START_TEST(load_errors)
{
	char *missing = xasprintf("%s/missing.bin", tmp);
	struct hb_frames f;
	const char *why = NULL;

	ck_assert_int_eq(hb_frames_load(missing, &f, &why), -ENOENT);
	ck_assert_ptr_nonnull(why);
	ck_assert_int_eq(write_file_atomic(path, "", 0, 0644), 0);
	why = NULL;
	ck_assert_int_eq(hb_frames_load(path, &f, &why), -EINVAL);
	ck_assert_ptr_nonnull(why);
	free(missing);
}
END_TEST

/* A version 2 image with event slots: header, 4 events, 4 records. */
struct image2 {
	struct hb_frames_header h;
	struct hb_frame_event e[4];
	struct hb_frame_record r[4];
};

static void image2_init(struct image2 *img)
{
	memset(img, 0, sizeof(*img));
	header_init(&img->h, 4, 4);
	img->h.event_capacity = 4;
	img->h.records_offset = sizeof(img->h) + sizeof(img->e);
	for (size_t i = 0; i < 4; i++)
		img->r[i] = rec(1000 * (i + 1), 7, HB_SRC_VK_QUEUE_PRESENT);
}

START_TEST(parse_events)
{
	struct image2 img;
	struct hb_frames f;
	const char *why = NULL;

	image2_init(&img);
	/* a recreation stamped before its first swapchain's creation (two
	 * threads), an unfinished slot, and two events past the slots */
	img.h.event_count = 6;
	img.h.vk_instances = 1;
	img.e[0] = swapchain_event(2500, HB_EV_SWAPCHAIN_CREATE, 0xb, 0xa);
	img.e[1] = swapchain_event(500, HB_EV_SWAPCHAIN_CREATE, 0xa, 0);
	img.e[2] = swapchain_event(0, HB_EV_SWAPCHAIN_DESTROY, 0xa, 0);
	img.e[3] = swapchain_event(2600, HB_EV_SWAPCHAIN_DESTROY, 0xa, 0);
	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img), &f, &why), 0);
	ck_assert_uint_eq(f.version, 2);
	ck_assert_uint_eq(f.n, 4);
	ck_assert_uint_eq(f.t_ns[0], 1000);
	ck_assert_uint_eq(f.n_events, 3);
	ck_assert_uint_eq(f.events_unfinished, 1);
	ck_assert_uint_eq(f.events_dropped, 2);
	ck_assert_uint_eq(f.vk_instances, 1);
	ck_assert_uint_eq(f.events[0].t_ns, 500); /* in time order */
	ck_assert_uint_eq(f.events[1].object, 0xb);
	ck_assert_uint_eq(f.events[1].old_object, 0xa);
	ck_assert_uint_eq(f.events[1].width, 800);
	ck_assert_uint_eq(f.events[2].kind, HB_EV_SWAPCHAIN_DESTROY);
	hb_frames_release(&f);

	/* cut short inside the event slots: the events there, no record */
	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img.h) + 2 * 64 + 10, &f, &why), 0);
	ck_assert_uint_eq(f.n_events, 2);
	ck_assert_uint_eq(f.n, 0);
	ck_assert(hb_frames_cut(&f));
	hb_frames_release(&f);

	/* records_offset must be where the slots end */
	img.h.records_offset += 16;
	expect_refused(&img, sizeof(img), "records_offset past the event slots");
	image2_init(&img);
	img.h.event_size = 32;
	expect_refused(&img, sizeof(img), "event slots smaller than defined");
}
END_TEST

START_TEST(parse_version1)
{
	/* version 1: records right after the header, the later fields
	 * reserved (zero) and nothing about events */
	struct image img;
	struct hb_frames f;
	const char *why = NULL;

	memset(&img, 0, sizeof(img));
	header_init(&img.h, 8, 2);
	img.h.version = 1;
	img.h.records_offset = 0;
	img.h.event_size = 0;
	img.r[0] = rec(10, 1, HB_SRC_GLX_SWAP_BUFFERS);
	img.r[1] = rec(20, 1, HB_SRC_GLX_SWAP_BUFFERS);
	ck_assert_int_eq(hb_frames_parse(&img, sizeof(img), &f, &why), 0);
	ck_assert_uint_eq(f.version, 1);
	ck_assert_uint_eq(f.n, 2);
	ck_assert_uint_eq(f.t_ns[1], 20);
	ck_assert_uint_eq(f.n_events, 0);
	hb_frames_release(&f);
	img.h.version = 0;
	expect_refused(&img, sizeof(img), "version 0");
}
END_TEST

START_TEST(api_names)
{
	char buf[24];

	ck_assert_str_eq(hb_present_source_name(HB_SRC_VK_QUEUE_PRESENT), "vkQueuePresentKHR");
	ck_assert_uint_eq(hb_present_source_api(HB_SRC_VK_QUEUE_PRESENT), HB_API_VULKAN);
	ck_assert_uint_eq(hb_present_source_api(HB_SRC_GLX_SWAP_BUFFERS), HB_API_OPENGL);
	ck_assert_uint_eq(hb_present_source_api(HB_SRC_SDL_GL_SWAP_BUFFERS), HB_API_OPENGL);
	ck_assert_uint_eq(hb_present_source_api(HB_SRC_SDL_RENDER_PRESENT), HB_API_SDL_RENDERER);
	ck_assert_uint_eq(hb_present_source_api(HB_SRC_MANGOHUD), HB_API_LOG);
	ck_assert_uint_eq(hb_present_source_api(HB_SRC_MAX + 3), HB_API_UNKNOWN);
	ck_assert_str_eq(hb_api_name(HB_API_VULKAN), "vulkan");
	ck_assert_str_eq(hb_api_name(HB_API_MAX), "unknown");
	for (unsigned a = 0; a < HB_API_MAX; a++)
		ck_assert_ptr_nonnull(hb_api_name(a));
	ck_assert_str_eq(hb_present_mode_name(0, buf), "immediate");
	ck_assert_str_eq(hb_present_mode_name(2, buf), "fifo");
	ck_assert_str_eq(hb_present_mode_name(1000111000, buf), "mode-1000111000");
}
END_TEST

START_TEST(recorded_vulkan)
{
	/* tests/fixtures/frames-vulkan/: what the layer wrote under the real
	 * loader and lavapipe (README.md there) */
	char *cube = xstrdup(fixture_path("frames-vulkan/vkcube-fifo.bin"));
	char *rec2 = xstrdup(fixture_path("frames-vulkan/vkpresent-recreate.bin"));
	struct hb_frames f;
	const char *why = NULL;
	unsigned creates = 0, recreations = 0;

	ck_assert_int_eq(hb_frames_load(cube, &f, &why), 0);
	ck_assert_uint_eq(f.version, 2);
	ck_assert_uint_eq(f.n, 300);
	ck_assert_uint_eq(f.per_source[HB_SRC_VK_QUEUE_PRESENT], 300);
	ck_assert_uint_eq(f.vk_instances, 1);
	ck_assert_uint_eq(f.n_events, 2);
	ck_assert_uint_eq(f.events[0].kind, HB_EV_SWAPCHAIN_CREATE);
	ck_assert_uint_eq(f.events[0].width, 500);
	ck_assert_uint_eq(f.events[0].present_mode, 2); /* FIFO */
	ck_assert_uint_eq(f.events[0].image_count, 3);
	ck_assert_uint_eq(f.events[1].kind, HB_EV_SWAPCHAIN_DESTROY);
	ck_assert_uint_eq(f.events[1].object, f.events[0].object);
	ck_assert(f.events[0].t_ns < f.t_ns[0] && f.events[1].t_ns > f.t_ns[f.n - 1]);
	ck_assert(!hb_frames_cut(&f));
	hb_frames_release(&f);

	ck_assert_int_eq(hb_frames_load(rec2, &f, &why), 0);
	ck_assert_uint_eq(f.n, 400);
	ck_assert_uint_eq(f.n_events, 8);
	for (uint64_t i = 0; i < f.n_events; i++) {
		if (f.events[i].kind != HB_EV_SWAPCHAIN_CREATE)
			continue;
		creates++;
		recreations += f.events[i].old_object != 0;
		ck_assert_uint_eq(f.events[i].width, creates % 2 ? 64 : 80);
		ck_assert_uint_eq(f.events[i].present_mode, 1); /* MAILBOX */
	}
	ck_assert_uint_eq(creates, 4);
	ck_assert_uint_eq(recreations, 3);
	hb_frames_release(&f);
	free(cube);
	free(rec2);
}
END_TEST

START_TEST(source_names)
{
	ck_assert_str_eq(hb_present_source_name(HB_SRC_GLX_SWAP_BUFFERS), "glXSwapBuffers");
	ck_assert_str_eq(hb_present_source_name(HB_SRC_SDL_GL_SWAP_BUFFERS), "SDL_GL_SwapBuffers");
	ck_assert_str_eq(hb_present_source_name(HB_SRC_UNKNOWN), "unknown");
	ck_assert_str_eq(hb_present_source_name(HB_SRC_MAX), "unknown");
	for (unsigned s = 0; s < HB_SRC_MAX; s++)
		ck_assert_ptr_nonnull(hb_present_source_name(s));
}
END_TEST

TEST_SUITE(frames_suite)
{
	Suite *s = suite_create("frames");
	TCase *parse = tcase_create("parse");
	TCase *file = tcase_create("file");

	tcase_add_test(parse, parse_records);
	tcase_add_test(parse, parse_sources_and_sort);
	tcase_add_test(parse, parse_dropped);
	tcase_add_test(parse, parse_larger_records);
	tcase_add_test(parse, parse_refused);
	tcase_add_test(parse, source_names);
	tcase_add_test(parse, parse_events);
	tcase_add_test(parse, parse_version1);
	tcase_add_test(parse, api_names);
	tcase_add_test(parse, recorded_vulkan);
	suite_add_tcase(s, parse);

	tcase_add_checked_fixture(file, setup, teardown);
	tcase_add_test(file, create_empty);
	tcase_add_test(file, trim);
	tcase_add_test(file, trim_full_and_empty);
	tcase_add_test(file, trim_refused);
	tcase_add_test(file, load_errors);
	suite_add_tcase(s, file);
	return s;
}
