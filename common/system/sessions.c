/*
 * logind's sessions and the active VT (sessions.h).
 */
#include "system/sessions.h"
#include "system/fsroot.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_value(char *dst, size_t size, const char *v, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, v, len);
	dst[len] = '\0';
}

int session_parse(const char *id, const char *text, struct login_session *out)
{
	struct login_session s;
	bool have_uid = false;
	const char *line = text;

	memset(&s, 0, sizeof(s));
	copy_value(s.id, sizeof(s.id), id, strlen(id));
	while (line && *line) {
		const char *nl = strchr(line, '\n'), *eq = strchr(line, '=');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *v;
		size_t vlen;
		uint64_t n;
		char num[32];

		if (!eq || eq >= line + len || *line == '#') {
			line = nl ? nl + 1 : NULL;
			continue;
		}
		v = eq + 1;
		vlen = len - (size_t)(v - line);
#define KEY(k) ((size_t)(eq - line) == strlen(k) && strncmp(line, k, strlen(k)) == 0)
		if (KEY("UID") || KEY("LEADER") || KEY("REALTIME") || KEY("REMOTE")) {
			copy_value(num, sizeof(num), v, vlen);
			if (safe_atou64(num, &n) < 0)
				return -EINVAL;
			if (KEY("UID")) {
				if (n > 0xffffffffu)
					return -EINVAL;
				s.uid = (unsigned)n;
				have_uid = true;
			} else if (KEY("LEADER")) {
				s.leader = n > 0x7fffffff ? 0 : (int)n;
			} else if (KEY("REALTIME")) {
				s.realtime_us = n;
			} else {
				s.remote = n != 0;
			}
		} else if (KEY("USER")) {
			copy_value(s.user, sizeof(s.user), v, vlen);
		} else if (KEY("SERVICE")) {
			copy_value(s.service, sizeof(s.service), v, vlen);
		} else if (KEY("REMOTE_HOST")) {
			copy_value(s.remote_host, sizeof(s.remote_host), v, vlen);
		} else if (KEY("TTY")) {
			copy_value(s.tty, sizeof(s.tty), v, vlen);
		} else if (KEY("SCOPE")) {
			copy_value(s.scope, sizeof(s.scope), v, vlen);
		} else if (KEY("CLASS")) {
			copy_value(s.class_, sizeof(s.class_), v, vlen);
		}
#undef KEY
		line = nl ? nl + 1 : NULL;
	}
	if (!have_uid)
		return -EINVAL;
	*out = s;
	return 0;
}

int sessions_list(struct login_session **out, size_t *n)
{
	char *dir = xasprintf("%s/%s", fsroot(), SESSIONS_DIR);
	struct login_session *v = NULL;
	size_t count = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	*out = NULL;
	*n = 0;
	if (!d) {
		int r = errno == ENOENT ? 0 : -errno;

		free(dir);
		return r;
	}
	while ((e = readdir(d)) != NULL) {
		char *rel, *text = NULL;
		struct login_session s;
		int r;

		/* logind's own files beside the sessions (x.ref FIFOs) are not sessions */
		if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
			continue;
		rel = xasprintf("%s/%s", SESSIONS_DIR, e->d_name);
		r = fsroot_read_all(rel, &text);
		free(rel);
		if (r < 0)
			continue;
		if (session_parse(e->d_name, text, &s) == 0) {
			v = xrealloc(v, (count + 1) * sizeof(*v));
			v[count++] = s;
		}
		free(text);
	}
	closedir(d);
	free(dir);
	*out = v;
	*n = count;
	return 0;
}

void session_describe(const struct login_session *s, char *buf, size_t size)
{
	const char *who = *s->user ? s->user : "?";

	if (*s->remote_host)
		snprintf(buf, size, "session %s (%s, %s from %s)", s->id, who,
			 *s->service ? s->service : "remote", s->remote_host);
	else if (*s->tty)
		snprintf(buf, size, "session %s (%s, %s on %s)", s->id, who,
			 *s->service ? s->service : "login", s->tty);
	else
		snprintf(buf, size, "session %s (%s%s%s)", s->id, who, *s->service ? ", " : "",
			 s->service);
}

int vt_parse(const char *text, int *vt)
{
	char *num;
	size_t len;
	int n, r;

	if (strncmp(text, "tty", 3) != 0)
		return -EINVAL;
	/* one newline may end it, as sysfs writes it */
	len = strlen(text + 3);
	num = xstrndup(text + 3, len > 0 && text[3 + len - 1] == '\n' ? len - 1 : len);
	r = safe_atoi(num, &n);
	free(num);
	if (r < 0 || n < 1)
		return -EINVAL;
	*vt = n;
	return 0;
}

void vt_watch_init(struct vt_watch *v, int now, int x_vt)
{
	memset(v, 0, sizeof(*v));
	v->now = now;
	v->x_vt = x_vt;
}

enum vt_verdict vt_watch_change(struct vt_watch *v, int vt)
{
	enum vt_verdict r;

	if (vt == v->now)
		return VT_SAME;
	if (v->x_vt && vt == v->x_vt && !v->x_took) {
		v->x_took = true;
		v->x_from = v->now;
		r = VT_X_TAKES;
	} else if (v->x_took && !v->x_gave && v->now == v->x_vt && vt == v->x_from) {
		v->x_gave = true;
		r = VT_X_GIVES_BACK;
	} else {
		r = VT_SWITCH;
	}
	v->now = vt;
	return r;
}
