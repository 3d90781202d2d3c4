/*
 * The one script that asks a target what it has (see targets-check.h).
 * One script, not one remote command per question: every question costs a
 * round trip but no login (the connection is multiplexed), and a target
 * such as a PS3 answers a dozen round trips slowly.
 */
#include "target/targets-check.h"
#include "base/exitcodes.h"
#include "recipe/recipe.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The packages `make install` needs on the target (scripts/deps.sh's
 * BUILD, less what only tests use). */
static const char check_build_packages[] = "gcc make pkg-config libinih-dev libsqlite3-dev nettle-dev libzstd-dev "
				    "libx11-dev libgl-dev libxtst-dev libevdev-dev libvulkan-dev libpq-dev";

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *check_command_program(char *const *words)
{
	static const char *const wrappers[] = { "env", "stdbuf", "nice", "ionice", "taskset", "setsid" };

	for (size_t i = 0; words && words[i]; i++) {
		const char *w = words[i], *base = strrchr(w, '/');
		bool wrapper = false;

		base = base ? base + 1 : w;
		/* options, NAME=VALUE and a wrapper's numbers (nice -n 5, taskset 0x3) */
		if (w[0] == '-' || (strchr(w, '=') && !strchr(w, '/')) || strspn(w, "0123456789,x") == strlen(w))
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(wrappers); k++)
			wrapper |= !strcmp(base, wrappers[k]);
		if (!wrapper)
			return w;
	}
	return NULL;
}

void check_games_collect(struct check_games *g, char *const *dirs, size_t n)
{
	memset(g, 0, sizeof(*g));
	for (size_t d = 0; d < n && dirs[d]; d++) {
		DIR *dir = opendir(dirs[d]);
		struct argv_list names;
		struct dirent *de;

		if (!dir)
			continue;
		argv_init(&names);
		while ((de = readdir(dir))) {
			size_t len = strlen(de->d_name);

			if (len > 4 && !strcmp(de->d_name + len - 4, ".ini"))
				argv_push(&names, de->d_name);
		}
		closedir(dir);
		qsort(names.v, names.n, sizeof(char *), name_cmp);
		for (size_t i = 0; i < names.n; i++) {
			char *path = xasprintf("%s/%s", dirs[d], names.v[i]);
			struct recipe r;

			recipe_init(&r);
			if (recipe_load(path, &r, NULL) == 0) {
				struct check_game *cg;
				struct strbuf pk = STRBUF_INIT;
				const char *prog = check_command_program(r.command.v);

				g->v = xrealloc(g->v, (g->n + 1) * sizeof(*g->v));
				cg = &g->v[g->n++];
				for (size_t k = 0; k < r.packages.n; k++)
					strbuf_addf(&pk, "%s%s", k ? " " : "", r.packages.v[k]);
				cg->name = xstrdup(r.name);
				cg->packages = strbuf_detach(&pk);
				cg->program = xstrdup(prog);
			}
			recipe_release(&r);
			free(path);
		}
		argv_release(&names);
		break;
	}
}

void check_games_release(struct check_games *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].name);
		free(g->v[i].packages);
		free(g->v[i].program);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}

/* The script's fixed part: after the prefix is set (p) and before the
 * games' lines are fed to its loop (a here-document). */
static const char script_body[] =
	"PATH=$PATH:/usr/sbin:/sbin:/usr/games\n"
	"case $p in\n"
	"'~') p=$HOME ;;\n"
	"'~/'*) p=$HOME/${p#'~/'} ;;\n"
	"/*) ;;\n"
	"*) p=$HOME/$p ;;\n"
	"esac\n"
	"kv() { printf '%s=%s\\n' \"$1\" \"$2\"; }\n"
	"has() { command -v \"$1\" >/dev/null 2>&1 || [ -x \"$1\" ]; }\n"
	"deb() { has dpkg-query && dpkg-query -W -f='${db:Status-Abbrev}' \"$1\" 2>/dev/null | grep -q '^ii'; }\n"
	"kv reachable yes\n"
	"kv user \"$(id -un 2>/dev/null)\"\n"
	"kv home \"$HOME\"\n"
	"kv machine \"$(uname -m)\"\n"
	"a=; has dpkg && a=$(dpkg --print-architecture 2>/dev/null)\n"
	"kv arch \"$a\"\n"
	"kv kernel \"$(uname -r)\"\n"
	"kv boot_id \"$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)\"\n"
	"os=; [ -r /etc/os-release ] && os=$(. /etc/os-release; printf %s \"${PRETTY_NAME:-}\")\n"
	"kv os \"$os\"\n"
	"kv nproc \"$(getconf _NPROCESSORS_ONLN 2>/dev/null)\"\n"
	"x=no; { has Xorg || [ -x /usr/lib/xorg/Xorg ]; } && x=yes; kv xorg $x\n"
	"x=no; has Xvfb && x=yes; kv xvfb $x\n"
	"d=; for s in /tmp/.X11-unix/X*; do [ -S \"$s\" ] && d=\"$d${d:+ }:${s#/tmp/.X11-unix/X}\"; done\n"
	"kv x_displays \"$d\"\n"
	"if [ \"$(id -u)\" = 0 ]; then q=root\n"
	"elif has sudo && sudo -n true 2>/dev/null; then q=sudo\n"
	"else q=no; fi\n"
	"kv quieting $q\n"
	"kv mem_total_kb \"$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo 2>/dev/null)\"\n"
	"kv mem_available_kb \"$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null)\"\n"
	"kv prefix \"$p\"\n"
	"for k in harness_version arch how pushed_utc; do\n"
	"\tv=; [ -r \"$p/push.txt\" ] && v=$(sed -n \"s/^$k=//p\" \"$p/push.txt\" | head -n 1)\n"
	"\tcase $k in harness_version) n=version ;; pushed_utc) n=utc ;; *) n=$k ;; esac\n"
	"\tkv installed_$n \"$v\"\n"
	"done\n"
	"e=$p; while [ ! -d \"$e\" ] && [ \"$e\" != / ]; do e=$(dirname \"$e\"); done\n"
	"kv disk_free_kb \"$(df -Pk \"$e\" 2>/dev/null | awk 'NR == 2 { print $4 }')\"\n"
	"m=; if has dpkg-query; then for k in $build; do deb \"$k\" || m=\"$m${m:+ }$k\"; done\n"
	"else for k in cc make pkg-config; do has $k || m=\"$m${m:+ }$k\"; done; fi\n"
	"kv build_missing \"$m\"\n"
	"x=no; has rsync && x=yes; kv rsync $x\n"
	"while IFS='|' read -r name pkgs prog; do\n"
	"\t[ -n \"$name\" ] || continue\n"
	"\tm=\n"
	"\tif has dpkg-query; then for k in $pkgs; do deb \"$k\" || m=\"$m${m:+ }$k\"; done; fi\n"
	"\t[ -z \"$prog\" ] || has \"$prog\" || m=\"$m${m:+ }$prog\"\n"
	"\tkv \"game.$name\" \"${m:-ok}\"\n"
	"done <<'HB_GAMES'\n";

char *check_script(const char *prefix, const struct check_games *games)
{
	struct strbuf sb = STRBUF_INIT;
	char *q = sh_quote(prefix ? prefix : "~/hitchbench"), *b = sh_quote(check_build_packages);

	strbuf_addf(&sb, "p=%s\nbuild=%s\n%s", q, b, script_body);
	for (size_t i = 0; i < games->n; i++) {
		const struct check_game *g = &games->v[i];

		/* a '|' or a newline in a name would break the line apart:
		 * recipe names and packages hold neither; a program might */
		if (strpbrk(g->name, "|\n") || strpbrk(g->packages, "|\n") ||
		    (g->program && strpbrk(g->program, "|\n")))
			continue;
		strbuf_addf(&sb, "%s|%s|%s\n", g->name, g->packages, g->program ? g->program : "");
	}
	strbuf_addstr(&sb, "HB_GAMES\n");
	free(q);
	free(b);
	return strbuf_detach(&sb);
}

int check_run(struct ssh_conn *c, const char *prefix, const struct check_games *games, struct kvfile *out,
	      struct strbuf *err)
{
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT;
	char *script = check_script(prefix, games);
	const char *v;
	int r;

	r = ssh_exec(c, "sh -s", script, &o, &e);
	free(script);
	if (r < 0) {
		strbuf_addf(err, "%s", strerror(-r));
		goto out;
	}
	for (char *line = o.buf, *nl; line && *line; line = nl) {
		char *eq;

		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		eq = strchr(line, '=');
		if (!eq || eq == line)
			continue;
		*eq = '\0';
		if (kvfile_valid_key(line))
			kvfile_add(out, line, eq + 1);
	}
	v = kvfile_get(out, "reachable");
	if (!v || strcmp(v, "yes") != 0) {
		strbuf_addf(err, "the check script did not run there (exit %d)%s%s", r, e.len ? ": " : "",
			    e.len ? e.buf : "");
		r = -EPROTO;
	} else {
		r = 0;
	}
out:
	strbuf_release(&o);
	strbuf_release(&e);
	return r;
}

