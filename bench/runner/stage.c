/*
 * The game's private space and environment (see stage.h).
 */
#include "runner/stage.h"
#include "procwatch/procwatch.h"
#include "formats/frames.h"
#include "runner/framesource.h"
#include "base/hash.h"
#include "runner/vklayer.h"
#include "runner/xserver.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Helpers a recipe's prepare step may call, copied into the stage's bin/. */
static const char *const helpers[] = { "hitchbench-wadlump" };

/* Where a stage may go, best first: tmpfs in /dev/shm keeps the frame
 * file off the disks being measured. */
static const char *base_dir(size_t i)
{
	const char *bases[] = { "/dev/shm", getenv("TMPDIR"), "/tmp", "/var/tmp" };

	return i < ARRAY_SIZE(bases) ? bases[i] : NULL;
}

#define N_BASES 4

/* The hook and the helpers are executed from the stage: a noexec mount
 * (a hardened /dev/shm) cannot hold it. */
static bool can_exec_from(const char *dir)
{
	struct statvfs sv;

	return statvfs(dir, &sv) == 0 && !(sv.f_flag & ST_NOEXEC);
}

/* Makes the directory and writes runner.pid in it, so that a later runner
 * can tell a stage whose runner died (stage_sweep). */
static int make_dir(struct stage *st)
{
	errno = 0;
	for (size_t i = 0; i < N_BASES; i++) {
		const char *base = base_dir(i);
		char *t, *pidfile, pid[32];
		int r;

		if (!base || !*base || !can_exec_from(base))
			continue;
		t = xasprintf("%s/hitchbench-XXXXXX", base);
		if (!mkdtemp(t)) {
			free(t);
			continue;
		}
		st->dir = t;
		pidfile = xasprintf("%s/runner.pid", t);
		snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		r = write_file_atomic(pidfile, pid, strlen(pid), 0644);
		free(pidfile);
		return r;
	}
	return errno ? -errno : -ENOENT;
}

int stage_note_run_dir(const struct stage *st, const char *run_dir)
{
	char *path = xasprintf("%s/rundir", st->dir), *back = xasprintf("%s/staging", run_dir);
	int r = write_file_atomic(back, st->dir, strlen(st->dir), 0644);

	if (r == 0)
		r = write_file_atomic(path, run_dir, strlen(run_dir), 0644);
	free(path);
	free(back);
	return r;
}

/* A dead runner's flip run: its frames kept in its run directory, which
 * takes its final name (".NAME.tmp" -> "NAME"). Quietly nothing when the
 * staging names no such run. */
static void keep_killed_flip_run(const char *staging)
{
	char *note = xasprintf("%s/rundir", staging), *dir = NULL, *frames = NULL, *dst = NULL, *fin = NULL;
	char *flip = NULL, *bench = NULL, *base, *slash;
	size_t len = 0;

	struct stat st;
	char *back = NULL, *back_text = NULL;

	/* the staging is root's (stage_create), but it may be one an older
	 * build gave to the game's user: the pointer counts only when the run
	 * directory, root's, names this staging back in a file of ours */
	if (read_file(note, &dir, &len) < 0 || len == 0 || memchr(dir, '\0', len))
		goto out;
	back = xasprintf("%s/staging", dir);
	if (lstat(back, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    read_file(back, &back_text, NULL) < 0 || strcmp(back_text, staging) != 0)
		goto out;
	flip = xasprintf("%s/flip.txt", dir);
	bench = xasprintf("%s/bench.txt", dir);
	dst = xasprintf("%s/frames.bin", dir);
	frames = xasprintf("%s/frames.bin", staging);
	slash = strrchr(dir, '/');
	base = slash ? slash + 1 : dir;
	if (access(flip, F_OK) < 0 || access(bench, F_OK) < 0 || access(dst, F_OK) == 0 ||
	    base[0] != '.' || strlen(base) < 6 || strcmp(base + strlen(base) - 4, ".tmp") != 0)
		goto out;
	if (hb_frames_keep(frames, dst, 0644) < 0)
		goto out;
	fin = xasprintf("%.*s%.*s", (int)(base - dir), dir, (int)(strlen(base) - 5), base + 1);
	if (access(fin, F_OK) < 0)
		rename(dir, fin);
out:
	free(back);
	free(back_text);
	free(note);
	free(dir);
	free(frames);
	free(dst);
	free(fin);
	free(flip);
	free(bench);
}

int stage_sweep(void)
{
	int swept = 0;

	for (size_t i = 0; i < N_BASES; i++) {
		const char *base = base_dir(i);
		struct dirent *de;
		DIR *d;

		if (!base || !*base || !(d = opendir(base)))
			continue;
		while ((de = readdir(d))) {
			char *path, *pidfile, *text = NULL;
			int pid;

			if (!str_startswith(de->d_name, "hitchbench-"))
				continue;
			path = xasprintf("%s/%s", base, de->d_name);
			pidfile = xasprintf("%s/runner.pid", path);
			if (read_file(pidfile, &text, NULL) == 0 && safe_atoi(str_strip(text), &pid) == 0 &&
			    pid > 0 && kill(pid, 0) < 0 && errno == ESRCH) {
				keep_killed_flip_run(path);
				if (remove_tree(path) == 0)
					swept++;
			}
			free(text);
			free(pidfile);
			free(path);
		}
		closedir(d);
	}
	return swept;
}

static int copy_helpers(const struct stage *st, const char *helper_dir)
{
	char *bin = xasprintf("%s/bin", st->dir);
	int r = mkdir(bin, 0755) < 0 ? -errno : 0;

	for (size_t i = 0; r == 0 && helper_dir && i < ARRAY_SIZE(helpers); i++) {
		char *from = xasprintf("%s/%s", helper_dir, helpers[i]);
		char *to = xasprintf("%s/%s", bin, helpers[i]);

		if (access(from, X_OK) == 0)
			r = copy_file(from, to, 0755);
		free(from);
		free(to);
	}
	free(bin);
	return r;
}

/* With an existing display (--display), the game needs the cookie of
 * whoever runs hitchbench: a copy of their authority file, if they have
 * one (a server without access control needs none). */
static int copy_caller_xauth(struct stage *st, struct strbuf *err)
{
	const char *from = getenv("XAUTHORITY"), *home = getenv("HOME");
	char *fallback = NULL;
	int r = 0;

	if ((!from || !*from) && home && *home)
		from = fallback = xasprintf("%s/.Xauthority", home);
	if (from && access(from, R_OK) == 0) {
		st->xauth = xasprintf("%s/Xauthority", st->dir);
		r = copy_file(from, st->xauth, 0600);
		if (r < 0)
			strbuf_addf(err, "cannot copy the X authority file '%s': %s", from, strerror(-r));
	}
	free(fallback);
	return r;
}

int stage_create(struct stage *st, const char *hook_src, const char *helper_dir,
		 bool want_xauth, const struct game_user *u, struct strbuf *err)
{
	char *tmp, *run;
	int r;

	memset(st, 0, sizeof(*st));
	r = make_dir(st);
	if (r < 0) {
		strbuf_addf(err, "cannot make a staging directory in /dev/shm, $TMPDIR, /tmp or /var/tmp "
			    "(a place that allows exec): %s", strerror(-r));
		return r;
	}
	st->home = xasprintf("%s/home", st->dir);
	st->hook = xasprintf("%s/hitchbench-hook.so", st->dir);
	st->frames = xasprintf("%s/frames.bin", st->dir);
	tmp = xasprintf("%s/tmp", st->dir);
	run = xasprintf("%s/run", st->dir);
	r = mkdir(st->home, 0700) < 0 || mkdir(tmp, 0700) < 0 || mkdir(run, 0700) < 0 ? -errno : 0;
	if (r == 0) {
		r = copy_file(hook_src, st->hook, 0755);
		if (r < 0)
			strbuf_addf(err, "cannot copy the frame hook '%s': %s", hook_src, strerror(-r));
	}
	if (r == 0)
		r = copy_helpers(st, helper_dir);
	if (r == 0) {
		r = hb_frames_create(st->frames, HB_FRAMES_CAPACITY, 0600);
		if (r < 0)
			strbuf_addf(err, "cannot create the frame file: %s", strerror(-r));
	}
	if (r == 0 && want_xauth) {
		st->xauth = xasprintf("%s/Xauthority", st->dir);
		r = xauth_write(st->xauth, 0600);
		if (r < 0)
			strbuf_addf(err, "cannot write the X authority file: %s", strerror(-r));
	} else if (r == 0) {
		r = copy_caller_xauth(st, err);
	}
	/* The staging directory stays root's (docs/security.md, "The staging
	 * directory"): the game may write only what is given to it, so it
	 * cannot plant a name where root's recorders make their live records
	 * or rewrite runner.pid and rundir. HOME is given once it is seeded
	 * (stage_finish_home); the hook and bin/ stay root's, read-only to it. */
	for (size_t i = 0; r == 0 && i < 4; i++) {
		const char *mine[] = { tmp, run, st->frames, st->xauth };

		if (mine[i] && (r = game_user_give(u, mine[i])) < 0)
			strbuf_addf(err, "cannot give '%s' to user '%s': %s", mine[i], u->name,
				    strerror(-r));
	}
	if (r == 0 && chmod(st->dir, 0711) < 0)
		r = -errno;
	if (r < 0 && !err->len)
		strbuf_addf(err, "cannot prepare the staging directory '%s': %s", st->dir,
			    strerror(-r));
	free(tmp);
	free(run);
	return r;
}

int stage_seed(struct stage *st, const struct recipe_settings *set, struct kvfile *bench,
	       int *seq, struct strbuf *err)
{
	for (size_t i = 0; i < set->n_files; i++) {
		const struct recipe_file *f = &set->files[i];
		char *dest = xasprintf("%s/%s", st->home, f->dest);
		char *dir = xstrdup(dest);
		char hex[HB_SHA256_HEX_LEN + 1];
		char key[32];
		int r;

		*strrchr(dir, '/') = '\0';
		r = mkdir_p(dir, 0755);
		if (r == 0)
			r = copy_file(f->src, dest, 0644);
		if (r == 0)
			r = sha256_file_hex(dest, hex);
		free(dir);
		free(dest);
		if (r < 0) {
			strbuf_addf(err, "cannot seed '%s' from '%s': %s", f->dest, f->src,
				    strerror(-r));
			return r;
		}
		snprintf(key, sizeof(key), "file.%d", ++*seq);
		kvfile_addf(bench, key, "%s %s", f->dest, hex);
	}
	return 0;
}

int stage_vulkan_layer(struct stage *st, const struct recipe *r, const struct recipe_variant *v,
		       struct kvfile *bench, struct strbuf *err)
{
	const char *data_home = v ? vklayer_env_data_home((const char *const *)v->set.env.v) : NULL;
	char *lib, *dir = NULL;
	size_t home_len = strlen(st->home);
	int e;

	if (!data_home)
		data_home = vklayer_env_data_home((const char *const *)r->set.env.v);
	lib = realpath(st->hook, NULL);
	if (!lib) {
		e = -errno;
		strbuf_addf(err, "cannot resolve the frame hook '%s': %s", st->hook, strerror(-e));
		return e;
	}
	e = vklayer_library_has_entry(lib);
	if (e < 0) {
		strbuf_addf(err, "cannot read the frame hook '%s': %s", lib, strerror(-e));
		goto out;
	}
	if (e == 0) {
		kvfile_addf(bench, "vulkan_layer", "none (the frame hook has no %s: built before "
			    "the Vulkan layer)", VKLAYER_ENTRY);
		goto out;
	}
	dir = vklayer_manifest_dir(st->home, data_home, &e);
	if (!dir) {
		strbuf_addf(err, "XDG_DATA_HOME=%s is not an absolute path", data_home);
		goto out;
	}
	e = vklayer_write_manifest(dir, lib, &st->vk_manifest);
	if (e < 0) {
		strbuf_addf(err, "cannot write the Vulkan layer's manifest in '%s': %s", dir,
			    strerror(-e));
		goto out;
	}
	st->vk_manifest_outside = strncmp(st->vk_manifest, st->home, home_len) != 0 ||
				  st->vk_manifest[home_len] != '/';
	kvfile_add(bench, "vulkan_layer", st->vk_manifest_outside ? st->vk_manifest
				  : st->vk_manifest + home_len + 1);
out:
	free(dir);
	free(lib);
	return e;
}

int stage_finish_home(struct stage *st, const struct recipe *r, const struct game_user *u,
		      struct strbuf *err)
{
	char *wd = stage_workdir(st, r);
	int e = 0;

	if (str_startswith(wd, st->home))
		e = mkdir_p(wd, 0755);
	if (e < 0) {
		strbuf_addf(err, "cannot make the working directory '%s': %s", wd, strerror(-e));
		goto out;
	}
	e = framesource_prepare(r->frames, st->home, err);
	if (e == 0 && (e = game_user_give(u, st->home)) < 0)
		strbuf_addf(err, "cannot give '%s' to user '%s': %s", st->home, u->name,
			    strerror(-e));
out:
	free(wd);
	return e;
}

/* How deep stage_keep_home goes into HOME: a game's tree deeper than this
 * is not kept (said in home_skipped), so a planted chain of directories
 * cannot exhaust the runner's stack or its file descriptors. */
#define KEEP_HOME_DEPTH 64

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void note_skipped(struct strbuf *skipped, const char *rel, const char *name)
{
	strbuf_addf(skipped, "%s%s%s%s", skipped->len ? " " : "", rel, *rel ? "/" : "", name);
}

/* Copies the directory sfd (HOME/rel, the game's) into dfd (root's),
 * recursively, by file descriptors only: a name is opened in its parent
 * without following a symlink and checked on what was opened, so a
 * symlink swapped in for a file or a directory while root copies (by any
 * process of the game's user) is never followed. Links are kept as links,
 * other special files left out, regular files over max_bytes named in
 * skipped. */
static int keep_dir(int sfd, int dfd, const char *rel, long long max_bytes, int depth,
		    struct strbuf *skipped)
{
	char **list = NULL;
	int dupfd, n, r = 0;
	DIR *d;

	/* the names, read through a dup of sfd (closedir closes it), sorted */
	dupfd = fcntl(sfd, F_DUPFD_CLOEXEC, 0);
	if (dupfd < 0)
		return -errno;
	d = fdopendir(dupfd);
	if (!d) {
		close(dupfd);
		return -errno;
	}
	n = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (!*rel && !strcmp(de->d_name, ".cache")))
			continue;
		list = xrealloc(list, sizeof(*list) * (size_t)(n + 1));
		list[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(list, (size_t)n, sizeof(*list), cmp_name);
	for (int i = 0; i < n; i++) {
		const char *name = list[i];
		struct stat st;
		int e = 0;

		if (fstatat(sfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			/* gone meanwhile: not copied */
		} else if (S_ISDIR(st.st_mode) && depth >= KEEP_HOME_DEPTH) {
			note_skipped(skipped, rel, name);
		} else if (S_ISDIR(st.st_mode)) {
			int s2 = openat(sfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), d2 = -1;
			char *sub = xasprintf("%s%s%s", rel, *rel ? "/" : "", name);

			if (s2 < 0 || (mkdirat(dfd, name, 0755) < 0 && errno != EEXIST) ||
			    (d2 = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
				e = s2 < 0 && errno == ENOTDIR ? 0 : -errno;
			else
				e = keep_dir(s2, d2, sub, max_bytes, depth + 1, skipped);
			if (s2 >= 0)
				close(s2);
			if (d2 >= 0)
				close(d2);
			free(sub);
		} else if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t len = readlinkat(sfd, name, target, sizeof(target) - 1);

			if (len >= 0) {
				target[len] = '\0';
				e = symlinkat(target, dfd, name) < 0 ? -errno : 0;
			}
		} else if (S_ISREG(st.st_mode) && st.st_size > max_bytes) {
			note_skipped(skipped, rel, name);
		} else if (S_ISREG(st.st_mode)) {
			int in = open_regular_at(sfd, name, &st), out = -1;

			if (in >= 0 && st.st_size <= max_bytes &&
			    (out = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					  0644)) >= 0)
				e = copy_fd(in, out, (uint64_t)max_bytes);
			else if (in >= 0 && st.st_size > max_bytes)
				note_skipped(skipped, rel, name);
			else if (in != -ELOOP && in != -EINVAL)
				e = in < 0 ? in : -errno;
			if (e == -EFBIG) { /* it grew past the limit while copied */
				note_skipped(skipped, rel, name);
				unlinkat(dfd, name, 0);
				e = 0;
			}
			if (out >= 0 && close(out) < 0 && e == 0)
				e = -errno;
			if (in >= 0)
				close(in);
		}
		if (e < 0 && r == 0)
			r = e;
		free(list[i]);
	}
	free(list);
	return r;
}

int stage_keep_home(const struct stage *st, const char *dest, long long max_bytes,
		    struct strbuf *skipped)
{
	int sfd, dfd = -1, r;

	if (mkdir(dest, 0755) < 0 && errno != EEXIST)
		return -errno;
	sfd = open(st->home, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0 || (dfd = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		r = -errno;
	else
		r = keep_dir(sfd, dfd, "", max_bytes, 0, skipped);
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
	return r;
}

void stage_release(struct stage *st)
{
	if (st->vk_manifest && st->vk_manifest_outside)
		unlink(st->vk_manifest);
	free(st->vk_manifest);
	if (st->dir)
		remove_tree(st->dir);
	free(st->dir);
	free(st->home);
	free(st->frames);
	free(st->xauth);
	free(st->hook);
	memset(st, 0, sizeof(*st));
}

/* Sets NAME=VALUE, replacing an earlier NAME. */
static void env_put(struct argv_list *env, const char *entry)
{
	size_t n = strcspn(entry, "=");

	for (size_t i = 0; i < env->n; i++) {
		if (!strncmp(env->v[i], entry, n) && env->v[i][n] == '=') {
			free(env->v[i]);
			env->v[i] = xstrdup(entry);
			return;
		}
	}
	argv_push(env, entry);
}

void game_env_build(struct argv_list *env, const struct game_env_opts *o)
{
	const struct stage *st = o->stage;

	argv_release(env);
	argv_init(env);
	argv_pushf(env, "HOME=%s", st->home);
	argv_pushf(env, "USER=%s", o->user->name);
	argv_pushf(env, "LOGNAME=%s", o->user->name);
	argv_pushf(env, "PATH=%s/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games",
		   st->dir);
	argv_pushf(env, "TMPDIR=%s/tmp", st->dir);
	argv_pushf(env, "XDG_RUNTIME_DIR=%s/run", st->dir);
	argv_push(env, "LANG=C.UTF-8");
	/* SDL without an X server falls back to an offscreen driver and keeps
	 * presenting: frames that were never shown. Held to X, the game fails
	 * instead (a recipe may say otherwise). */
	argv_push(env, "SDL_VIDEODRIVER=x11");
	argv_pushf(env, "DISPLAY=%s", o->display);
	if (st->xauth)
		argv_pushf(env, "XAUTHORITY=%s", st->xauth);
	argv_pushf(env, "HITCHBENCH_RUN_DIR=%s", o->run_dir);
	if (o->run_id)
		argv_pushf(env, "%s=%s", PROCWATCH_MARKER_ENV, o->run_id);
	if (o->relay_id)
		argv_pushf(env, "%s=%s", PROCWATCH_RELAY_ENV, o->relay_id);
	if (o->with_hook) {
		const char *pre = framesource_preload(o->recipe->frames);

		argv_pushf(env, "LD_PRELOAD=%s%s%s", pre ? pre : "", pre ? ":" : "", st->hook);
		argv_pushf(env, "%s=%s", HB_FRAMES_ENV, st->frames);
		/* the hook is the Vulkan layer too (stage_vulkan_layer) */
		argv_pushf(env, "%s=1", HB_VK_ENABLE_ENV);
	}
	for (size_t i = 0; i < o->recipe->set.env.n; i++)
		env_put(env, o->recipe->set.env.v[i]);
	for (size_t i = 0; o->variant && i < o->variant->set.env.n; i++)
		env_put(env, o->variant->set.env.v[i]);
	if (o->with_hook) {
		struct argv_list src;

		argv_init(&src);
		framesource_env(&src, o->recipe->frames, st->home, o->run_s);
		for (size_t i = 0; i < src.n; i++)
			env_put(env, src.v[i]);
		argv_release(&src);
	}
}

char *stage_workdir(const struct stage *st, const struct recipe *r)
{
	if (!r->workdir || !*r->workdir)
		return xstrdup(st->home);
	if (r->workdir[0] == '/')
		return xstrdup(r->workdir);
	return xasprintf("%s/%s", st->home, r->workdir);
}
