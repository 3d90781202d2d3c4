/*
 * What a lab job is beyond Slurm's own record: its record, where its
 * batches go and how a requeued job finds the batch its first start made,
 * the run options a resume keeps, the site it refreshes and how that went,
 * its name and script, and the matrix file's batches (recipes/matrix.ini,
 * read as scripts/bench-matrix.sh reads it).
 */
#include "lab/lab.h"
#include "text/inifile.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *lab_job_record_path(const char *lab_dir, const char *job_id)
{
	return xasprintf("%s/jobs/%s.txt", lab_dir, job_id);
}

char *lab_job_batches_dir(const char *lab_dir, const char *job_id)
{
	return xasprintf("%s/jobs/%s", lab_dir, job_id);
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

void lab_job_record_fill(struct kvfile *kf, const struct lab_job_record *r)
{
	kvfile_addf(kf, "format", "%d", LAB_JOB_FORMAT);
	kvfile_add(kf, "job_id", or_empty(r->job_id));
	kvfile_add(kf, "submitted_utc", or_empty(r->submitted_utc));
	kvfile_add(kf, "game", or_empty(r->game));
	kvfile_add(kf, "variants", or_empty(r->variants));
	kvfile_addf(kf, "rounds", "%d", r->rounds);
	kvfile_add(kf, "tokens", or_empty(r->tokens));
	kvfile_add(kf, "kernel", or_empty(r->kernel));
	kvfile_add(kf, "nodes", or_empty(r->nodes));
	kvfile_add(kf, "constraint", or_empty(r->constraint));
	kvfile_add(kf, "db", or_empty(r->db));
	kvfile_add(kf, "batches_dir", or_empty(r->batches_dir));
	kvfile_add(kf, "site", or_empty(r->site));
	kvfile_add(kf, "sbatch", or_empty(r->sbatch));
}

int lab_site_dir_check(const char *dir, const char **why)
{
	if (!dir || dir[0] != '/') {
		*why = "an absolute directory (the job runs elsewhere)";
		return -EINVAL;
	}
	/* the site command writes and removes pages under it */
	if (!dir[strspn(dir, "/")]) {
		*why = "a directory of its own, not the root";
		return -EINVAL;
	}
	return 0;
}

const char *lab_job_db(char *const *run_args)
{
	const char *db = NULL;

	for (size_t i = 0; run_args[i]; i++)
		if (str_startswith(run_args[i], "--db="))
			db = run_args[i] + 5;
	return db && *db ? db : NULL;
}

char *lab_job_site_path(const char *lab_dir, const char *job_id)
{
	return xasprintf("%s/jobs/%s.site", lab_dir, job_id);
}

/* A new string of the n bytes at s, blanks at its end taken off. */
static char *trimmed(const char *s, size_t n)
{
	while (n && strchr(" \t\r", s[n - 1]))
		n--;
	return xstrndup(s, n);
}

char *lab_site_error(const char *stderr_text)
{
	static const char prog[] = "hitchbench: ";
	const size_t pl = sizeof(prog) - 1;
	const char *error = NULL, *message = NULL, *any = NULL, *s = stderr_text ? stderr_text : "";
	size_t error_len = 0, message_len = 0, any_len = 0;

	while (*s) {
		size_t len = strcspn(s, "\n"), lead = strspn(s, " \t\r");

		if (lead < len) {
			any = s + lead;
			any_len = len - lead;
		}
		if (len > pl && !strncmp(s, prog, pl)) {
			message = s + pl;
			message_len = len - pl;
			if (strncmp(message, "warning: ", 9) != 0 && strncmp(message, "note: ", 6) != 0) {
				error = message;
				error_len = message_len;
			}
		}
		s += len + (s[len] == '\n');
	}
	if (error)
		return trimmed(error, error_len);
	if (message)
		return trimmed(message, message_len);
	return any ? trimmed(any, any_len) : NULL;
}

void lab_site_refresh_fill(struct kvfile *kf, const struct lab_site_refresh *r)
{
	kvfile_addf(kf, "format", "%d", LAB_SITE_REFRESH_FORMAT);
	kvfile_add(kf, "job_id", or_empty(r->job_id));
	kvfile_add(kf, "site", or_empty(r->site));
	kvfile_add(kf, "db", or_empty(r->db));
	kvfile_add(kf, "finished_utc", or_empty(r->finished_utc));
	kvfile_add(kf, "status", r->exit_code == 0 ? "refreshed" : "failed");
	kvfile_addf(kf, "exit", "%d", r->exit_code);
	kvfile_add(kf, "summary", or_empty(r->summary));
	kvfile_add(kf, "error", or_empty(r->error));
}

int lab_site_refresh_words(const struct kvfile *kf, struct strbuf *out)
{
	const char *format = kvfile_get(kf, "format"), *site = kvfile_get(kf, "site");
	const char *status = kvfile_get(kf, "status"), *exit_code = kvfile_get(kf, "exit");
	const char *error = kvfile_get(kf, "error");
	int n;

	if (!format || safe_atoi(format, &n) < 0 || n != LAB_SITE_REFRESH_FORMAT || !site || !*site || !status)
		return -EINVAL;
	if (!strcmp(status, "refreshed")) {
		strbuf_addf(out, "site %s refreshed", site);
		return 0;
	}
	if (strcmp(status, "failed") != 0)
		return -EINVAL;
	strbuf_addf(out, "site %s refresh failed", site);
	if (exit_code && strcmp(exit_code, "-1") != 0)
		strbuf_addf(out, " (exit %s%s%s)", exit_code, error && *error ? ": " : "", or_empty(error));
	else if (error && *error)
		strbuf_addf(out, " (%s)", error);
	return 0;
}

int lab_job_find_batch(const char *batches_dir, char **dir)
{
	DIR *d = opendir(batches_dir);
	struct dirent *de;
	char *found = NULL;
	int r = 0;

	if (!d)
		return errno == ENOENT ? -ENOENT : -errno;
	while ((de = readdir(d))) {
		char *info;

		if (de->d_name[0] == '.')
			continue;
		info = xasprintf("%s/%s/batch.txt", batches_dir, de->d_name);
		if (access(info, F_OK) == 0) {
			if (found) {
				free(info);
				r = -EEXIST;
				break;
			}
			found = xasprintf("%s/%s", batches_dir, de->d_name);
		}
		free(info);
	}
	closedir(d);
	if (r == 0 && !found)
		r = -ENOENT;
	if (r < 0) {
		free(found);
		return r;
	}
	*dir = found;
	return 0;
}

void lab_resume_options(char *const *run_options, struct argv_list *out)
{
	static const char *const keep[] = { "--db=", "--no-db", "--display=", "--profile=", "--no-quieting",
					    "--quiet", "--verbose" };

	for (size_t i = 0; run_options[i]; i++)
		for (size_t k = 0; k < ARRAY_SIZE(keep); k++) {
			size_t kl = strlen(keep[k]);
			bool value = keep[k][kl - 1] == '=';

			if (value ? strncmp(run_options[i], keep[k], kl) == 0 : strcmp(run_options[i], keep[k]) == 0) {
				argv_push(out, run_options[i]);
				break;
			}
		}
}

char *lab_job_name(const char *game)
{
	const char *base = strrchr(game, '/');
	size_t len;

	base = base ? base + 1 : game;
	len = strlen(base);
	if (len > 4 && strcmp(base + len - 4, ".ini") == 0)
		len -= 4;
	return xasprintf("hb:%.*s", (int)len, base);
}

char *lab_job_script(const char *hb)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb,
		"#!/bin/sh\n"
		"# hitchbench lab job script (format 1), written by 'hitchbench lab submit'\n"
		"# (docs/lab.md). Slurm runs it on the job's node, as a fresh job and again\n"
		"# after a requeue; 'lab job' checks the kernel, then starts the job's batch\n"
		"# or resumes the one its first start made (results/lab/jobs/$SLURM_JOB_ID/),\n"
		"# and with --site refreshes the lab's site from the database at the end.\n"
		"exec '");
	for (const char *p = hb; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(&sb, "'\\''");
		else
			strbuf_addch(&sb, *p);
	}
	strbuf_addstr(&sb, "' lab job \"$@\"\n");
	return strbuf_detach(&sb);
}

/* ---- the matrix file ---- */

struct matrix_parse {
	struct lab_matrix *m;
	int default_rounds;
	bool in_matrix;
	int *game_line;      /* each batch's section line, for "has no variants" */
};

void lab_matrix_release(struct lab_matrix *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].game);
		free(m->v[i].variants);
		free(m->v[i].tokens);
	}
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

bool lab_matrix_is(const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		p += strspn(p, " \t");
		if (*p == '[')
			return strncmp(p, "[matrix]", 8) == 0 || strncmp(p, "[game ", 6) == 0;
	}
	return false;
}

static int matrix_section(struct ini *ini, void *user, const char *name)
{
	struct matrix_parse *mp = user;
	struct lab_matrix *m = mp->m;
	const char *game;

	mp->in_matrix = strcmp(name, "matrix") == 0;
	if (mp->in_matrix)
		return 0;
	if (strncmp(name, "game ", 5) != 0)
		return ini_fail(ini, "unknown section [%s] (want [matrix] or [game NAME])", name);
	game = name + 5;
	game += strspn(game, " ");
	if (!*game || strpbrk(game, " \t"))
		return ini_fail(ini, "[game NAME] wants one recipe name or path, not '%s'", game);
	m->v = xrealloc(m->v, sizeof(*m->v) * (m->n + 1));
	mp->game_line = xrealloc(mp->game_line, sizeof(int) * (m->n + 1));
	m->v[m->n] = (struct lab_matrix_batch){ xstrdup(game), NULL, NULL, 0 };
	mp->game_line[m->n++] = ini_line(ini);
	return 0;
}

static int matrix_key(struct ini *ini, void *user, const char *section, const char *key, const char *value)
{
	struct matrix_parse *mp = user;
	struct lab_matrix_batch *b = mp->in_matrix || !mp->m->n ? NULL : &mp->m->v[mp->m->n - 1];
	int rounds;

	if (!section)
		return ini_fail(ini, "key before the first section");
	if (!strcmp(key, "rounds")) {
		if (safe_atoi(value, &rounds) < 0 || rounds < 1)
			return ini_fail(ini, "rounds wants a whole number > 0, not \"%s\"", value);
		if (b)
			b->rounds = rounds;
		else
			mp->default_rounds = rounds;
		return 0;
	}
	if (b && (!strcmp(key, "variants") || !strcmp(key, "tokens"))) {
		char **f = !strcmp(key, "variants") ? &b->variants : &b->tokens;

		free(*f);
		*f = xstrdup(value);
		return 0;
	}
	return ini_fail(ini, "unknown key \"%s\" in [%s]", key, section);
}

static int matrix_end(struct ini *ini, void *user)
{
	struct matrix_parse *mp = user;

	if (!mp->m->n)
		return ini_fail_at(ini, 0, "no [game NAME] section");
	for (size_t i = 0; i < mp->m->n; i++) {
		struct lab_matrix_batch *b = &mp->m->v[i];

		if (!b->variants || !*b->variants)
			return ini_fail_at(ini, mp->game_line[i], "game %s has no variants", b->game);
		if (!b->tokens || !*b->tokens) {
			free(b->tokens);
			b->tokens = xstrdup("-");
		}
		if (!b->rounds)
			b->rounds = mp->default_rounds;
	}
	return 0;
}

static const struct ini_format matrix_format = {
	.what = "matrix file",
	.expected = "expected 'key = value' or '[section]'",
	.section = matrix_section,
	.key = matrix_key,
	.end = matrix_end,
};

int lab_matrix_parse(struct lab_matrix *m, const char *text, const char *path, struct strbuf *err)
{
	struct lab_matrix out = { NULL, 0 };
	struct matrix_parse mp = { &out, 5, false, NULL };   /* bench-matrix.sh's default rounds */
	int r = ini_parse_text(&matrix_format, text, strlen(text), path, &mp, err);

	free(mp.game_line);
	if (r < 0) {
		lab_matrix_release(&out);
		return r;
	}
	*m = out;
	return 0;
}
