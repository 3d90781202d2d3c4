/*
 * The kernel wish file (see kernelwish.h).
 */
#include "formats/kernelwish.h"
#include "system/fsroot.h"
#include "text/kvfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const method_names[] = {
	[KERNEL_BOOT_GRUB] = "grub",
	[KERNEL_BOOT_KEXEC] = "kexec",
};

const char *kernel_boot_method_name(enum kernel_boot_method m)
{
	return (size_t)m < ARRAY_SIZE(method_names) ? method_names[m] : "?";
}

/* "grub" / "kexec" back: 0 or -EINVAL. */
static int kernel_boot_method_parse(const char *s, enum kernel_boot_method *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(method_names); i++) {
		if (!strcmp(s, method_names[i])) {
			*m = (enum kernel_boot_method)i;
			return 0;
		}
	}
	return -EINVAL;
}

bool kernel_release_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= sizeof(((struct kernel_wish *)0)->kernel) || s[0] == '-' || s[0] == '.')
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+~-") == n;
}

char *kernel_wish_path(void)
{
	const char *env = getenv(KERNEL_WISH_ENV);
	const char *root = fsroot();
	size_t n = strlen(root);

	if (env && *env)
		return xstrdup(env);
	return xasprintf("%s%s%s", root, n && root[n - 1] == '/' ? "" : "/", KERNEL_WISH_REL);
}

/* Copies kf's value of key into buf: 0, or -EINVAL (missing, too long)
 * with why. */
static int wish_field(const struct kvfile *kf, const char *key, bool needed, char *buf, size_t size,
		      struct strbuf *err)
{
	const char *v = kvfile_get(kf, key);

	if (!v) {
		buf[0] = '\0';
		if (!needed)
			return 0;
		strbuf_addf(err, "no %s=", key);
		return -EINVAL;
	}
	if (strlen(v) >= size) {
		strbuf_addf(err, "%s= is longer than %zu bytes", key, size - 1);
		return -EINVAL;
	}
	memcpy(buf, v, strlen(v) + 1);
	return 0;
}

int kernel_wish_parse(const char *text, struct kernel_wish *w, struct strbuf *err)
{
	struct kvfile kf;
	const char *v, *why = NULL;
	char buf[32];
	int line = 0, r;

	memset(w, 0, sizeof(*w));
	kvfile_init(&kf);
	r = kvfile_parse_len(&kf, text, strlen(text), &line, &why);
	if (r < 0) {
		strbuf_addf(err, "line %d: %s", line, why);
		goto out;
	}
	r = -EINVAL;
	v = kvfile_get(&kf, "format");
	if (!v || safe_atoi(v, &w->format) < 0 || w->format < 1) {
		strbuf_addstr(err, v ? "format= is not a version number" : "no format=");
		goto out;
	}
	if (w->format > KERNEL_WISH_FORMAT) {
		strbuf_addf(err, "format %d is newer than this program's %d", w->format, KERNEL_WISH_FORMAT);
		goto out;
	}
	if (wish_field(&kf, "kernel", true, w->kernel, sizeof(w->kernel), err) < 0 ||
	    wish_field(&kf, "boot_id", true, w->boot_id, sizeof(w->boot_id), err) < 0 ||
	    wish_field(&kf, "job_id", false, w->job_id, sizeof(w->job_id), err) < 0 ||
	    wish_field(&kf, "node", false, w->node, sizeof(w->node), err) < 0 ||
	    wish_field(&kf, "method", true, buf, sizeof(buf), err) < 0)
		goto out;
	if (!kernel_release_valid(w->kernel)) {
		strbuf_addf(err, "kernel=%s is not a kernel release", w->kernel);
		goto out;
	}
	if (kernel_boot_method_parse(buf, &w->method) < 0) {
		strbuf_addf(err, "method=%s is neither grub nor kexec", buf);
		goto out;
	}
	v = kvfile_get(&kf, "asked");
	if (!v || safe_atoi64(v, &w->asked) < 0) {
		strbuf_addstr(err, v ? "asked= is not seconds since the epoch" : "no asked=");
		goto out;
	}
	r = 0;
out:
	kvfile_release(&kf);
	return r;
}

const char *kernel_wish_asked_utc(const struct kernel_wish *w, char *buf, size_t size)
{
	time_t t = (time_t)w->asked;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "%lld", (long long)w->asked);
	return buf;
}

char *kernel_wish_format(const struct kernel_wish *w)
{
	struct kvfile kf;
	char when[32];
	char *text;

	kernel_wish_asked_utc(w, when, sizeof(when));
	kvfile_init(&kf);
	kvfile_addf(&kf, "format", "%d", KERNEL_WISH_FORMAT);
	kvfile_add(&kf, "kernel", w->kernel);
	kvfile_add(&kf, "method", kernel_boot_method_name(w->method));
	kvfile_add(&kf, "boot_id", w->boot_id);
	kvfile_addf(&kf, "asked", "%lld", (long long)w->asked);
	kvfile_add(&kf, "asked_utc", when);
	kvfile_add(&kf, "job_id", w->job_id);
	kvfile_add(&kf, "node", w->node);
	text = kvfile_format(&kf);
	kvfile_release(&kf);
	return text;
}

int kernel_wish_read(const char *path, struct kernel_wish *w, struct strbuf *err)
{
	char *text = NULL;
	int r = read_file(path, &text, NULL);

	if (r < 0)
		return r;
	r = kernel_wish_parse(text, w, err);
	free(text);
	return r;
}

int kernel_wish_write(const char *path, const struct kernel_wish *w)
{
	char *text = kernel_wish_format(w);
	int r = write_file_atomic(path, text, strlen(text), 0644);

	free(text);
	return r;
}

enum kernel_verdict kernel_wish_decide(const char *running, const char *boot_id, const char *wanted,
				       const struct kernel_wish *wish)
{
	if (!strcmp(running, wanted))
		return KERNEL_RUNNING;
	/* A wish for this kernel made in an earlier boot: the reboot it asked
	 * for happened and did not give the kernel. A wish made in this boot
	 * (the reboot has not come yet: a job requeued onto the node before
	 * it rebooted) or for another kernel asks again. */
	if (wish && !strcmp(wish->kernel, wanted) && strcmp(wish->boot_id, boot_id))
		return KERNEL_MISSED;
	return KERNEL_REBOOT;
}

int kernel_installed(const char *release, enum kernel_boot_method method, struct strbuf *err)
{
	const char *kinds[] = { "vmlinuz", "initrd.img" };
	size_t n = method == KERNEL_BOOT_KEXEC ? 2 : 1;

	for (size_t i = 0; i < n; i++) {
		char rel[192];
		int fd;

		snprintf(rel, sizeof(rel), "boot/%s-%s", kinds[i], release);
		fd = fsroot_open(rel, O_PATH); /* a 0600 image (Ubuntu) is there all the same */
		if (fd < 0) {
			strbuf_addf(err, "%s: %s", rel, strerror(-fd));
			return fd == -ENOENT ? -ENOENT : fd;
		}
		close(fd);
	}
	return 0;
}
