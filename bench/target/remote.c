/*
 * A target's batches as the host sees them (see remote.h): the remote
 * command lines, the listing and its parse, the host's records of the
 * batches it started, and the pull of a finished batch.
 */
#include "target/remote.h"
#include "batch/batch.h"
#include "system/procparse.h"
#include "formats/sha256sums.h"
#include "base/timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int remote_target_find(const char *name, struct target_list *l, const struct ssh_target **t,
		       struct strbuf *err)
{
	char *path = targets_default_path();
	int r = targets_load(path, l, err);

	if (r == 0) {
		*t = targets_find(l, name);
		if (!*t) {
			strbuf_addf(err, "no target '%s' in '%s' ('hitchbench target add %s ssh://...' adds it)",
				    name, path, name);
			r = -ENOENT;
		}
	}
	free(path);
	return r;
}

char *remote_prefix(const struct ssh_target *t)
{
	const char *p = t->prefix;

	if (!p || !*p)
		return xstrdup("hitchbench");
	if (strcmp(p, "~") == 0 || strcmp(p, "~/") == 0)
		return xstrdup(".");
	if (str_startswith(p, "~/"))
		return xstrdup(p + 2);
	return xstrdup(p);
}

bool remote_batch_id_valid(const char *id)
{
	return *id && *id != '.' && !strchr(id, '/');
}

/* "cd PREFIX" for the remote shell, failing with REMOTE_NO_HARNESS */
static void add_cd(struct strbuf *sb, const struct ssh_target *t)
{
	char *prefix = remote_prefix(t), *q = sh_quote(prefix);

	strbuf_addf(sb, "cd %s 2>/dev/null || exit %d; ", q, REMOTE_NO_HARNESS);
	free(q);
	free(prefix);
}

char *remote_start_command(const struct ssh_target *t, const char *const *args)
{
	struct strbuf sb = STRBUF_INIT;

	add_cd(&sb, t);
	strbuf_addf(&sb, "[ -f push.txt ] || exit %d; ", REMOTE_NO_HARNESS);
	/* the marker for the exec chain only: what the runner forks carries
	 * it from the start, as /proc/PID/environ shows it to the watcher;
	 * the pushed tree is an installed one, whose results would go to the
	 * login's data directory: they stay in PREFIX/results, where target
	 * status and pull look */
	strbuf_addstr(&sb, "HITCHBENCH_HARNESS=remote-start HITCHBENCH_RESULTS=results exec bin/hitchbench run --detach");
	for (size_t i = 0; args[i]; i++) {
		char *q = sh_quote(args[i]);

		strbuf_addf(&sb, " %s", q);
		free(q);
	}
	return strbuf_detach(&sb);
}

int remote_start_parse(const char *out, char **id, double *expected_s, char **dir)
{
	const char *line = out, *found = NULL;

	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		line = p;
		if (str_startswith(line, "batch "))
			found = line;
	}
	if (!found)
		return -EINVAL;
	{
		size_t len = strcspn(found, "\n");
		char *copy = xstrndup(found, len), *save = NULL;
		char *w0 = strtok_r(copy, " ", &save), *w1 = strtok_r(NULL, " ", &save),
		     *w2 = strtok_r(NULL, " ", &save), *w3 = strtok_r(NULL, " ", &save),
		     *w4 = strtok_r(NULL, " ", &save), *w5 = strtok_r(NULL, "", &save);
		int r = -EINVAL;

		if (w0 && w1 && w2 && w3 && w4 && w5 && strcmp(w2, "expected_s") == 0 && strcmp(w4, "dir") == 0 &&
		    remote_batch_id_valid(w1) && safe_atod(w3, expected_s) == 0 && *expected_s >= 0) {
			*id = xstrdup(w1);
			*dir = xstrdup(w5);
			r = 0;
		}
		free(copy);
		return r;
	}
}

void remote_list_init(struct remote_list *l)
{
	memset(l, 0, sizeof(*l));
}

static void remote_batch_clear(struct remote_batch *b)
{
	free(b->id);
	free(b->dir);
	kvfile_release(&b->info);
}

void remote_list_release(struct remote_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		remote_batch_clear(&l->v[i]);
	free(l->v);
	remote_list_init(l);
}

const char *remote_state_name(enum remote_state s)
{
	switch (s) {
	case REMOTE_RUNNING: return "running";
	case REMOTE_ENDED: return "ended";
	case REMOTE_ABANDONED: return "not ended, no runner";
	}
	return "?";
}

char *remote_list_command(const struct ssh_target *t, const char *const *dirs, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	add_cd(&sb, t);
	strbuf_addstr(&sb, "for d in");
	if (!dirs || !n)
		strbuf_addstr(&sb, " results/runs/*");
	for (size_t i = 0; dirs && i < n; i++) {
		char *q = sh_quote(dirs[i]);

		strbuf_addf(&sb, " %s", q);
		free(q);
	}
	/* each batch a section: @batch DIR, batch.txt, @runs, runs.txt, @pid
	 * with runner.pid's "PID STARTTIME" and that pid's stat, @end */
	strbuf_addstr(&sb, "; do [ -f \"$d/batch.txt\" ] || continue; "
		      "echo \"@batch $d\"; cat \"$d/batch.txt\"; "
		      "echo @runs; cat \"$d/runs.txt\" 2>/dev/null; echo @pid; "
		      "if [ -f \"$d/runner.pid\" ]; then read p s <\"$d/runner.pid\"; echo \"$p $s\"; "
		      "echo @stat; cat \"/proc/$p/stat\" 2>/dev/null; fi; echo @end; done");
	return strbuf_detach(&sb);
}

/* What runs.txt says: the slots whose last event is done or invalid. */
/* The slots of runs.txt's text that finished (done, or invalid and no
 * rerun owed), read as batch_open reads them; a last line cut short is
 * not counted. */
static size_t runs_done(const char *runs, size_t len, size_t planned)
{
	enum slot_state *state = zalloc(sizeof(*state) * (planned ? planned : 1));
	size_t done = 0;
	const char *p = runs, *end = runs + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char *line;

		if (!nl)
			break;
		line = xstrndup(p, (size_t)(nl - p));
		batch_runs_line(line, planned, state, NULL, NULL);
		free(line);
		p = nl + 1;
	}
	for (size_t i = 0; i < planned; i++)
		done += state[i] == SLOT_DONE;
	free(state);
	return done;
}

/* Whether "PID STARTTIME" is the process whose stat is given. */
static bool runner_alive(const char *pidline, size_t pidlen, const char *stat, size_t statlen)
{
	char *b = xstrndup(stat, statlen);
	struct pstat st;
	bool alive = pstat_parse(b, &st) == 0 && batch_runner_is(pidline, pidlen, &st);

	free(b);
	return alive;
}

/* The text between this marker line and the next line starting with '@'. */
static const char *section(const char *p, const char *end, const char *marker, size_t *len)
{
	size_t ml = strlen(marker);
	const char *q;

	if ((size_t)(end - p) < ml + 1 || memcmp(p, marker, ml) != 0 || p[ml] != '\n')
		return NULL;
	p += ml + 1;
	for (q = p; q < end && *q != '@'; ) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));

		q = nl ? nl + 1 : end;
	}
	*len = (size_t)(q - p);
	return p;
}

static int parse_one(const char *p, const char *end, struct remote_batch *b, const char **next,
		     const char **why)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p)), *s, *runs, *pid = NULL, *stat = NULL;
	size_t len, runs_len, pid_len = 0, stat_len = 0;
	int line = 0;
	bool alive;
	char *info;

	if (!nl) {
		*why = "a section without its lines";
		return -EINVAL;
	}
	memset(b, 0, sizeof(*b));
	kvfile_init(&b->info);
	b->dir = xstrndup(p + strlen("@batch "), (size_t)(nl - p) - strlen("@batch "));
	p = nl + 1;
	for (s = p; s < end && *s != '@'; ) {
		const char *n2 = memchr(s, '\n', (size_t)(end - s));

		s = n2 ? n2 + 1 : end;
	}
	info = xstrndup(p, (size_t)(s - p));
	if (kvfile_parse(&b->info, info, &line) < 0 || !kvfile_get(&b->info, "batch_id")) {
		free(info);
		*why = "a batch.txt that does not parse";
		return -EINVAL;
	}
	free(info);
	runs = section(s, end, "@runs", &runs_len);
	if (!runs) {
		*why = "no @runs";
		return -EINVAL;
	}
	s = runs + runs_len;
	if (!section(s, end, "@pid", &len)) {
		*why = "no @pid";
		return -EINVAL;
	}
	pid = section(s, end, "@pid", &pid_len);
	s = pid + pid_len;
	stat = section(s, end, "@stat", &stat_len);
	if (stat)
		s = stat + stat_len;
	if ((size_t)(end - s) < 5 || memcmp(s, "@end\n", 5) != 0) {
		*why = "no @end";
		return -EINVAL;
	}
	*next = s + 5;
	b->id = xstrdup(kvfile_get(&b->info, "batch_id"));
	for (size_t i = 0; i < b->info.n; i++)
		if (str_startswith(b->info.items[i].key, "slot."))
			b->planned++;
	b->done = runs_done(runs, runs_len, b->planned);
	b->status = kvfile_get(&b->info, "status");
	/* a runner that wrote the status is still at the checksums, the
	 * database and the report: ended once it is gone. Without runner.pid
	 * (a batch run in the foreground there) the status alone says. */
	alive = pid_len && stat && runner_alive(pid, pid_len, stat, stat_len);
	if (b->status && !alive)
		b->state = REMOTE_ENDED;
	else if (alive || !pid_len)
		b->state = REMOTE_RUNNING;
	else
		b->state = REMOTE_ABANDONED;
	return 0;
}

int remote_list_parse(const char *text, struct remote_list *l, const char **why)
{
	const char *p = text, *end = text + strlen(text);

	while (p < end) {
		struct remote_batch b;

		if (!str_startswith(p, "@batch ")) {
			*why = "a line outside a @batch section";
			return -EINVAL;
		}
		if (parse_one(p, end, &b, &p, why) < 0) {
			remote_batch_clear(&b);
			return -EINVAL;
		}
		if (l->n == l->alloc) {
			l->alloc = l->alloc ? 2 * l->alloc : 8;
			l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
		}
		l->v[l->n++] = b;
	}
	return 0;
}

int remote_list(struct ssh_conn *c, const char *const *dirs, size_t n, struct remote_list *l,
		struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT;
	char *cmd = remote_list_command(c->target, dirs, n);
	const char *why = NULL;
	int r = ssh_exec(c, cmd, NULL, &out, err);

	free(cmd);
	if (r == 0 && remote_list_parse(out.len ? out.buf : "", l, &why) < 0) {
		strbuf_addf(err, "the target's listing of its batches: %s", why);
		r = -EINVAL;
	}
	strbuf_release(&out);
	return r;
}

char *remote_record_path(const char *results_dir, const char *target, const char *batch)
{
	return xasprintf("%s/targets/%s/%s.remote", results_dir, target, batch);
}

int remote_record_write(const char *results_dir, const char *target, const char *batch, const char *dir,
			time_t started, double expected_s)
{
	char *path = remote_record_path(results_dir, target, batch), *slash = strrchr(path, '/');
	time_t end = started + (time_t)(expected_s + 0.5);
	char iso[32];
	struct kvfile kf;
	int r;

	*slash = '\0';
	r = mkdir_p(path, 0755);
	*slash = '/';
	if (r < 0) {
		free(path);
		return r;
	}
	kvfile_init(&kf);
	kvfile_addf(&kf, "format", "%d", REMOTE_RECORD_FORMAT);
	kvfile_add(&kf, "target", target);
	kvfile_add(&kf, "batch", batch);
	kvfile_add(&kf, "dir", dir);
	utc_iso8601(started, iso, sizeof(iso));
	kvfile_add(&kf, "started_utc", iso);
	kvfile_addf(&kf, "started_s", "%lld", (long long)started);
	kvfile_addf(&kf, "expected_s", "%.0f", expected_s);
	utc_iso8601(end, iso, sizeof(iso));
	kvfile_add(&kf, "expected_end_utc", iso);
	kvfile_addf(&kf, "expected_end_s", "%lld", (long long)end);
	r = kvfile_write(&kf, path);
	kvfile_release(&kf);
	free(path);
	return r;
}

int remote_record_read(const char *results_dir, const char *target, const char *batch, struct kvfile *kf)
{
	char *path = remote_record_path(results_dir, target, batch);
	int line = 0, r;

	if (access(path, F_OK) < 0) {
		free(path);
		return -ENOENT;
	}
	r = kvfile_read(kf, path, &line);
	free(path);
	return r;
}

int remote_record_look(const char *results_dir, const char *target, const struct remote_batch *b)
{
	char *path = remote_record_path(results_dir, target, b->id), iso[32];
	struct kvfile kf;
	int line = 0, r;

	kvfile_init(&kf);
	if (access(path, F_OK) < 0 || kvfile_read(&kf, path, &line) < 0) {
		kvfile_release(&kf);
		free(path);
		return 0;
	}
	utc_iso8601(time(NULL), iso, sizeof(iso));
	kvfile_set(&kf, "looked_utc", iso);
	kvfile_set(&kf, "state", b->state == REMOTE_ENDED ? b->status : remote_state_name(b->state));
	{
		char n[32];

		snprintf(n, sizeof(n), "%zu", b->done);
		kvfile_set(&kf, "runs_done", n);
		snprintf(n, sizeof(n), "%zu", b->planned);
		kvfile_set(&kf, "runs_planned", n);
	}
	r = kvfile_write(&kf, path);
	kvfile_release(&kf);
	free(path);
	return r;
}

int remote_records_measuring(const char *results_dir, const char *target, time_t now, struct argv_list *out)
{
	char *dir = xasprintf("%s/targets/%s", results_dir, target);
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		int r = errno == ENOENT ? 0 : -errno;

		free(dir);
		return r;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct kvfile kf;
		const char *end, *state;
		int64_t end_s;
		char *id;

		if (len <= 7 || strcmp(e->d_name + len - 7, ".remote") != 0 || e->d_name[0] == '.')
			continue;
		id = xstrndup(e->d_name, len - 7);
		kvfile_init(&kf);
		if (remote_record_read(results_dir, target, id, &kf) == 0 &&
		    (end = kvfile_get(&kf, "expected_end_s")) && safe_atoi64(end, &end_s) == 0 &&
		    (int64_t)now < end_s &&
		    (!(state = kvfile_get(&kf, "state")) || strcmp(state, "running") == 0))
			argv_pushf(out, "%s %s", id, kvfile_get(&kf, "expected_end_utc"));
		kvfile_release(&kf);
		free(id);
	}
	closedir(d);
	free(dir);
	return 0;
}

void remote_pull_init(struct remote_pull *p)
{
	memset(p, 0, sizeof(*p));
	strbuf_init(&p->why);
}

void remote_pull_release(struct remote_pull *p)
{
	free(p->local);
	strbuf_release(&p->why);
	memset(p, 0, sizeof(*p));
}

static uint64_t tree_bytes;
static size_t tree_runs;

static int count_file(const char *path, const struct stat *st, int type, struct FTW *f)
{
	if (type == FTW_F && S_ISREG(st->st_mode)) {
		tree_bytes += (uint64_t)st->st_size;
		if (f->level == 2 && strcmp(path + f->base, "bench.txt") == 0)
			tree_runs++;
	}
	return 0;
}

/* rsync --stats' "Total bytes received: 1,234" */
static uint64_t received_bytes(const char *out)
{
	const char *p = strstr(out, "Total bytes received: ");
	uint64_t v = 0;

	if (!p)
		return 0;
	for (p += strlen("Total bytes received: "); *p && *p != '\n'; p++)
		if (*p >= '0' && *p <= '9')
			v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

/* A path the listing gave, made safe to name on the rsync command line and
 * in rm: no "..", no blank, ending in the batch id. */
static bool safe_remote_dir(const struct remote_batch *b)
{
	size_t dl = strlen(b->dir), il = strlen(b->id);

	return dl > il && strcmp(b->dir + dl - il, b->id) == 0 && b->dir[dl - il - 1] == '/' &&
	       !strstr(b->dir, "..") && !strpbrk(b->dir, " \t\n");
}

/* The remote path of dir (relative to the prefix, or absolute) for rsync,
 * whose relative paths are the login's home's. */
static char *remote_path(const struct ssh_target *t, const char *dir, const char *tail)
{
	char *prefix = remote_prefix(t), *p;

	p = dir[0] == '/' ? xasprintf("%s%s", dir, tail) : xasprintf("%s/%s%s", prefix, dir, tail);
	free(prefix);
	return p;
}

static int copy_batch(struct ssh_conn *c, const struct remote_batch *b, const char *tmp, const char *final,
		      struct remote_pull *p)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *from = remote_path(c->target, b->dir, "/"), *spec = ssh_remote_spec(c, from), *to,
	     *link = NULL;
	const char *args[16];
	size_t n = 0;
	int r;

	to = xasprintf("%s/", tmp);
	args[n++] = "-a";
	args[n++] = "--partial";
	args[n++] = "--delete";
	args[n++] = "--stats";
	/* the detached runner's own files (written after the batch's
	 * checksums) and what a killed run left half-made are not the batch */
	args[n++] = "--exclude=/runner.log";
	args[n++] = "--exclude=/runner.pid";
	args[n++] = "--exclude=/.*.tmp";
	if (access(final, F_OK) == 0) {
		char abs[PATH_MAX];

		/* a batch pulled before: its unchanged files are linked, not copied */
		if (realpath(final, abs)) {
			link = xasprintf("--link-dest=%s", abs);
			args[n++] = link;
		}
	}
	args[n++] = spec;
	args[n++] = to;
	args[n] = NULL;
	r = ssh_rsync(c, args, &out, &err);
	if (r != 0)
		strbuf_addf(&p->why, "rsync of %s: %s%s", from, r < 0 ? strerror(-r) : "failed: ",
			    r < 0 || !err.len ? "" : err.buf);
	else
		p->copied = received_bytes(out.len ? out.buf : "");
	free(link);
	free(to);
	free(spec);
	free(from);
	strbuf_release(&out);
	strbuf_release(&err);
	return r == 0 ? 0 : r < 0 ? r : -EIO;
}

/* The runner's log beside the batch (not in it: it is written after the
 * batch's checksums), when there is one. */
static void copy_log(struct ssh_conn *c, const struct remote_batch *b, const char *local_dir)
{
	char *from = remote_path(c->target, b->dir, "/runner.log"), *spec = ssh_remote_spec(c, from);
	char *to = xasprintf("%s/%s.runner.log", local_dir, b->id);
	const char *args[] = { "-a", "--partial", spec, to, NULL };

	/* a batch run in the foreground on the target has none */
	ssh_rsync(c, args, NULL, NULL);
	free(to);
	free(spec);
	free(from);
}

int remote_pull_batch(struct ssh_conn *c, const char *results_dir, const struct remote_batch *b,
		      struct remote_pull *p)
{
	char *dir = xasprintf("%s/targets/%s", results_dir, c->target->name);
	char *tmp = xasprintf("%s/.%s.tmp", dir, b->id);
	uint64_t t0;
	int r;

	p->local = xasprintf("%s/%s", dir, b->id);
	if (!safe_remote_dir(b)) {
		strbuf_addf(&p->why, "'%s' is not a batch directory of '%s'", b->dir, b->id);
		r = -EINVAL;
		goto out;
	}
	r = mkdir_p(tmp, 0755);
	if (r < 0) {
		strbuf_addf(&p->why, "cannot create '%s': %s", tmp, strerror(-r));
		goto out;
	}
	t0 = mono_ns();
	r = copy_batch(c, b, tmp, p->local, p);
	if (r == 0)
		copy_log(c, b, dir);
	p->copy_s = (double)(mono_ns() - t0) / 1e9;
	if (r < 0)
		goto out;
	t0 = mono_ns();
	r = sha256sums_verify(tmp, &p->why);
	p->verify_s = (double)(mono_ns() - t0) / 1e9;
	tree_bytes = 0;
	tree_runs = 0;
	nftw(tmp, count_file, 16, FTW_PHYS);
	p->bytes = tree_bytes;
	p->runs = tree_runs;
	if (r != 0) {
		/* kept for the next pull, which goes on from it */
		if (r < 0 && !p->why.len)
			strbuf_addstr(&p->why, strerror(-r));
		r = r < 0 ? r : 1;
		goto out;
	}
	/* into place: over a batch pulled before, the two swapped and the old removed */
	if (access(p->local, F_OK) == 0) {
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, p->local, RENAME_EXCHANGE) < 0) {
			r = -errno;
			strbuf_addf(&p->why, "cannot put '%s' in place of '%s': %s", tmp, p->local, strerror(errno));
			goto out;
		}
		remove_tree(tmp);
	} else if (rename(tmp, p->local) < 0) {
		r = -errno;
		strbuf_addf(&p->why, "cannot rename '%s' to '%s': %s", tmp, p->local, strerror(errno));
	}
out:
	free(tmp);
	free(dir);
	return r;
}

int remote_delete_batch(struct ssh_conn *c, const struct remote_batch *b, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	char *q;
	int r;

	if (b->state != REMOTE_ENDED || !safe_remote_dir(b))
		return -EINVAL;
	add_cd(&sb, c->target);
	q = sh_quote(b->dir);
	strbuf_addf(&sb, "rm -rf -- %s", q);
	free(q);
	r = ssh_exec(c, sb.buf, NULL, NULL, err);
	strbuf_release(&sb);
	return r;
}
