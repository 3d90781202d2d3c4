/*
 * The machines file of `hitchbench lab init` (docs/lab.md, "The machines
 * file"): the lab's controller and nodes, one a line, read strictly so a
 * typo is refused with its line before a slurm.conf is written from it.
 *
 *   hitchbench-machines 1
 *   controller NAME ADDRESS
 *   node NAME ADDRESS FEATURES CPUS MEMORY_MB
 */
#include "lab/lab.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 8

void lab_machines_init(struct lab_machines *m)
{
	memset(m, 0, sizeof(*m));
}

static void machine_release(struct lab_machine *x)
{
	free(x->name);
	free(x->address);
	free(x->features);
}

void lab_machines_release(struct lab_machines *m)
{
	machine_release(&m->controller);
	for (size_t i = 0; i < m->n_nodes; i++)
		machine_release(&m->nodes[i]);
	free(m->nodes);
	lab_machines_init(m);
}

/* Slurm splits node lists at ',' and expands "[1-3]": a name of letters,
 * digits, '-', '_' and '.', starting with a letter or a digit. */
static bool name_ok(const char *s)
{
	if (!isalnum((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("-_.", *s))
			return false;
	return true;
}

static bool address_ok(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("-_.:", *s))
			return false;
	return true;
}

/* "ps3,ppc64": features of letters, digits, '_', '.', '+', '-', by commas */
static bool features_ok(const char *s)
{
	bool empty = true;

	for (; *s; s++) {
		if (*s == ',') {
			if (empty)
				return false;
			empty = true;
		} else if (isalnum((unsigned char)*s) || strchr("_.+-", *s)) {
			empty = false;
		} else {
			return false;
		}
	}
	return !empty;
}

struct parse {
	struct lab_machines *m;
	const char *path;
	int line;
	bool have_format, have_controller;
	struct strbuf *err;
};

static int bad(struct parse *p, const char *fmt, const char *arg)
{
	strbuf_addf(p->err, "%s:%d: ", p->path, p->line);
	strbuf_addf(p->err, fmt, arg);
	return -EINVAL;
}

static int node_line(struct parse *p, char **f, int n)
{
	struct lab_machine x = { 0 };
	int cpus;
	int64_t mem;

	if (n != 6)
		return bad(p, "a node line is 'node NAME ADDRESS FEATURES CPUS MEMORY_MB'%s",
			   n < 6 ? " (fields missing)" : " (too many fields)");
	if (!name_ok(f[1]))
		return bad(p, "node name '%s' is not a name Slurm takes (letters, digits, '-', '_', '.')", f[1]);
	for (size_t i = 0; i < p->m->n_nodes; i++)
		if (strcmp(p->m->nodes[i].name, f[1]) == 0)
			return bad(p, "node '%s' is named twice", f[1]);
	if (!address_ok(f[2]))
		return bad(p, "address '%s' is not a host name or an IP address", f[2]);
	if (strcmp(f[3], "-") != 0 && !features_ok(f[3]))
		return bad(p, "features '%s' are not a comma list of names (or '-' for none)", f[3]);
	if (safe_atoi(f[4], &cpus) < 0 || cpus < 1 || cpus > 65536)
		return bad(p, "CPUs wants a count from 1 to 65536, not '%s'", f[4]);
	if (safe_atoi64(f[5], &mem) < 0 || mem < 1 || mem > ((int64_t)1 << 40))
		return bad(p, "MEMORY_MB wants megabytes over 0, not '%s'", f[5]);
	x.name = xstrdup(f[1]);
	x.address = xstrdup(f[2]);
	x.features = strcmp(f[3], "-") ? xstrdup(f[3]) : NULL;
	x.cpus = cpus;
	x.memory_mb = (long)mem;
	p->m->nodes = xrealloc(p->m->nodes, sizeof(*p->m->nodes) * (p->m->n_nodes + 1));
	p->m->nodes[p->m->n_nodes++] = x;
	return 0;
}

static int one_line(struct parse *p, char **f, int n)
{
	int format;

	if (!p->have_format) {
		if (n != 2 || strcmp(f[0], "hitchbench-machines") != 0)
			return bad(p, "the first line must be 'hitchbench-machines %s'", "1");
		if (safe_atoi(f[1], &format) < 0 || format != LAB_MACHINES_FORMAT)
			return bad(p, "machines format '%s' is not one this hitchbench reads (1)", f[1]);
		p->have_format = true;
		return 0;
	}
	if (strcmp(f[0], "controller") == 0) {
		if (p->have_controller)
			return bad(p, "a second controller line (one controller: '%s')", p->m->controller.name);
		if (n != 3)
			return bad(p, "a controller line is 'controller NAME ADDRESS'%s", "");
		if (!name_ok(f[1]))
			return bad(p, "controller name '%s' is not a host name", f[1]);
		if (!address_ok(f[2]))
			return bad(p, "address '%s' is not a host name or an IP address", f[2]);
		p->m->controller.name = xstrdup(f[1]);
		p->m->controller.address = xstrdup(f[2]);
		p->have_controller = true;
		return 0;
	}
	if (strcmp(f[0], "node") == 0)
		return node_line(p, f, n);
	return bad(p, "'%s' is not a line of a machines file (controller or node)", f[0]);
}

/* Splits a line in place at blanks, up to MAX_FIELDS (+1 to see too many). */
static int split_fields(char *line, char **f)
{
	int n = 0;
	char *save = NULL;

	for (char *w = strtok_r(line, " \t", &save); w && n <= MAX_FIELDS; w = strtok_r(NULL, " \t", &save))
		f[n++] = w;
	return n;
}

int lab_machines_parse(struct lab_machines *m, const char *text, const char *path, struct strbuf *err)
{
	struct lab_machines out;
	struct parse p = { &out, path, 0, false, false, err };
	char *copy = xstrdup(text), *f[MAX_FIELDS + 1];
	const char *s = copy;
	int r = 0;

	lab_machines_init(&out);
	while (r == 0 && *s) {
		size_t len = strcspn(s, "\n");
		char *line = (char *)s, *hash;
		int n;

		s += len + (s[len] == '\n');
		line[len] = '\0';
		p.line++;
		if (len && line[len - 1] == '\r')
			line[len - 1] = '\0';
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		n = split_fields(line, f);
		if (n > 0)
			r = one_line(&p, f, n);
	}
	if (r == 0 && (!p.have_format || !p.have_controller || out.n_nodes == 0)) {
		/* the whole file is at fault, no line of it */
		strbuf_addf(err, "%s: %s", path, !p.have_format ? "empty: the first line must be 'hitchbench-machines 1'" :
			    !p.have_controller ? "no controller line ('controller NAME ADDRESS')" :
			    "no node line ('node NAME ADDRESS FEATURES CPUS MEMORY_MB')");
		r = -EINVAL;
	}
	free(copy);
	if (r < 0) {
		lab_machines_release(&out);
		return r;
	}
	*m = out;
	return 0;
}
