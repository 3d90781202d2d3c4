/*
 * hitchbench site's build (site.h): one at a time per directory, the
 * previous build's state read first, the model made from the database,
 * then the pages, each written only when it changed; what the previous
 * build made and this one did not is removed; the state is written last,
 * after the pages are on disk (syncfs), so that a build cut short leaves a
 * state that names only pages as they were made, and the next build
 * catches up.
 */
#include "site/site-internal.h"
#include "base/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define SITE_STATE "site.state"
#define SITE_LOCK ".site.lock"

/* Makes the directories of path (relative to dirfd) that are missing,
 * and checks that each is a directory, not a link: a site's directory may
 * be shared, and a page is never written, nor removed, through a link
 * someone put in place of one of its directories. 0, -errno, or -ELOOP. */
static int make_parents(int dirfd, const char *path, bool make)
{
	char *p = xstrdup(path);
	struct stat st;
	int r = 0;

	for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (make && mkdirat(dirfd, p, 0755) < 0 && errno != EEXIST)
			r = -errno;
		else if (fstatat(dirfd, p, &st, AT_SYMLINK_NOFOLLOW) < 0)
			r = -errno;
		else if (!S_ISDIR(st.st_mode))
			r = -ELOOP;
		*s = '/';
		if (r < 0)
			break;
	}
	free(p);
	return r;
}

/* The page's bytes under a name of this process's own, then renamed over
 * the page: a reader sees the old page or the new one, never half. Not
 * synced one by one: site_build() syncs the file system once before it
 * writes the state. */
static int write_page(int dirfd, const char *path, const char *content, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	int fd, r = make_parents(dirfd, path, true);

	if (r < 0)
		goto out;
	unlinkat(dirfd, tmp, 0);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = write_all(fd, content, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dirfd, tmp, dirfd, path) < 0)
		r = -errno;
	if (r < 0)
		unlinkat(dirfd, tmp, 0);
out:
	free(tmp);
	return r;
}

static bool page_there(int dirfd, const char *path)
{
	struct stat st;

	return make_parents(dirfd, path, false) == 0 && fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode);
}

bool site_page_fresh(struct site_build *b, const char *path, const char *fingerprint)
{
	const char *old = site_state_page(&b->old, path);

	if (!old || strcmp(old, fingerprint) != 0 || !page_there(b->dirfd, path))
		return false;
	site_state_add_page(&b->now, path, fingerprint);
	b->stats->unchanged++;
	return true;
}

int site_put_page_fp(struct site_build *b, const char *path, const char *fingerprint,
		     const char *content, size_t len, struct strbuf *err)
{
	int r;

	if (site_page_fresh(b, path, fingerprint))
		return 0;
	r = write_page(b->dirfd, path, content, len);
	if (r < 0) {
		strbuf_addf(err, "cannot write '%s/%s': %s", b->o->out, path, strerror(-r));
		return r;
	}
	site_state_add_page(&b->now, path, fingerprint);
	b->stats->written++;
	return 0;
}

int site_put_page(struct site_build *b, const char *path, const char *content, size_t len,
		  struct strbuf *err)
{
	char hex[HB_SHA256_HEX_LEN + 1];

	sha256_hex(content, len, hex);
	return site_put_page_fp(b, path, hex, content, len, err);
}

static int cmp_page(const void *a, const void *b)
{
	return strcmp(((const struct site_page_state *)a)->path, ((const struct site_page_state *)b)->path);
}

/* The pages of the previous build that this one did not make (a batch
 * gone from the database), and then their directories if left empty.
 * Only names the state lists, and only pages. */
static void remove_stale(struct site_build *b)
{
	for (size_t i = 0; i < b->old.n_pages; i++) {
		const char *path = b->old.pages[i].path;
		struct site_page_state key = { .path = (char *)path };
		size_t len = strlen(path);
		char *dir;

		if (b->now.n_pages && bsearch(&key, b->now.pages, b->now.n_pages, sizeof(key), cmp_page))
			continue;
		if (len < 5 || strcmp(path + len - 5, ".html") != 0 || !page_there(b->dirfd, path))
			continue;
		if (unlinkat(b->dirfd, path, 0) == 0)
			b->stats->removed++;
		dir = xstrdup(path);
		for (char *s = strrchr(dir, '/'); s; s = strrchr(dir, '/')) {
			*s = '\0';
			if (unlinkat(b->dirfd, dir, AT_REMOVEDIR) < 0)
				break;
		}
		free(dir);
	}
}

static int cmp_change(const void *x, const void *y)
{
	const struct site_change *a = x, *b = y;
	int c = strcmp(a->page, b->page);

	if (!c)
		c = strcmp(a->machine, b->machine);
	return c ? c : strcmp(a->batch_after, b->batch_after);
}

int site_build(struct resultsdb *db, const struct site_opts *o, struct site_stats *stats,
	       struct strbuf *problems, struct strbuf *err)
{
	struct site_build b = { .o = o, .db = db, .stats = stats, .problems = problems, .dirfd = -1 };
	struct site_change *changes = NULL;
	size_t n_changes = 0;
	char *state_path = xasprintf("%s/" SITE_STATE, o->out);
	int lock = -1, r;

	memset(stats, 0, sizeof(*stats));
	site_state_init(&b.old);
	site_state_init(&b.now);
	r = mkdir_p(o->out, 0755);
	if (r < 0) {
		strbuf_addf(err, "cannot make '%s': %s", o->out, strerror(-r));
		goto out;
	}
	b.dirfd = open(o->out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b.dirfd >= 0)
		lock = openat(b.dirfd, SITE_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (b.dirfd < 0 || lock < 0 || flock(lock, LOCK_EX) < 0) {
		r = -errno;
		strbuf_addf(err, "cannot lock '%s/%s': %s", o->out, SITE_LOCK, strerror(errno));
		goto out;
	}
	r = site_state_read(state_path, &b.old, err);
	if (r < 0)
		goto out;
	r = site_model_load(&b.m, db, o, err);
	if (r < 0)
		goto out;
	b.now.generator = xstrdup(o->generator);
	b.now.built_utc = xstrdup(o->now_utc);
	r = site_write_trends(&b, &changes, &n_changes, err);
	if (r == 0)
		r = site_write_index(&b, changes, n_changes, err);
	if (r == 0)
		r = site_write_machines(&b, err);
	if (r == 0)
		r = site_write_batches(&b, err);
	if (r < 0)
		goto out;
	if (b.now.n_pages)
		qsort(b.now.pages, b.now.n_pages, sizeof(*b.now.pages), cmp_page);
	for (size_t i = 1; i < b.now.n_pages; i++)
		if (!strcmp(b.now.pages[i].path, b.now.pages[i - 1].path)) {
			strbuf_addf(err, "two pages would be '%s'", b.now.pages[i].path);
			r = -EEXIST;
			goto out;
		}
	remove_stale(&b);
	if (n_changes)
		qsort(changes, n_changes, sizeof(*changes), cmp_change);
	b.now.changes = changes;
	b.now.n_changes = n_changes;
	changes = NULL;
	n_changes = 0;
	for (size_t i = 0; i < b.now.n_changes; i++)
		stats->new_change_points += b.now.changes[i].is_new;
	stats->change_points = b.now.n_changes;
	stats->pages = b.now.n_pages;
	if (syncfs(b.dirfd) < 0) {
		r = -errno;
		strbuf_addf(err, "cannot sync '%s': %s", o->out, strerror(errno));
		goto out;
	}
	r = site_state_write(state_path, &b.now);
	if (r < 0)
		strbuf_addf(err, "cannot write '%s': %s", state_path, strerror(-r));
out:
	for (size_t i = 0; i < n_changes; i++)
		site_change_release(&changes[i]);
	free(changes);
	site_model_release(&b.m);
	site_state_release(&b.old);
	site_state_release(&b.now);
	if (lock >= 0)
		close(lock);
	if (b.dirfd >= 0)
		close(b.dirfd);
	free(state_path);
	return r;
}
