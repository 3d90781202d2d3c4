/*
 * bench/batch/batch.c: the order of a batch, as properties (every variant with
 * every token once per round; no cell always first; each position once per
 * cell over as many rounds as cells), a recorded seed giving the same order
 * back, and the journal (runs.txt) telling a resumed batch what is left.
 */
#include "batch/batch.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every cell once per round, slots numbered in order. */
static void check_rounds(const struct batch_slot *s, size_t nv, size_t nt, int rounds)
{
	size_t m = nv * nt;

	for (int r = 0; r < rounds; r++) {
		int *seen = zalloc(sizeof(int) * m);

		for (size_t i = 0; i < m; i++) {
			const struct batch_slot *x = &s[(size_t)r * m + i];

			ck_assert_int_eq(x->round, r + 1);
			ck_assert_int_eq(x->position, (int)i + 1);
			ck_assert_int_eq(x->index, (int)((size_t)r * m + i) + 1);
			ck_assert_uint_lt(x->variant, nv);
			ck_assert_uint_lt(x->token, nt);
			seen[x->token * nv + x->variant]++;
		}
		for (size_t c = 0; c < m; c++)
			ck_assert_int_eq(seen[c], 1);
		free(seen);
	}
}

START_TEST(rotate_properties)
{
	for (size_t nv = 1; nv <= 4; nv++)
		for (size_t nt = 1; nt <= 3; nt++)
			for (int rounds = 1; rounds <= 9; rounds++) {
				size_t m = nv * nt;
				struct batch_slot *s = zalloc(sizeof(*s) * m * (size_t)rounds);
				int *first = zalloc(sizeof(int) * m);

				batch_plan(nv, nt, rounds, BATCH_ROTATE, 0, s);
				check_rounds(s, nv, nt, rounds);
				for (int r = 0; r < rounds; r++) {
					const struct batch_slot *x = &s[(size_t)r * m];

					first[x->token * nv + x->variant]++;
				}
				/* no cell is first more often than its fair share */
				for (size_t c = 0; c < m; c++)
					ck_assert_int_le(first[c], (rounds + (int)m - 1) / (int)m);
				/* over as many rounds as cells, each cell in each position once */
				if ((size_t)rounds == m) {
					for (size_t c = 0; c < m; c++) {
						int *pos = zalloc(sizeof(int) * m);

						for (size_t i = 0; i < m * m; i++)
							if (s[i].token * nv + s[i].variant == c)
								pos[s[i].position - 1]++;
						for (size_t p = 0; p < m; p++)
							ck_assert_int_eq(pos[p], 1);
						free(pos);
					}
				}
				free(first);
				free(s);
			}
}
END_TEST

/* With fewer rounds than cells, rounds start far apart: two rounds of four
 * cells are A B C D / C D A B, so A and B are early once and late once. */
START_TEST(rotate_spreads_few_rounds)
{
	struct batch_slot s[8];
	static const size_t want[8] = { 0, 1, 2, 3, 2, 3, 0, 1 };

	batch_plan(2, 2, 2, BATCH_ROTATE, 0, s);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(s[i].token * 2 + s[i].variant, want[i]);
	/* variants alternate inside a token: A@- B@- A@S B@S */
	ck_assert_uint_eq(s[0].variant, 0);
	ck_assert_uint_eq(s[1].variant, 1);
	ck_assert_uint_eq(s[0].token, 0);
	ck_assert_uint_eq(s[2].token, 1);
}
END_TEST

START_TEST(shuffle_seeded)
{
	struct batch_slot a[60], b[60], c[60];
	bool differs = false;

	batch_plan(3, 4, 5, BATCH_SHUFFLE, 12345, a);
	batch_plan(3, 4, 5, BATCH_SHUFFLE, 12345, b);
	batch_plan(3, 4, 5, BATCH_SHUFFLE, 54321, c);
	check_rounds(a, 3, 4, 5);
	check_rounds(c, 3, 4, 5);
	for (int i = 0; i < 60; i++) {
		ck_assert_uint_eq(a[i].variant, b[i].variant);
		ck_assert_uint_eq(a[i].token, b[i].token);
	}
	for (int i = 0; i < 60; i++)
		differs = differs || a[i].variant != c[i].variant || a[i].token != c[i].token;
	ck_assert(differs);
}
END_TEST

START_TEST(order_names)
{
	enum batch_order o;

	ck_assert_int_eq(batch_order_parse("rotate", &o), 0);
	ck_assert_int_eq(o, BATCH_ROTATE);
	ck_assert_int_eq(batch_order_parse("shuffle", &o), 0);
	ck_assert_int_eq(o, BATCH_SHUFFLE);
	ck_assert_int_lt(batch_order_parse("random", &o), 0);
	ck_assert_str_eq(batch_order_name(BATCH_SHUFFLE), "shuffle");
}
END_TEST

START_TEST(run_names)
{
	char *a = batch_run_name("base", "rec10+wkkick10"), *b = batch_run_name("base", "");

	ck_assert_str_eq(a, "base@rec10+wkkick10");
	ck_assert_str_eq(b, "base");
	free(a);
	free(b);
}
END_TEST

/* A batch written, noted, and opened again knows what is left. */
START_TEST(journal_resume)
{
	char *dir = test_tmpdir(), *runs, *slot1;
	struct argv_list v, t;
	struct batch b, back;
	struct strbuf err = STRBUF_INIT;
	struct batch_spec spec = { .game = "g", .variants = &v, .tokens = &t, .rounds = 2,
				   .order = BATCH_SHUFFLE, .seed = 7 };
	FILE *f;

	argv_init(&v);
	argv_init(&t);
	argv_push(&v, "base");
	argv_push(&v, "tc1");
	argv_push(&t, "-");
	argv_push(&t, "GAMECPU=0");
	batch_init(&b);
	ck_assert_int_eq(batch_create(&b, dir, &spec, &err), 0);
	ck_assert_uint_eq(b.n_slots, 8);
	ck_assert_uint_eq(batch_pending(&b), 8);
	ck_assert_int_eq(batch_note(&b, 0, "started", NULL, NULL), 0);
	ck_assert_int_eq(batch_note(&b, 0, "done", "/x/run-a", "ok"), 0);
	ck_assert_int_eq(batch_note(&b, 1, "started", NULL, NULL), 0);
	ck_assert_int_eq(batch_note(&b, 1, "invalid", "/x/run-b", "a key press"), 0);
	ck_assert_int_eq(batch_note(&b, 1, "rerun", NULL, "invalid"), 0);
	ck_assert_int_eq(batch_note(&b, 2, "started", NULL, NULL), 0);
	ck_assert_int_eq(batch_note(&b, 2, "aborted", NULL, "interrupted"), 0);
	ck_assert_int_eq(batch_note(&b, 3, "started", NULL, NULL), 0);
	ck_assert_uint_eq(batch_pending(&b), 7);
	ck_assert_int_eq(batch_finish(&b, "interrupted"), 0);
	/* a line cut short by a crash at the end is ignored */
	runs = xasprintf("%s/runs.txt", b.dir);
	f = fopen(runs, "a");
	fputs("5 do", f);
	fclose(f);

	batch_init(&back);
	ck_assert_int_eq(batch_open(&back, b.dir, dir, &err), 0);
	ck_assert_str_eq(back.id, b.id);
	ck_assert_uint_eq(back.n_slots, 8);
	for (int i = 0; i < 8; i++) {
		ck_assert_uint_eq(back.slots[i].variant, b.slots[i].variant);
		ck_assert_uint_eq(back.slots[i].token, b.slots[i].token);
		ck_assert_int_eq(back.slots[i].position, b.slots[i].position);
	}
	ck_assert_int_eq(back.state[0], SLOT_DONE);
	ck_assert_str_eq(back.run_dir[0], "run-a");
	ck_assert_int_eq(back.state[1], SLOT_RERUN);
	ck_assert_int_eq(back.attempts[1], 1);
	ck_assert_int_eq(back.state[2], SLOT_PENDING);
	ck_assert_int_eq(back.state[3], SLOT_PENDING);
	ck_assert_uint_eq(batch_pending(&back), 7);
	ck_assert_str_eq(kvfile_get(&back.info, "status"), "interrupted");
	slot1 = xasprintf("1 1 %s %s", v.v[b.slots[0].variant], t.v[b.slots[0].token]);
	ck_assert_str_eq(kvfile_get(&back.info, "slot.1"), slot1);
	free(slot1);
	batch_release(&back);

	/* by id under its parent too; a damaged runs.txt line is an error with its line */
	f = fopen(runs, "w");
	fputs("1 started\nbogus line\n2 started\n", f);
	fclose(f);
	batch_init(&back);
	strbuf_reset(&err);
	ck_assert_int_eq(batch_open(&back, b.id, dir, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "runs.txt:2:"));
	batch_release(&back);

	batch_release(&b);
	argv_release(&v);
	argv_release(&t);
	strbuf_release(&err);
	free(runs);
	remove_tree(dir);
	free(dir);
}
END_TEST

TEST_SUITE(batch_suite)
{
	Suite *s = suite_create("batch");
	TCase *tc = tcase_create("batch");

	tcase_add_test(tc, rotate_properties);
	tcase_add_test(tc, rotate_spreads_few_rounds);
	tcase_add_test(tc, shuffle_seeded);
	tcase_add_test(tc, order_names);
	tcase_add_test(tc, run_names);
	tcase_add_test(tc, journal_resume);
	suite_add_tcase(s, tc);
	return s;
}
