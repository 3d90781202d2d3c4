/*
 * Fuzz target: the input rules' replay (common/input/inputrules.c) and a
 * recipe's input steps (common/input/inputsteps.c). The first byte picks:
 * even, the rest is an evemu recording (description and events, as
 * common/input/evemurec.c reads them) replayed through the rules as the
 * interference watcher feeds them, with a tick at every gap and the end;
 * odd, each line of the rest is an input step, parsed, then checked
 * against both drivers (but a play step: its files are not the input's).
 * Every verdict's count must stay within INPUT_VERDICTS_MAX and its detail
 * be a string (abort otherwise).
 */
#include "input/evemurec.h"
#include "input/inputrules.h"
#include "input/inputsteps.h"
#include "base/util.h"

static void check(const struct input_verdict *v, size_t n)
{
	if (n > INPUT_VERDICTS_MAX)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned)v[i].kind >= INPUT_N_KINDS || !memchr(v[i].detail, '\0', sizeof(v[i].detail)))
			abort();
}

static void replay(const char *text)
{
	struct strbuf err = STRBUF_INIT;
	struct evemu_recording r;
	struct input_verdict v[INPUT_VERDICTS_MAX];
	struct input_dev_state *d;
	size_t n;

	evemu_init(&r);
	if (evemu_parse(&r, "fuzz.evemu", text, &err) == 0 && r.n > 0) {
		d = malloc(sizeof(*d));
		if (!d)
			abort();
		input_rules_init(d, &r.caps, r.events[0].t_us);
		for (size_t i = 0; i < r.n; i++) {
			input_rules_tick(d, r.events[i].t_us, v, &n);
			check(v, n);
			input_rules_event(d, r.events[i].t_us, r.events[i].type, r.events[i].code, r.events[i].value,
					  v, &n);
			check(v, n);
		}
		input_rules_end(d, r.events[r.n - 1].t_us + INPUT_BURST_GAP_US, v, &n);
		check(v, n);
		free(d);
	}
	evemu_release(&r);
	strbuf_release(&err);
}

static void steps(char *text)
{
	for (char *line = text, *next; line; line = next) {
		struct strbuf err = STRBUF_INIT;
		struct input_step s;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (input_step_parse(line, &s, &err) == 0) {
			if (s.kind != STEP_PLAY) {
				input_step_check(&s, INPUT_XTEST, &err);
				input_step_check(&s, INPUT_UINPUT, &err);
			}
			input_step_release(&s);
		}
		strbuf_release(&err);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	text = fuzz_text(data + 1, size - 1);
	if (data[0] % 2 == 0)
		replay(text);
	else
		steps(text);
	free(text);
	return 0;
}
