/*
 * A batch's order, directory and journal (see batch.h).
 */
#include "batch/batch.h"
#include "runner/provenance.h"
#include "formats/sha256sums.h"
#include "base/timeutil.h"
#include "system/procparse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the order ---- */

/* splitmix64: small, well-mixed, and the same on every machine, so a
 * recorded seed gives the recorded order back. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void batch_plan(size_t n_variants, size_t n_tokens, int rounds, enum batch_order order,
		uint64_t seed, struct batch_slot *out)
{
	size_t m = n_variants * n_tokens, *perm = zalloc(sizeof(*perm) * (m ? m : 1));
	uint64_t rng = seed;
	int index = 1;

	for (int r = 0; r < rounds; r++) {
		for (size_t i = 0; i < m; i++)
			perm[i] = i;
		if (order == BATCH_SHUFFLE) {
			for (size_t i = m; i > 1; i--) {
				size_t j = (size_t)(next_random(&rng) % i), t = perm[i - 1];

				perm[i - 1] = perm[j];
				perm[j] = t;
			}
		} else if (m > 0) {
			size_t shift = (size_t)r <= m && (size_t)rounds <= m ?
				       (size_t)r * m / (size_t)rounds : (size_t)r % m;

			for (size_t i = 0; i < m; i++)
				perm[i] = (i + shift) % m;
		}
		for (size_t i = 0; i < m; i++) {
			struct batch_slot *s = &out[(size_t)r * m + i];

			s->index = index++;
			s->round = r + 1;
			s->position = (int)i + 1;
			s->token = perm[i] / n_variants;
			s->variant = perm[i] % n_variants;
		}
	}
	free(perm);
}

int batch_order_parse(const char *s, enum batch_order *out)
{
	if (strcmp(s, "rotate") == 0)
		*out = BATCH_ROTATE;
	else if (strcmp(s, "shuffle") == 0)
		*out = BATCH_SHUFFLE;
	else
		return -EINVAL;
	return 0;
}

const char *batch_order_name(enum batch_order o)
{
	return o == BATCH_SHUFFLE ? "shuffle" : "rotate";
}

char *batch_run_name(const char *variant, const char *label)
{
	return label && *label ? xasprintf("%s@%s", variant, label) : xstrdup(variant);
}

/* ---- the directory ---- */

void batch_init(struct batch *b)
{
	memset(b, 0, sizeof(*b));
	kvfile_init(&b->info);
	argv_init(&b->variants);
	argv_init(&b->tokens);
	b->runs_fd = -1;
}

void batch_release(struct batch *b)
{
	for (size_t i = 0; b->run_dir && i < b->n_slots; i++)
		free(b->run_dir[i]);
	free(b->run_dir);
	free(b->state);
	free(b->attempts);
	free(b->slots);
	free(b->id);
	free(b->dir);
	kvfile_release(&b->info);
	argv_release(&b->variants);
	argv_release(&b->tokens);
	if (b->runs_fd >= 0)
		close(b->runs_fd);
	memset(b, 0, sizeof(*b));
	b->runs_fd = -1;
}

static void alloc_slots(struct batch *b)
{
	b->n_slots = (size_t)b->rounds * b->variants.n * b->tokens.n;
	b->slots = zalloc(sizeof(*b->slots) * (b->n_slots ? b->n_slots : 1));
	b->state = zalloc(sizeof(*b->state) * (b->n_slots ? b->n_slots : 1));
	b->attempts = zalloc(sizeof(*b->attempts) * (b->n_slots ? b->n_slots : 1));
	b->run_dir = zalloc(sizeof(*b->run_dir) * (b->n_slots ? b->n_slots : 1));
	batch_plan(b->variants.n, b->tokens.n, b->rounds, b->order, b->seed, b->slots);
}

static int write_info(struct batch *b, struct strbuf *err)
{
	char *path = xasprintf("%s/batch.txt", b->dir);
	int r = kvfile_write(&b->info, path);

	if (r < 0 && err)
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(-r));
	free(path);
	return r;
}

static int open_runs(struct batch *b, struct strbuf *err)
{
	char *path = xasprintf("%s/runs.txt", b->dir);
	int r = 0;

	b->runs_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (b->runs_fd < 0) {
		r = -errno;
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
	}
	free(path);
	return r;
}

int batch_create(struct batch *b, const char *parent, const struct batch_spec *spec,
		 struct strbuf *err)
{
	time_t now = time(NULL);
	char stamp[32], iso[32];
	char *s;
	int r;

	for (size_t i = 0; i < spec->variants->n; i++)
		argv_push(&b->variants, spec->variants->v[i]);
	for (size_t i = 0; i < spec->tokens->n; i++)
		argv_push(&b->tokens, spec->tokens->v[i]);
	b->rounds = spec->rounds;
	b->order = spec->order;
	b->seed = spec->seed;
	alloc_slots(b);

	r = mkdir_p(parent, 0755);
	if (r < 0) {
		strbuf_addf(err, "cannot create '%s': %s", parent, strerror(-r));
		return r;
	}
	utc_compact(now, stamp, sizeof(stamp));
	for (int i = 1; ; i++) {
		free(b->id);
		free(b->dir);
		b->id = i == 1 ? xasprintf("%s-%s", stamp, spec->game) :
				 xasprintf("%s-%s-%d", stamp, spec->game, i);
		b->dir = xasprintf("%s/%s", parent, b->id);
		if (mkdir(b->dir, 0755) == 0)
			break;
		if (errno != EEXIST || i == 100) {
			r = -errno;
			strbuf_addf(err, "cannot create '%s': %s", b->dir, strerror(errno));
			return r;
		}
	}
	utc_iso8601(now, iso, sizeof(iso));
	kvfile_addf(&b->info, "format", "%d", HB_BATCH_FORMAT);
	kvfile_add(&b->info, "batch_id", b->id);
	kvfile_add(&b->info, "game", spec->game);
	s = argv_join(b->variants.v);
	kvfile_add(&b->info, "variants", s);
	free(s);
	s = argv_join(b->tokens.v);
	kvfile_add(&b->info, "tokens", s);
	free(s);
	kvfile_addf(&b->info, "rounds", "%d", b->rounds);
	kvfile_add(&b->info, "order", batch_order_name(b->order));
	kvfile_addf(&b->info, "seed", "%llu", (unsigned long long)b->seed);
	kvfile_add(&b->info, "started_utc", iso);
	provenance_system(&b->info);
	for (size_t i = 0; spec->options && i < spec->options->n; i++)
		kvfile_add(&b->info, spec->options->items[i].key, spec->options->items[i].value);
	for (size_t i = 0; i < b->n_slots; i++) {
		char key[32];

		snprintf(key, sizeof(key), "slot.%d", b->slots[i].index);
		kvfile_addf(&b->info, key, "%d %d %s %s", b->slots[i].round, b->slots[i].position,
			    b->variants.v[b->slots[i].variant], b->tokens.v[b->slots[i].token]);
	}
	r = write_info(b, err);
	if (r == 0)
		r = open_runs(b, err);
	return r;
}

int batch_runs_line(char *line, size_t n_slots, enum slot_state *state, int *attempts, char **run_dir)
{
	char *save = NULL, *idx = strtok_r(line, " ", &save), *ev = strtok_r(NULL, " ", &save);
	char *dir = strtok_r(NULL, " ", &save);
	int i;

	if (!idx || !ev || safe_atoi(idx, &i) < 0 || i < 1 || (size_t)i > n_slots)
		return -EINVAL;
	i--;
	if (strcmp(ev, "started") == 0) {
		if (attempts)
			attempts[i]++;
		state[i] = SLOT_PENDING;
	} else if (strcmp(ev, "done") == 0) {
		state[i] = SLOT_DONE;
	} else if (strcmp(ev, "invalid") == 0) {
		state[i] = SLOT_DONE;
	} else if (strcmp(ev, "rerun") == 0) {
		state[i] = SLOT_RERUN;
	} else if (strcmp(ev, "aborted") == 0) {
		state[i] = state[i] == SLOT_RERUN ? SLOT_RERUN : SLOT_PENDING;
	} else {
		return -EINVAL;
	}
	if (run_dir && dir && strcmp(dir, "-") != 0 && strcmp(ev, "aborted") != 0 && strcmp(ev, "started") != 0) {
		free(run_dir[i]);
		run_dir[i] = xstrdup(dir);
	}
	return 0;
}

static int parse_runs_line(struct batch *b, char *line)
{
	return batch_runs_line(line, b->n_slots, b->state, b->attempts, b->run_dir);
}

int batch_open(struct batch *b, const char *arg, const char *parent, struct strbuf *err)
{
	char *info_path, *runs_path = NULL, *text = NULL, *save = NULL;
	const char *v, *why = NULL;
	int line = 0, r;

	b->dir = strchr(arg, '/') || access(arg, F_OK) == 0 ? xstrdup(arg) : xasprintf("%s/%s", parent, arg);
	info_path = xasprintf("%s/batch.txt", b->dir);
	r = kvfile_load(&b->info, info_path, err);
	if (r < 0)
		goto out;
	r = -EINVAL;
	v = kvfile_get(&b->info, "format");
	if (!v || strcmp(v, "1") != 0) {
		strbuf_addf(err, "%s: batch format '%s' is not one this hitchbench reads (1)",
			    info_path, v ? v : "(none)");
		goto out;
	}
	b->id = xstrdup(kvfile_get(&b->info, "batch_id"));
	if (!b->id || !kvfile_get(&b->info, "variants") || !kvfile_get(&b->info, "tokens") ||
	    argv_split(&b->variants, kvfile_get(&b->info, "variants"), &why) < 0 ||
	    argv_split(&b->tokens, kvfile_get(&b->info, "tokens"), &why) < 0 ||
	    !kvfile_get(&b->info, "rounds") || safe_atoi(kvfile_get(&b->info, "rounds"), &b->rounds) < 0 ||
	    b->rounds < 1 || b->variants.n == 0 || b->tokens.n == 0 ||
	    !kvfile_get(&b->info, "order") || batch_order_parse(kvfile_get(&b->info, "order"), &b->order) < 0 ||
	    !kvfile_get(&b->info, "seed") || safe_atou64(kvfile_get(&b->info, "seed"), &b->seed) < 0) {
		strbuf_addf(err, "%s: batch_id, variants, tokens, rounds, order or seed missing or bad",
			    info_path);
		goto out;
	}
	alloc_slots(b);
	runs_path = xasprintf("%s/runs.txt", b->dir);
	r = read_file(runs_path, &text, NULL);
	if (r < 0 && r != -ENOENT) {
		strbuf_addf(err, "cannot read '%s': %s", runs_path, strerror(-r));
		goto out;
	}
	line = 0;
	r = 0;
	for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		line++;
		if (parse_runs_line(b, l) < 0) {
			/* a line cut short by a crash can only be the last one */
			if (!save || !*save)
				break;
			strbuf_addf(err, "%s:%d: not 'INDEX EVENT [RUNDIR]'", runs_path, line);
			r = -EINVAL;
			goto out;
		}
	}
	r = open_runs(b, err);
out:
	free(text);
	free(info_path);
	free(runs_path);
	return r;
}

int batch_note(struct batch *b, size_t slot, const char *event, const char *run_dir,
	       const char *detail)
{
	struct strbuf sb = STRBUF_INIT;
	const char *base = run_dir ? strrchr(run_dir, '/') : NULL;
	int r = 0;

	strbuf_addf(&sb, "%d %s", b->slots[slot].index, event);
	if (run_dir)
		strbuf_addf(&sb, " %s", base ? base + 1 : run_dir);
	if (detail && *detail) {
		strbuf_addstr(&sb, run_dir ? " " : " - ");
		for (const char *c = detail; *c; c++)
			strbuf_addch(&sb, *c == '\n' ? ' ' : *c);
	}
	strbuf_addch(&sb, '\n');
	if (write(b->runs_fd, sb.buf, sb.len) != (ssize_t)sb.len || fdatasync(b->runs_fd) < 0)
		r = -errno ? -errno : -EIO;
	if (r == 0) {
		char *copy = xstrdup(sb.buf);

		copy[sb.len - 1] = '\0';
		parse_runs_line(b, copy);
		free(copy);
	}
	strbuf_release(&sb);
	return r;
}

int batch_finish(struct batch *b, const char *status)
{
	char iso[32];

	utc_iso8601(time(NULL), iso, sizeof(iso));
	kvfile_set(&b->info, "ended_utc", iso);
	kvfile_set(&b->info, "status", status);
	return write_info(b, NULL);
}

int batch_write_checksums(const struct batch *b)
{
	struct argv_list only;
	struct dirent *de;
	DIR *d = opendir(b->dir);
	int r = 0;

	if (!d)
		return -errno;
	argv_init(&only);
	while ((de = readdir(d)) && r == 0) {
		char *path = xasprintf("%s/%s", b->dir, de->d_name), *sums;
		struct stat st;

		if (strcmp(de->d_name, SHA256SUMS_NAME) == 0 || strcmp(de->d_name, BATCH_RUNNER_LOG) == 0 ||
		    strcmp(de->d_name, BATCH_RUNNER_PID) == 0 || lstat(path, &st) < 0) {
			free(path);
			continue;
		}
		if (S_ISREG(st.st_mode)) {
			argv_push(&only, de->d_name);
		} else if (S_ISDIR(st.st_mode) && de->d_name[0] != '.') {
			sums = xasprintf("%s/%s", path, SHA256SUMS_NAME);
			if (access(sums, F_OK) < 0)
				r = sha256sums_write(path, NULL);
			argv_pushf(&only, "%s/%s", de->d_name, SHA256SUMS_NAME);
			free(sums);
		}
		free(path);
	}
	closedir(d);
	if (r == 0)
		r = sha256sums_write(b->dir, (const char *const *)only.v);
	argv_release(&only);
	return r;
}

int batch_drop_checksums(const struct batch *b)
{
	char *path = xasprintf("%s/%s", b->dir, SHA256SUMS_NAME);
	int r = unlink(path) < 0 && errno != ENOENT ? -errno : 0;

	free(path);
	return r;
}

int batch_metric_opts(const struct batch *b, struct metric_opts *mo, struct strbuf *err)
{
	const char *v;

	if (!(v = kvfile_get(&b->info, "stall_ms")) || safe_atod(v, &mo->stall_ms) < 0 ||
	    !(v = kvfile_get(&b->info, "percentile")) || percentile_def_parse(v, &mo->pct) < 0) {
		strbuf_addf(err, "%s/batch.txt: stall_ms or percentile missing or bad", b->dir);
		return -EINVAL;
	}
	if ((v = kvfile_get(&b->info, "min_frames")) && min_frames_parse(v, &mo->min_frames) < 0) {
		strbuf_addf(err, "%s/batch.txt: min_frames '%s' is not a whole number", b->dir, v);
		return -EINVAL;
	}
	return 0;
}

size_t batch_pending(const struct batch *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n_slots; i++)
		n += b->state[i] != SLOT_DONE;
	return n;
}

int batch_runner_parse(const char *text, size_t len, int *pid, uint64_t *start)
{
	char *a = xstrndup(text, len), *save = NULL;
	char *p = strtok_r(a, " \n", &save), *t = strtok_r(NULL, " \n", &save);
	int r = p && t && safe_atoi(p, pid) == 0 && safe_atou64(t, start) == 0 ? 0 : -EINVAL;

	free(a);
	return r;
}

bool batch_runner_is(const char *text, size_t len, const struct pstat *st)
{
	uint64_t start;
	int pid;

	return batch_runner_parse(text, len, &pid, &start) == 0 && st->pid == pid && st->starttime == start &&
	       st->state != 'Z';
}
