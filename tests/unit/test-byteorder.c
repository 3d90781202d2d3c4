/*
 * The binary formats across byte orders (docs/formats.md, "Byte order"):
 * a frame file in the other order than this machine's (its bytes turned
 * here, field by field from the documented layout, apart from the
 * library's own swapping) reads as the same file; a finished one is
 * little-endian wherever it is written; the packed stall record is
 * little-endian bytes on every machine and a live one of the other order
 * is refused by name. Truncated and garbage headers stay refused in
 * either order. The files in tests/fixtures/formats-s390x/ were written
 * on s390x (big-endian, under qemu-user: its README) and read here as
 * they are: real bytes of the other order on a little-endian machine.
 */
#include "formats/frames.h"
#include "formats/stallrecord.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

static const bool host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

/* ---- the frame file's fields, as docs/formats.md lays them out ---- */

struct field {
	unsigned char off, size;
};

static const struct field header_fields[] = {
	{ 8, 4 }, { 12, 4 }, { 16, 4 }, { 20, 4 }, { 24, 8 }, { 32, 8 }, { 40, 8 }, { 48, 8 },
	{ 56, 8 }, { 64, 8 }, { 72, 8 }, { 80, 8 }, { 88, 8 }, { 96, 4 }, { 100, 4 }, { 104, 8 },
	{ 112, 8 },
};
static const struct field event_fields[] = {
	{ 0, 8 }, { 8, 4 }, { 12, 2 }, { 14, 2 }, { 16, 8 }, { 24, 8 }, { 32, 8 },
	{ 40, 4 }, { 44, 4 }, { 48, 4 }, { 52, 4 }, { 56, 4 }, { 60, 4 },
};
static const struct field record_fields[] = { { 0, 8 }, { 8, 4 }, { 12, 2 }, { 14, 2 } };

static void turn(unsigned char *p, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (unsigned a = f[i].off, b = f[i].off + f[i].size - 1u; a < b; a++, b--) {
			unsigned char t = p[a];

			p[a] = p[b];
			p[b] = t;
		}
}

/* A version 2 file of 2 event slots (one filled) and 6 record slots, 5
 * reserved (one never stamped, two stamped out of order), in this
 * machine's order; every value's bytes differ, so a field read in the
 * wrong order cannot pass for the right one. */
#define EVENTS 2
#define SLOTS 6
#define RECS_OFF (128 + EVENTS * 64)
#define IMAGE_LEN (RECS_OFF + SLOTS * 16)

static void image_native(unsigned char *buf)
{
	struct hb_frames_header h;
	struct hb_frame_event ev = { .t_ns = 0x0102030405060708ull, .pid = 0x0a0b0c0d,
				     .kind = HB_EV_SWAPCHAIN_CREATE, .api = HB_API_VULKAN,
				     .object = 0x1112131415161718ull, .old_object = 0x2122232425262728ull,
				     .surface = 0x3132333435363738ull, .width = 0x01020304,
				     .height = 0x05060708, .present_mode = 2, .min_image_count = 3,
				     .image_count = 0x01000002, .format = 44 };
	static const uint64_t t[SLOTS] = { 0x0000112233445566ull, 0x0000112233445500ull, 0,
					   0x0000112233446677ull, 0x0000112233447788ull, 0 };

	memset(buf, 0, IMAGE_LEN);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, HB_FRAMES_MAGIC, 8);
	h.version = 2;
	h.header_size = 128;
	h.record_size = 16;
	h.clock_id = CLOCK_MONOTONIC;
	h.capacity = SLOTS;
	h.count = 5;
	h.dropped = 0x0102;
	h.cost_ns = 0x1122334455667788ull;
	h.cost_samples = 0x0203;
	h.hooked_procs = 3;
	h.spin_ns = 0x0a0b0c0d0e0f1011ull;
	h.spin_presents = 0x0405;
	h.records_offset = RECS_OFF;
	h.event_size = 64;
	h.event_capacity = EVENTS;
	h.event_count = 1;
	h.vk_instances = 0x0607;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 128, &ev, sizeof(ev));
	for (int i = 0; i < SLOTS; i++) {
		struct hb_frame_record r = { t[i], 0x01020304u + (uint32_t)i,
					     (uint16_t)(i % 2 ? HB_SRC_VK_QUEUE_PRESENT : HB_SRC_GLX_SWAP_BUFFERS),
					     (uint16_t)(0x0102 + i) };

		memcpy(buf + RECS_OFF + i * 16, &r, sizeof(r));
	}
}

/* The same file with every field's bytes in the other order. */
static void image_other(unsigned char *buf)
{
	image_native(buf);
	turn(buf, header_fields, ARRAY_SIZE(header_fields));
	for (int i = 0; i < EVENTS; i++)
		turn(buf + 128 + i * 64, event_fields, ARRAY_SIZE(event_fields));
	for (int i = 0; i < SLOTS; i++)
		turn(buf + RECS_OFF + i * 16, record_fields, ARRAY_SIZE(record_fields));
}

/* Two loaded files say the same, but for their byte order. */
static void same_frames(const struct hb_frames *a, const struct hb_frames *b)
{
	ck_assert_uint_eq(a->version, b->version);
	ck_assert_uint_eq(a->n, b->n);
	ck_assert_mem_eq(a->t_ns, b->t_ns, a->n * sizeof(uint64_t));
	ck_assert_mem_eq(a->source, b->source, a->n * sizeof(uint16_t));
	ck_assert_mem_eq(a->per_source, b->per_source, sizeof(a->per_source));
	ck_assert_uint_eq(a->dropped, b->dropped);
	ck_assert_uint_eq(a->unfinished, b->unfinished);
	ck_assert_uint_eq(a->cost_ns, b->cost_ns);
	ck_assert_uint_eq(a->cost_samples, b->cost_samples);
	ck_assert_uint_eq(a->hooked_procs, b->hooked_procs);
	ck_assert_uint_eq(a->spin_ns, b->spin_ns);
	ck_assert_uint_eq(a->spin_presents, b->spin_presents);
	ck_assert_uint_eq(a->vk_instances, b->vk_instances);
	ck_assert_uint_eq(a->n_events, b->n_events);
	ck_assert_mem_eq(a->events, b->events, a->n_events * sizeof(*a->events));
	ck_assert_uint_eq(a->header_records, b->header_records);
	ck_assert_uint_eq(a->file_records, b->file_records);
}

START_TEST(frames_other_order)
{
	unsigned char native[IMAGE_LEN], other[IMAGE_LEN], copy[IMAGE_LEN];
	struct hb_frames a, b;
	const char *why = NULL;

	image_native(native);
	image_other(other);
	ck_assert_int_eq(hb_frames_parse(native, sizeof(native), &a, &why), 0);
	ck_assert_int_eq(hb_frames_parse(other, sizeof(other), &b, &why), 0);
	same_frames(&a, &b);
	ck_assert(a.big_endian == host_be);
	ck_assert(b.big_endian == !host_be);
	/* what was put in came out */
	ck_assert_uint_eq(b.n, 4);
	ck_assert_uint_eq(b.unfinished, 1);
	ck_assert_uint_eq(b.t_ns[0], 0x0000112233445500ull);
	ck_assert_uint_eq(b.source[0], HB_SRC_VK_QUEUE_PRESENT);
	ck_assert_uint_eq(b.dropped, 0x0102);
	ck_assert_uint_eq(b.cost_ns, 0x1122334455667788ull);
	ck_assert_uint_eq(b.spin_ns, 0x0a0b0c0d0e0f1011ull);
	ck_assert_uint_eq(b.vk_instances, 0x0607);
	ck_assert_uint_eq(b.n_events, 1);
	ck_assert_uint_eq(b.events[0].object, 0x1112131415161718ull);
	ck_assert_uint_eq(b.events[0].width, 0x01020304);
	ck_assert_uint_eq(b.events[0].image_count, 0x01000002);
	ck_assert_int_eq(hb_frames_big_endian(native, sizeof(native)), host_be);
	ck_assert_int_eq(hb_frames_big_endian(other, sizeof(other)), !host_be);
	/* the library's swap gives the bytes turned here, both ways */
	memcpy(copy, native, sizeof(copy));
	ck_assert_int_eq(hb_frames_swap(copy, sizeof(copy)), 0);
	ck_assert_mem_eq(copy, other, sizeof(other));
	ck_assert_int_eq(hb_frames_swap(copy, sizeof(copy)), 0);
	ck_assert_mem_eq(copy, native, sizeof(native));
	hb_frames_release(&a);
	hb_frames_release(&b);
	/* cut short inside the records, in the other order: what is there */
	ck_assert_int_eq(hb_frames_parse(other, RECS_OFF + 2 * 16 + 5, &b, &why), 0);
	ck_assert_uint_eq(b.n, 2);
	ck_assert(hb_frames_cut(&b));
	hb_frames_release(&b);
}
END_TEST

static void expect_refused(const unsigned char *data, size_t len, const char *what, const char *reason)
{
	struct hb_frames f;
	const char *why = NULL;
	unsigned char copy[IMAGE_LEN];

	ck_assert_msg(hb_frames_parse(data, len, &f, &why) == -EINVAL, "%s: accepted", what);
	ck_assert_msg(why && strstr(why, reason), "%s: '%s', not '%s'", what, why ? why : "", reason);
	ck_assert_int_eq(hb_frames_big_endian(data, len), -EINVAL);
	memcpy(copy, data, len);
	ck_assert_int_eq(hb_frames_swap(copy, len), -EINVAL);
	ck_assert_mem_eq(copy, data, len); /* untouched */
}

/* a u32 of the header in the other order */
static void put_other32(unsigned char *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

START_TEST(frames_other_order_refused)
{
	unsigned char other[IMAGE_LEN], bad[IMAGE_LEN];

	image_other(other);
	for (size_t cut = 0; cut < 128; cut += 7)
		expect_refused(other, cut, "short header", "shorter");
	memcpy(bad, other, sizeof(bad));
	bad[7] = 'Z';
	expect_refused(bad, sizeof(bad), "bad magic", "magic");
	/* a u32 of the header changed, in the file's order */
	static const struct {
		unsigned off;
		uint32_t value;
		const char *what, *reason;
	} changes[] = {
		{ 8, HB_FRAMES_VERSION + 1, "newer version", "version" },
		/* a header size plausible in neither order: the order is not
		 * known, the version is read in this machine's and refused */
		{ 12, 0x00ff00ff, "garbage header size", "" },
		/* plausible once turned, but not a header this file can hold */
		{ 12, IMAGE_LEN + 1, "header past the end", "impossible sizes" },
		{ 16, 8, "small records", "impossible sizes" },
		{ 100, EVENTS + 1, "event slots past the records offset", "impossible sizes" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(changes); i++) {
		memcpy(bad, other, sizeof(bad));
		put_other32(bad + changes[i].off, changes[i].value);
		expect_refused(bad, sizeof(bad), changes[i].what, changes[i].reason);
	}
	/* garbage that starts with the magic */
	memset(bad, 0xa5, sizeof(bad));
	memcpy(bad, HB_FRAMES_MAGIC, 8);
	expect_refused(bad, sizeof(bad), "garbage", "");
}
END_TEST

/* ---- frame files on disk ---- */

static char *tmp;

static void setup(void)
{
	tmp = test_tmpdir();
}

static void teardown(void)
{
	remove_tree(tmp);
	free(tmp);
}

static void read_all(const char *p, unsigned char **data, size_t *len)
{
	ck_assert_int_eq(read_file(p, (char **)data, len), 0);
}

/* the u32 at off of a file's bytes, read as little-endian */
static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

START_TEST(frames_to_le)
{
	unsigned char native[IMAGE_LEN], other[IMAGE_LEN], *data;
	const unsigned char *be = host_be ? native : other, *le = host_be ? other : native;
	char *p = xasprintf("%s/frames.bin", tmp);
	size_t len;

	image_native(native);
	image_other(other);
	/* a big-endian file becomes the little-endian one */
	ck_assert_int_eq(write_file_atomic(p, be, IMAGE_LEN, 0644), 0);
	ck_assert_int_eq(hb_frames_to_le(p), 0);
	read_all(p, &data, &len);
	ck_assert_uint_eq(len, IMAGE_LEN);
	ck_assert_mem_eq(data, le, IMAGE_LEN);
	ck_assert_uint_eq(le32(data + 12), 128);
	free(data);
	/* a little-endian one is left as it is */
	ck_assert_int_eq(hb_frames_to_le(p), 0);
	read_all(p, &data, &len);
	ck_assert_mem_eq(data, le, IMAGE_LEN);
	free(data);
	/* not a frame file: refused, untouched */
	ck_assert_int_eq(write_file_atomic(p, "HBFRAMES but no more", 20, 0644), 0);
	ck_assert_int_eq(hb_frames_to_le(p), -EINVAL);
	ck_assert_int_eq(hb_frames_to_le(tmp), -EISDIR);
	free(p);
}
END_TEST

START_TEST(frames_keep)
{
	unsigned char native[IMAGE_LEN], other[IMAGE_LEN], *data, *big;
	char *live = xasprintf("%s/live", tmp), *kept = xasprintf("%s/frames.bin", tmp);
	struct hb_frames a, b;
	const char *why = NULL;
	size_t len;

	/* a big-endian writer's live file, sized to its capacity: kept with
	 * its 5 reserved slots, little-endian; the live one is the game's and
	 * is left as it was (big, never written by the keeper) */
	image_native(native);
	image_other(other);
	big = host_be ? native : other;
	ck_assert_int_eq(write_file_atomic(live, big, IMAGE_LEN, 0600), 0);
	ck_assert_int_eq(hb_frames_keep(live, kept, 0644), 0);
	read_all(live, &data, &len);
	ck_assert_uint_eq(len, IMAGE_LEN);
	ck_assert_mem_eq(data, big, len);
	free(data);
	read_all(kept, &data, &len);
	ck_assert_uint_eq(len, RECS_OFF + 5 * 16);
	ck_assert_int_eq(hb_frames_big_endian(data, len), 0);
	ck_assert_int_eq(hb_frames_parse(native, sizeof(native), &a, &why), 0);
	ck_assert_int_eq(hb_frames_parse(data, len, &b, &why), 0);
	ck_assert_uint_eq(b.file_records, 5);
	b.file_records = a.file_records;
	same_frames(&a, &b);
	hb_frames_release(&a);
	hb_frames_release(&b);
	free(data);
	free(live);
	free(kept);
}
END_TEST

START_TEST(frames_write_le)
{
	static const uint64_t t[2] = { 0x0102030405060708ull, 0x0102030405060800ull };
	char *p = xasprintf("%s/frames.bin", tmp);
	unsigned char *data;
	size_t len;

	ck_assert_int_eq(hb_frames_write(p, t, 2, HB_SRC_MANGOHUD, 0644), 0);
	read_all(p, &data, &len);
	ck_assert_uint_eq(len, 128 + 2 * 16);
	ck_assert_uint_eq(le32(data + 8), 2);
	ck_assert_uint_eq(le32(data + 12), 128);
	ck_assert_uint_eq(le32(data + 24), 2);    /* capacity, low half */
	ck_assert_uint_eq(le32(data + 128), 0x05060708);
	ck_assert_uint_eq(le32(data + 132), 0x01020304);
	ck_assert_uint_eq(data[128 + 12], HB_SRC_MANGOHUD);
	ck_assert_uint_eq(data[128 + 13], 0);
	ck_assert_int_eq(hb_frames_big_endian(data, len), 0);
	free(data);
	free(p);
}
END_TEST

/* ---- the stall record ---- */

static void put_le(struct strbuf *sb, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		strbuf_addch(sb, (char)(v >> (8 * i)));
}

static void put_text_le(struct strbuf *sb, const char *s)
{
	put_le(sb, strlen(s), 4);
	strbuf_addstr(sb, s);
}

/* zigzag, then 7 bits a byte, low first (docs/formats.md) */
static void put_varint_zz(struct strbuf *sb, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);

	do {
		strbuf_addch(sb, (char)((z & 0x7f) | (z > 0x7f ? 0x80 : 0)));
		z >>= 7;
	} while (z);
}

START_TEST(stallrec_packed_le)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct stallrec r;
	const int64_t *a, *b;

	/* a packed record put together byte by byte, as the format says */
	strbuf_add(&sb, "HBSTALLS", 8);
	put_le(&sb, 1, 4);
	put_text_le(&sb, "period_us=10000\ncolumns=a t_us\nencodings=0 1\n");
	put_le(&sb, 2, 8);
	put_le(&sb, 2, 4);
	put_varint_zz(&sb, 0x0102030405060708ll);         /* a: from 0 */
	put_varint_zz(&sb, -0x0102030405060708ll - 5);    /* a: to -5 */
	put_varint_zz(&sb, 0x0a0b0c0d0e0fll);             /* t_us: the first delta */
	put_varint_zz(&sb, 10000 - 0x0a0b0c0d0e0fll);     /* then the delta's change */
	put_le(&sb, 1, 4);
	put_text_le(&sb, "futex_wait_queue");
	put_le(&sb, 1, 4);
	put_le(&sb, 0x0a0b0c0d0e0f1011ull, 8);
	put_le(&sb, 0x01020304, 4);
	put_text_le(&sb, "[<0>] do_sys_poll+0x1/0x2\n");
	put_text_le(&sb, "samples=2\n");
	stallrec_init(&r);
	ck_assert_int_eq(stallrec_parse_packed(sb.buf, sb.len, &r, &err), 0);
	ck_assert_uint_eq(r.n_rows, 2);
	a = stallrec_col(&r, stallrec_find(&r, "a"));
	b = stallrec_col(&r, stallrec_find(&r, "t_us"));
	ck_assert_int_eq(a[0], 0x0102030405060708ll);
	ck_assert_int_eq(a[1], -5);
	ck_assert_int_eq(b[0], 0x0a0b0c0d0e0fll);
	ck_assert_int_eq(b[1], 0x0a0b0c0d0e0fll + 10000);
	ck_assert_str_eq(stallrec_str(&r, 1), "futex_wait_queue");
	ck_assert_uint_eq(r.n_stack, 1);
	ck_assert_int_eq(r.stack[0].t_us, 0x0a0b0c0d0e0f1011ll);
	ck_assert_uint_eq(r.stack[0].tid, 0x01020304);
	ck_assert_str_eq(kvfile_get(&r.trailer, "samples"), "2");
	stallrec_release(&r);
	/* the same cut anywhere, or its version in the other order: refused */
	for (size_t cut = 0; cut < sb.len; cut += 5) {
		strbuf_reset(&err);
		ck_assert_int_eq(stallrec_parse_packed(sb.buf, cut, &r, &err), -EINVAL);
	}
	sb.buf[8] = 0;
	sb.buf[11] = 1;
	strbuf_reset(&err);
	ck_assert_int_eq(stallrec_parse_packed(sb.buf, sb.len, &r, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "version 16777216"));
	strbuf_release(&sb);
	strbuf_release(&err);
}
END_TEST

START_TEST(stallrec_write_le)
{
	static const char *const names[] = { "t_us" };
	static const uint8_t encs[] = { SR_ENC_DELTA2 };
	struct strbuf err = STRBUF_INIT;
	char *p = xasprintf("%s/stalls.rec.zst", tmp);
	unsigned char *data, raw[256];
	struct stallrec r;
	int64_t row = 1;
	size_t len, n;

	stallrec_init(&r);
	ck_assert_int_eq(stallrec_set_columns(&r, names, encs, 1), 0);
	stallrec_add_row(&r, &row);
	ck_assert_int_eq(stallrec_write(&r, p, &err), 0);
	read_all(p, &data, &len);
	n = ZSTD_decompress(raw, sizeof(raw), data, len);
	ck_assert(!ZSTD_isError(n));
	ck_assert_mem_eq(raw, "HBSTALLS\1\0\0\0", 12);
	ck_assert_uint_eq(le32(raw + 12), strlen("columns=t_us\nencodings=1\n"));
	free(data);
	stallrec_release(&r);
	free(p);
	strbuf_release(&err);
}
END_TEST

START_TEST(stallrec_live_other_order)
{
	static const char *const names[] = { "t_us", "pid" };
	static const uint8_t encs[] = { SR_ENC_DELTA2, SR_ENC_DELTA };
	struct strbuf err = STRBUF_INIT;
	char *p = xasprintf("%s/stalls.live", tmp);
	struct stallrec_live l;
	struct stallrec r;
	unsigned char *data;
	size_t len;

	ck_assert_int_eq(stallrec_live_create(&l, p, names, encs, 2, 4, 4, 1, "period_us=10000\n", &err), 0);
	stallrec_live_row(&l)[0] = 5;
	stallrec_live_commit(&l);
	stallrec_live_close(&l);
	read_all(p, &data, &len);
	turn(data, (const struct field[]){ { 8, 4 } }, 1);
	ck_assert_int_eq(write_file_atomic(p, data, len, 0600), 0);
	ck_assert_int_eq(stallrec_load(p, &r, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "other byte order"));
	/* a version of neither order: inconsistent, as before */
	data[8] = 7;
	data[11] = 7;
	ck_assert_int_eq(write_file_atomic(p, data, len, 0600), 0);
	strbuf_reset(&err);
	ck_assert_int_eq(stallrec_load(p, &r, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "inconsistent header"));
	free(data);
	free(p);
	strbuf_release(&err);
}
END_TEST

/* ---- written on s390x ---- */

/* The lines of a fixture text file, split on tabs and blanks into
 * fields[line][field] (at most 8 lines of 8 fields). */
struct table {
	char *text;
	char *f[8][8];
	int lines;
};

static void table_read(struct table *t, const char *rel, const char *sep)
{
	size_t len;
	char *line, *save;

	memset(t, 0, sizeof(*t));
	ck_assert_int_eq(read_file(fixture_path(rel), &t->text, &len), 0);
	for (line = strtok_r(t->text, "\n", &save); line && t->lines < 8; line = strtok_r(NULL, "\n", &save)) {
		char *s2, *tok;
		int k = 0;

		for (tok = strtok_r(line, sep, &s2); tok && k < 8; tok = strtok_r(NULL, sep, &s2))
			t->f[t->lines][k++] = tok;
		t->lines++;
	}
}

static uint64_t num(const char *s)
{
	uint64_t v;

	ck_assert_int_eq(safe_atou64(s, &v), 0);
	return v;
}

START_TEST(s390x_frames)
{
	struct hb_frames live, kept;
	struct table dump;
	const char *why = NULL;
	unsigned char *data;
	size_t len;

	/* the hook's live file as it left it on s390x, and the runner's copy */
	read_all(fixture_path("formats-s390x/live-frames.bin"), &data, &len);
	ck_assert_int_eq(hb_frames_big_endian(data, len), 1);
	free(data);
	read_all(fixture_path("formats-s390x/frames.bin"), &data, &len);
	ck_assert_int_eq(hb_frames_big_endian(data, len), 0);
	free(data);
	ck_assert_int_eq(hb_frames_load(fixture_path("formats-s390x/live-frames.bin"), &live, &why), 0);
	ck_assert_int_eq(hb_frames_load(fixture_path("formats-s390x/frames.bin"), &kept, &why), 0);
	ck_assert(live.big_endian);
	ck_assert(!kept.big_endian);
	ck_assert_uint_eq(live.file_records, 4);  /* the live file was sized to its capacity */
	ck_assert_uint_eq(kept.file_records, 4);
	same_frames(&live, &kept);
	/* what s390x read from it (mkframes --dump there): 6 presents into 4 slots */
	table_read(&dump, "formats-s390x/live-frames.dump", " ");
	ck_assert_int_eq(dump.lines, 4);
	ck_assert_uint_eq(kept.n, 4);
	ck_assert_uint_eq(kept.dropped, 2);
	ck_assert_uint_eq(kept.hooked_procs, 1);
	ck_assert_uint_eq(kept.per_source[HB_SRC_SDL_GL_SWAP_WINDOW], 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_eq(kept.t_ns[i], num(dump.f[i][0]));
		ck_assert_str_eq(hb_present_source_name(kept.source[i]), dump.f[i][2]);
	}
	free(dump.text);
	hb_frames_release(&live);
	hb_frames_release(&kept);
}
END_TEST

START_TEST(s390x_stallrec)
{
	struct strbuf err = STRBUF_INIT;
	struct stallrec r, l;
	struct table out;
	int live;

	/* the packed record s390x wrote, against the rows it printed */
	ck_assert_int_eq(stallrec_load(fixture_path("formats-s390x/stalls.rec.zst"), &r, &err), 0);
	table_read(&out, "formats-s390x/mkstallrec.out", "\t");
	ck_assert_int_eq(out.lines, 6);
	ck_assert_uint_eq(r.n_rows, 6);
	ck_assert_uint_eq(r.n_cols, 7);
	for (int i = 0; i < 6; i++)
		for (int c = 0, k = 0; c < 7; c++) {
			int64_t v = stallrec_col(&r, c)[i];
			long long want;

			if (c == 3) { /* main.wchan: a string, and absent from the line when empty */
				if (v)
					ck_assert_str_eq(stallrec_str(&r, v), out.f[i][k++]);
				continue;
			}
			ck_assert_int_eq(sscanf(out.f[i][k++], "%lld", &want), 1);
			ck_assert_int_eq(v, want);
		}
	ck_assert_int_eq(stallrec_col(&r, 4)[0], 0x0102030405060708ll);
	ck_assert_uint_eq(r.n_stack, 1);
	ck_assert_uint_eq(r.stack[0].tid, 0x0a0b0c0d);
	ck_assert_str_eq(kvfile_get(&r.trailer, "stop"), "duration");
	free(out.text);
	/* its live record: read on a big-endian machine, refused on a little one */
	strbuf_reset(&err);
	live = stallrec_load(fixture_path("formats-s390x/stalls.live"), &l, &err);
	if (host_be) {
		ck_assert_int_eq(live, 0);
		for (int c = 0; c < 7; c++)
			ck_assert_mem_eq(stallrec_col(&l, c), stallrec_col(&r, c), 6 * sizeof(int64_t));
		stallrec_release(&l);
	} else {
		ck_assert_int_eq(live, -EINVAL);
		ck_assert_ptr_nonnull(strstr(err.buf, "other byte order"));
	}
	stallrec_release(&r);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(byteorder_suite)
{
	Suite *s = suite_create("byteorder");
	TCase *bytes = tcase_create("bytes");
	TCase *file = tcase_create("file");

	tcase_add_test(bytes, frames_other_order);
	tcase_add_test(bytes, frames_other_order_refused);
	tcase_add_test(bytes, stallrec_packed_le);
	tcase_add_test(bytes, s390x_frames);
	tcase_add_test(bytes, s390x_stallrec);
	suite_add_tcase(s, bytes);
	tcase_add_checked_fixture(file, setup, teardown);
	tcase_add_test(file, frames_to_le);
	tcase_add_test(file, frames_keep);
	tcase_add_test(file, frames_write_le);
	tcase_add_test(file, stallrec_write_le);
	tcase_add_test(file, stallrec_live_other_order);
	suite_add_tcase(s, file);
	return s;
}
