/*
 * The stall record's codec: a record survives packing and the live file
 * unchanged; damaged and foreign files are refused with a reason.
 */
#include "formats/stallrecord.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

static const char *const names[] = { "t_us", "main.state", "vm.pswpin", "disk.vda.rd_ios" };
static const uint8_t encs[] = { SR_ENC_DELTA2, SR_ENC_DELTA, SR_ENC_DELTA, SR_ENC_DELTA };

/* 1000 rows of a 10 ms clock with jitter, a state, a counter and a
 * counter that jumps backwards once (a device reset: deltas are signed). */
static void fill(struct stallrec *r)
{
	ck_assert_int_eq(stallrec_set_columns(r, names, encs, 4), 0);
	kvfile_add(&r->meta, "period_us", "10000");
	kvfile_add(&r->trailer, "samples", "1000");
	for (int i = 0; i < 1000; i++) {
		int64_t row[4] = { 5000000000LL + i * 10000 + (i * 37 % 11), i % 3 ? 'S' : 'R',
				   i / 100, i == 500 ? 3 : 1000 + i * 8 };

		stallrec_add_row(r, row);
	}
	ck_assert_uint_eq(stallrec_intern(r, "futex_wait_queue"), 1);
	ck_assert_uint_eq(stallrec_intern(r, "/dev/dri/card0"), 2);
	ck_assert_uint_eq(stallrec_intern(r, "futex_wait_queue"), 1);
	ck_assert_uint_eq(stallrec_intern(r, ""), 0);
	stallrec_add_stack(r, 5000123456LL, 4242, "[<0>] folio_wait_bit_common+0x13c/0x350\n");
}

static void same(const struct stallrec *a, const struct stallrec *b)
{
	ck_assert_uint_eq(a->n_rows, b->n_rows);
	ck_assert_uint_eq(a->n_cols, b->n_cols);
	for (size_t c = 0; c < a->n_cols; c++) {
		ck_assert_str_eq(a->col_name[c], b->col_name[c]);
		ck_assert_uint_eq(a->col_enc[c], b->col_enc[c]);
		ck_assert_mem_eq(stallrec_col(a, (int)c), stallrec_col(b, (int)c),
				 a->n_rows * sizeof(int64_t));
	}
	ck_assert_uint_eq(a->n_str, b->n_str);
	for (size_t i = 0; i < a->n_str; i++)
		ck_assert_str_eq(a->str[i], b->str[i]);
	ck_assert_uint_eq(a->n_stack, b->n_stack);
	for (size_t i = 0; i < a->n_stack; i++) {
		ck_assert_int_eq(a->stack[i].t_us, b->stack[i].t_us);
		ck_assert_uint_eq(a->stack[i].tid, b->stack[i].tid);
		ck_assert_str_eq(a->stack[i].text, b->stack[i].text);
	}
}

START_TEST(packed_round_trip)
{
	struct stallrec a, b;
	struct strbuf err = STRBUF_INIT;
	char *dir = test_tmpdir(), *path = xasprintf("%s/stalls.rec.zst", dir);

	stallrec_init(&a);
	fill(&a);
	ck_assert_int_eq(stallrec_write(&a, path, &err), 0);
	ck_assert_int_eq(stallrec_load(path, &b, &err), 0);
	same(&a, &b);
	ck_assert_str_eq(kvfile_get(&b.meta, "period_us"), "10000");
	ck_assert_str_eq(kvfile_get(&b.trailer, "samples"), "1000");
	ck_assert_int_eq(b.known[SR_T_US], 0);
	ck_assert_int_eq(b.known[SR_VM_PSWPIN], 2);
	ck_assert_int_eq(b.known[SR_VM_PSWPOUT], -1);
	ck_assert_int_eq(stallrec_at(&b, SR_VM_PSWPOUT, 3), 0);   /* absent: 0 */
	ck_assert_int_eq(stallrec_at(&b, SR_STATE, 3), 'R');
	ck_assert_int_eq(stallrec_find(&b, "disk.vda.rd_ios"), 3);
	ck_assert_int_eq(stallrec_col(&b, 3)[500], 3);
	ck_assert_str_eq(stallrec_str(&b, 2), "/dev/dri/card0");
	ck_assert_str_eq(stallrec_str(&b, 99), "");
	/* written again from what was read: the same bytes' meaning */
	ck_assert_int_eq(stallrec_write(&b, path, &err), 0);
	stallrec_release(&b);
	ck_assert_int_eq(stallrec_load(path, &b, &err), 0);
	same(&a, &b);
	{
		int columns_lines = 0;

		for (size_t i = 0; i < b.meta.n; i++)
			columns_lines += strcmp(b.meta.items[i].key, "columns") == 0;
		ck_assert_int_eq(columns_lines, 1);  /* not written twice */
	}
	stallrec_release(&a);
	stallrec_release(&b);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	strbuf_release(&err);
}
END_TEST

/* The live record is made in the game's staging directory: a symlink the
 * game user put at its name is refused (ELOOP), its target untouched. */
START_TEST(live_refuses_symlink)
{
	struct stallrec_live l;
	struct strbuf err = STRBUF_INIT;
	char *dir = test_tmpdir(), *path = xasprintf("%s/live", dir), *victim = xasprintf("%s/victim", dir);
	char *text = NULL;

	test_put(dir, "victim", "root's file\n");
	ck_assert_int_eq(symlink(victim, path), 0);
	ck_assert_int_eq(stallrec_live_create(&l, path, names, encs, 4, 1000, 16, 2, "period_us=10000\n", &err),
			 -ELOOP);
	ck_assert_int_eq(read_file(victim, &text, NULL), 0);
	ck_assert_str_eq(text, "root's file\n");
	free(text);
	remove_tree(dir);
	free(dir);
	free(path);
	free(victim);
	strbuf_release(&err);
}
END_TEST

START_TEST(live_round_trip)
{
	struct stallrec a, b;
	struct stallrec_live l;
	struct strbuf err = STRBUF_INIT;
	char *dir = test_tmpdir(), *path = xasprintf("%s/live", dir);
	int64_t *row;

	stallrec_init(&a);
	fill(&a);
	ck_assert_int_eq(stallrec_live_create(&l, path, names, encs, 4, 1000, 16, 2,
					      "period_us=10000\n", &err), 0);
	for (size_t i = 0; i < a.n_rows; i++) {
		row = stallrec_live_row(&l);
		ck_assert_ptr_nonnull(row);
		for (int c = 0; c < 4; c++)
			row[c] = stallrec_col(&a, c)[i];
		stallrec_live_commit(&l);
	}
	ck_assert_ptr_null(stallrec_live_row(&l));    /* full at its capacity */
	ck_assert_uint_eq(stallrec_live_intern(&l, "futex_wait_queue", 16), 1);
	ck_assert_uint_eq(stallrec_live_intern(&l, "/dev/dri/card0xyz", 14), 2);
	ck_assert_uint_eq(stallrec_live_intern(&l, "futex_wait_queue", 16), 1);
	ck_assert_uint_eq(stallrec_live_intern(&l, "/dev/dri/card0", 14), 2);
	ck_assert_uint_eq(stallrec_live_intern(&l, "", 0), 0);
	ck_assert(stallrec_live_stack(&l, 5000123456LL, 4242, a.stack[0].text,
				      strlen(a.stack[0].text)));
	ck_assert(stallrec_live_stack(&l, 1, 1, "x", 1));
	ck_assert(!stallrec_live_stack(&l, 2, 2, "y", 1));  /* the area is full */
	for (int i = 0; i < 20; i++) {
		char s[16];

		snprintf(s, sizeof(s), "s%d", i);
		ck_assert_uint_eq(stallrec_live_intern(&l, s, strlen(s)), i < 14 ? i + 3 : 0);
	}
	stallrec_live_close(&l);
	ck_assert_int_eq(stallrec_load(path, &b, &err), 0);
	ck_assert_str_eq(kvfile_get(&b.meta, "period_us"), "10000");
	ck_assert_uint_eq(b.n_rows, 1000);
	ck_assert_uint_eq(b.n_str, 17);
	ck_assert_uint_eq(b.n_stack, 2);
	ck_assert_str_eq(b.stack[0].text, a.stack[0].text);
	ck_assert_int_eq(b.stack[0].t_us, 5000123456LL);
	for (int c = 0; c < 4; c++)
		ck_assert_mem_eq(stallrec_col(&a, c), stallrec_col(&b, c), 1000 * sizeof(int64_t));
	stallrec_release(&a);
	stallrec_release(&b);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	strbuf_release(&err);
}
END_TEST

START_TEST(damaged_refused)
{
	struct stallrec a, b;
	struct strbuf err = STRBUF_INIT;
	char *dir = test_tmpdir(), *path = xasprintf("%s/r.zst", dir);
	char *data;
	size_t len;
	void *raw;
	unsigned long long size;

	stallrec_init(&a);
	fill(&a);
	ck_assert_int_eq(stallrec_write(&a, path, &err), 0);
	ck_assert_int_eq(read_file(path, &data, &len), 0);
	size = ZSTD_getFrameContentSize(data, len);
	raw = malloc(size);
	ck_assert(!ZSTD_isError(ZSTD_decompress(raw, size, data, len)));
	/* every truncation is refused, none crashes */
	for (size_t cut = 0; cut < size; cut += size / 97 + 1) {
		strbuf_reset(&err);
		ck_assert_int_eq(stallrec_parse_packed(raw, cut, &b, &err), -EINVAL);
		ck_assert_uint_gt(err.len, 0);
	}
	((unsigned char *)raw)[8] = 9; /* version 9 */
	strbuf_reset(&err);
	ck_assert_int_eq(stallrec_parse_packed(raw, size, &b, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "version 9"));
	ck_assert_int_eq(write_file_atomic(path, "not a record", 12, 0644), 0);
	strbuf_reset(&err);
	ck_assert_int_eq(stallrec_load(path, &b, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "not a stall record"));
	ck_assert_int_eq(stallrec_set_columns(&a, names, encs, 4), -EINVAL); /* set once */
	free(raw);
	free(data);
	stallrec_release(&a);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(stallrec_suite)
{
	Suite *s = suite_create("stallrec");
	TCase *tc = tcase_create("codec");

	tcase_add_test(tc, packed_round_trip);
	tcase_add_test(tc, live_round_trip);
	tcase_add_test(tc, live_refuses_symlink);
	tcase_add_test(tc, damaged_refused);
	suite_add_tcase(s, tc);
	return s;
}
