/*
 * Slurm's outputs read back for `hitchbench lab status`, `cancel` and
 * `results`: squeue and sacct in the formats lab asks them for, the job
 * completion log of jobcomp/filetxt (the small lab's accounting), and
 * `scontrol show config`. Parsers take text so the unit tests feed them
 * what a real Slurm printed (tests/fixtures/lab/).
 */
#include "lab/lab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void lab_slurm_jobs_init(struct lab_slurm_jobs *l)
{
	l->v = NULL;
	l->n = 0;
}

static void job_release(struct lab_slurm_job *j)
{
	free(j->id);
	free(j->state);
	free(j->nodes);
	free(j->reason);
	free(j->name);
	free(j->exit_code);
}

void lab_slurm_jobs_release(struct lab_slurm_jobs *l)
{
	for (size_t i = 0; i < l->n; i++)
		job_release(&l->v[i]);
	free(l->v);
	lab_slurm_jobs_init(l);
}

struct lab_slurm_job *lab_slurm_jobs_find(struct lab_slurm_jobs *l, const char *id)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].id, id) == 0)
			return &l->v[i];
	return NULL;
}

/* The job of that id, added empty when new. */
static struct lab_slurm_job *job_get(struct lab_slurm_jobs *l, const char *id)
{
	struct lab_slurm_job *j = lab_slurm_jobs_find(l, id);

	if (j)
		return j;
	l->v = xrealloc(l->v, sizeof(*l->v) * (l->n + 1));
	j = &l->v[l->n++];
	memset(j, 0, sizeof(*j));
	j->id = xstrdup(id);
	return j;
}

static void replace(char **field, const char *value)
{
	free(*field);
	*field = value && *value ? xstrdup(value) : NULL;
}

static bool job_id_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Lines of five '|'-separated fields, the id first: the reason column
 * is squeue's reason or sacct's exit code. */
static int parse_pipes(struct lab_slurm_jobs *l, const char *text, int *bad_line, bool sacct)
{
	const char *s = text;
	int line = 0;

	while (*s) {
		size_t len = strcspn(s, "\n");
		char *one = xstrndup(s, len), *f[5], *p = one;
		int n = 0;

		s += len + (s[len] == '\n');
		line++;
		if (!*one) {
			free(one);
			continue;
		}
		for (f[n++] = p; n < 5 && (p = strchr(p, '|')); ) {
			*p++ = '\0';
			f[n++] = p;
		}
		if (n != 5 || strchr(f[4], '|') || !job_id_ok(f[0])) {
			free(one);
			*bad_line = line;
			return -EINVAL;
		}
		{
			struct lab_slurm_job *j = job_get(l, f[0]);

			replace(&j->state, f[1]);
			replace(&j->nodes, strcmp(f[2], "None assigned") ? f[2] : NULL);
			replace(sacct ? &j->exit_code : &j->reason, f[3]);
			replace(&j->name, f[4]);
		}
		free(one);
	}
	return 0;
}

int lab_squeue_parse(struct lab_slurm_jobs *l, const char *text, int *bad_line)
{
	return parse_pipes(l, text, bad_line, false);
}

int lab_sacct_parse(struct lab_slurm_jobs *l, const char *text, int *bad_line)
{
	/* sacct -X cuts steps, but a cancelled state reads "CANCELLED by 0" */
	int r = parse_pipes(l, text, bad_line, true);

	for (size_t i = 0; r == 0 && i < l->n; i++) {
		char *sp = l->v[i].state ? strchr(l->v[i].state, ' ') : NULL;

		if (sp)
			*sp = '\0';
	}
	return r;
}

/* The value of " KEY=" in a completion-log line, up to the next blank. */
static char *field(const char *line, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = line; (p = strstr(p, key)); p += kl) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=')
			return xstrndup(p + kl + 1, strcspn(p + kl + 1, " "));
	}
	return NULL;
}

int lab_jobcomp_parse(struct lab_slurm_jobs *l, const char *text, int *bad_line)
{
	const char *s = text;
	int line = 0;

	while (*s) {
		size_t len = strcspn(s, "\n");
		char *one = xstrndup(s, len), *id, *state;

		s += len + (s[len] == '\n');
		line++;
		if (!*one) {
			free(one);
			continue;
		}
		id = field(one, "JobId");
		state = field(one, "JobState");
		if (!id || !state || !job_id_ok(id)) {
			free(one);
			free(id);
			free(state);
			*bad_line = line;
			return -EINVAL;
		}
		{
			struct lab_slurm_job *j = job_get(l, id);

			/* an earlier record of a requeued job says how it ended then */
			if (j->state && (!strcmp(j->state, "NODE_FAIL") || !strcmp(j->state, "REQUEUED") ||
					 !strcmp(j->state, "PREEMPTED")))
				j->requeues++;
			free(j->state);
			j->state = state;
			free(j->nodes);
			j->nodes = field(one, "NodeList");
			if (j->nodes && (!*j->nodes || !strcmp(j->nodes, "(null)"))) {   /* never ran */
				free(j->nodes);
				j->nodes = NULL;
			}
			free(j->name);
			j->name = field(one, "Name");
			free(j->exit_code);
			j->exit_code = field(one, "ExitCode");
		}
		free(id);
		free(one);
	}
	return 0;
}

char *lab_slurm_config_value(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *q = p + kl;

		if (strncmp(p, key, kl) != 0 || (*q != ' ' && *q != '='))
			continue;
		q += strspn(q, " ");
		if (*q++ != '=')
			continue;
		q += strspn(q, " ");
		return xstrndup(q, strcspn(q, "\n"));
	}
	return NULL;
}

static const struct {
	const char *reason, *words;
} pending_words[] = {
	{ "BeginTime", "waiting to start again (Slurm holds a requeued job for a while)" },
	{ "Resources", "waiting for a node" },
	{ "Priority", "waiting for its turn" },
	{ "ReqNodeNotAvail", "waiting: the node it wants is not available" },
	{ "NodeDown", "waiting: its node is down" },
	{ "JobHeldUser", "held (scontrol release lets it run)" },
	{ "JobHeldAdmin", "held by the administrator" },
	{ "BadConstraints", "waiting: no node has the features it wants" },
};

static const struct {
	const char *state, *words;
	bool finished;
} state_words[] = {
	{ "RUNNING", "running", false },
	{ "CONFIGURING", "starting (its node is booting)", false },
	{ "COMPLETING", "ending", false },
	{ "REQUEUED", "requeued", false },
	{ "REQUEUE_HOLD", "requeued and held", false },
	{ "REQUEUE_FED", "requeued", false },
	{ "RESIZING", "running", false },
	{ "SUSPENDED", "suspended", false },
	{ "STOPPED", "stopped", false },
	{ "SIGNALING", "being signalled", false },
	{ "STAGE_OUT", "ending", false },
	{ "COMPLETED", "finished", true },
	{ "FAILED", "failed", true },
	{ "CANCELLED", "cancelled", true },
	{ "NODE_FAIL", "its node failed", true },
	{ "TIMEOUT", "out of time", true },
	{ "BOOT_FAIL", "its node did not boot", true },
	{ "OUT_OF_MEMORY", "out of memory", true },
	{ "DEADLINE", "past its deadline", true },
	{ "PREEMPTED", "preempted", true },
	{ "SPECIAL_EXIT", "failed (special exit)", true },
	{ "REVOKED", "revoked", true },
};

const char *lab_state_words(const struct lab_slurm_job *j, bool *finished)
{
	*finished = false;
	if (!j->state)
		return "unknown to Slurm";
	if (!strcmp(j->state, "PENDING")) {
		if (j->requeues > 0)
			return "requeued after its node failed, waiting to start again";
		for (size_t i = 0; j->reason && i < ARRAY_SIZE(pending_words); i++)
			if (!strcmp(j->reason, pending_words[i].reason))
				return pending_words[i].words;
		return "waiting";
	}
	for (size_t i = 0; i < ARRAY_SIZE(state_words); i++)
		if (!strcmp(j->state, state_words[i].state)) {
			*finished = state_words[i].finished;
			return state_words[i].words;
		}
	return j->state;
}
