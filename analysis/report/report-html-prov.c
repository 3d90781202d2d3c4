/*
 * The HTML report's provenance, noise and left-out runs (report-html.h):
 * what bench.txt records of each run (the keys every run shares once, each
 * run's own apart), the host's noise over each window (bench.txt noise.*,
 * the report's noise metrics), and the runs not counted with why
 * (report_row_excluded(): failed, invalid with the check it failed,
 * marked disturbed by an observer or the interfered list).
 */
#include "report/report-html-internal.h"
#include "text/kvfile.h"

#include <stdlib.h>
#include <string.h>

/* A run's provenance by key, each key's first value (kvfile_get()'s):
 * whether a key is shared asks every run of a game, for every key of every
 * run, so a lookup is a binary search, not a walk (a batch of 100 runs of
 * 48 keys each asked 23 million string comparisons of the walk). */
struct first_kv {
	const char *key, *value;
	size_t seq;
};

struct prov_index {
	struct first_kv *kv;
	size_t n;
};

static int first_kv_cmp(const void *a, const void *b)
{
	const struct first_kv *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static struct prov_index *prov_index_make(const struct html_page *p)
{
	struct prov_index *idx = zalloc(sizeof(*idx) * (p->n + 1));

	for (size_t i = 0; i < p->n; i++) {
		const struct kvfile *kv = p->rows[i].provenance;
		size_t n = 0;

		if (!kv || !kv->n)
			continue;
		idx[i].kv = zalloc(sizeof(*idx[i].kv) * kv->n);
		for (size_t k = 0; k < kv->n; k++)
			idx[i].kv[k] = (struct first_kv){ kv->items[k].key, kv->items[k].value, k };
		qsort(idx[i].kv, kv->n, sizeof(*idx[i].kv), first_kv_cmp);
		for (size_t k = 0; k < kv->n; k++)
			if (n == 0 || strcmp(idx[i].kv[k].key, idx[i].kv[n - 1].key) != 0)
				idx[i].kv[n++] = idx[i].kv[k];
		idx[i].n = n;
	}
	return idx;
}

static void prov_index_free(struct prov_index *idx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(idx[i].kv);
	free(idx);
}

/* kvfile_get() of row i's provenance, through its index. */
static const char *prov_get(const struct prov_index *idx, size_t i, const char *key)
{
	size_t lo = 0, hi = idx[i].n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(idx[i].kv[mid].key, key);

		if (c == 0)
			return idx[i].kv[mid].value;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool same_game(const struct report_row *a, const struct report_row *b)
{
	return a->game && b->game ? !strcmp(a->game, b->game) : a->game == b->game;
}

/* Whether key has one value in every row of row's game with provenance. */
static bool key_shared(const struct html_page *p, const struct prov_index *idx, const struct report_row *row,
		       const char *key, const char *value)
{
	for (size_t i = 0; i < p->n; i++) {
		const char *v;

		if (!p->rows[i].provenance || !same_game(&p->rows[i], row))
			continue;
		v = prov_get(idx, i, key);
		if (!v || strcmp(v, value))
			return false;
	}
	return true;
}

static void kv_row(FILE *out, const char *key, const char *value)
{
	fputs("<tr><td class=\"mono\">", out);
	html_escape(out, key);
	fputs("</td><td class=\"mono\">", out);
	html_escape(out, value);
	fputs("</td></tr>\n", out);
}

/* The keys every run of first's game shares. */
static void html_shared_keys(struct html_page *p, const struct prov_index *idx, const struct report_row *first)
{
	const struct kvfile *kv = first->provenance;

	fputs("<h3>", p->out);
	html_escapef(p->out, "Shared by every run of %s", first->game ? first->game : "-");
	fputs("</h3>\n<div class=\"wide\"><table>\n<tr><th>bench.txt key</th><th>value</th></tr>\n",
	      p->out);
	for (size_t k = 0; k < kv->n; k++) {
		const char *key = kv->items[k].key;

		/* a repeated key is shown once, with its first value */
		if (kvfile_get(kv, key) != kv->items[k].value ||
		    !key_shared(p, idx, first, key, kv->items[k].value))
			continue;
		kv_row(p->out, key, kv->items[k].value);
	}
	fputs("</table></div>\n", p->out);
}

/* Each run's keys that differ from its game's other runs', folded. */
static void html_own_keys(struct html_page *p, const struct prov_index *idx)
{
	fputs("<h3>Each run's own</h3>\n", p->out);
	for (size_t i = 0; i < p->n; i++) {
		const struct report_row *r = &p->rows[i];
		const struct kvfile *kv = r->provenance;
		bool *own;
		size_t n_own = 0;

		if (!kv)
			continue;
		own = zalloc(sizeof(*own) * (kv->n + 1));
		for (size_t k = 0; k < kv->n; k++)
			n_own += own[k] = !key_shared(p, idx, r, kv->items[k].key, kv->items[k].value);
		fputs("<details><summary>", p->out);
		html_escapef(p->out, "%s: %zu keys of its own", r->run ? r->run : "-", n_own);
		fputs("</summary>\n<div class=\"wide\"><table>\n", p->out);
		for (size_t k = 0; k < kv->n; k++)
			if (own[k])
				kv_row(p->out, kv->items[k].key, kv->items[k].value);
		fputs("</table></div></details>\n", p->out);
		free(own);
	}
}

static const enum metric_id noise_metrics[] = {
	M_STEAL_PCT, M_FOREIGN_CPU_PCT, M_IRQ_PCT, M_GAME_RUNQ_MS_PER_S, M_CPU_MS_PER_FRAME,
};
#define N_NOISE (sizeof(noise_metrics) / sizeof(noise_metrics[0]))

static void html_noise(struct html_page *p)
{
	bool any = false;

	fputs("<h3>The host's noise over each window</h3>\n", p->out);
	for (size_t i = 0; i < p->n; i++)
		for (size_t k = 0; k < N_NOISE; k++)
			any |= p->rows[i].m.have[noise_metrics[k]];
	if (!any) {
		fputs("<p class=\"note\">No run recorded the host's noise (bench.txt noise.*: runs "
		      "imported, or made before hitchbench recorded it).</p>\n", p->out);
		return;
	}
	fputs("<div class=\"wide\"><table>\n<tr><th>run</th>", p->out);
	for (size_t k = 0; k < N_NOISE; k++)
		fprintf(p->out, "<th>%s</th>", metric_defs[noise_metrics[k]].name);
	fputs("<th>steal source (noise.steal)</th></tr>\n", p->out);
	for (size_t i = 0; i < p->n; i++) {
		const struct report_row *r = &p->rows[i];
		const char *how = r->provenance ? kvfile_get(r->provenance, "noise.steal") : NULL;

		fputs("<tr><td>", p->out);
		html_escape(p->out, r->run);
		fputs("</td>", p->out);
		for (size_t k = 0; k < N_NOISE; k++) {
			fputs("<td class=\"num\">", p->out);
			html_metric(p->out, &r->m, noise_metrics[k]);
			fputs("</td>", p->out);
		}
		fputs("<td>", p->out);
		html_escape(p->out, how);
		fputs("</td></tr>\n", p->out);
	}
	fputs("</table></div>\n<ul class=\"notes\">\n", p->out);
	for (size_t k = 0; k < N_NOISE; k++) {
		fprintf(p->out, "<li>%s = ", metric_defs[noise_metrics[k]].name);
		html_escape(p->out, metric_defs[noise_metrics[k]].definition);
		fputs("</li>\n", p->out);
	}
	fputs("</ul>\n", p->out);
}

void html_provenance(struct html_page *p)
{
	struct prov_index *idx = prov_index_make(p);
	bool any = false;

	html_section(p, "provenance", "Provenance and noise");
	fputs("<p>What each run's bench.txt records (docs/formats.md): the machine, the kernel, the "
	      "software, the command, the window.</p>\n", p->out);
	/* each game's shared keys, at its first run with them */
	for (size_t i = 0; i < p->n; i++) {
		size_t j;

		for (j = 0; j < i; j++)
			if (p->rows[j].provenance && same_game(&p->rows[j], &p->rows[i]))
				break;
		if (p->rows[i].provenance && j == i)
			html_shared_keys(p, idx, &p->rows[i]);
		any |= p->rows[i].provenance != NULL;
	}
	if (any)
		html_own_keys(p, idx);
	else
		html_note(p, "No run's bench.txt is at hand.");
	prov_index_free(idx, p->n);
	html_noise(p);
	fputs("</section>\n", p->out);
}

/* What kind of exclusion a row's why is, in words. */
static const char *excluded_kind(const struct report_row *r, const char *why)
{
	if (why == r->invalid)
		return "invalid: its data failed a check";
	if (why == r->disturbed)
		return "disturbed: marked by an observer or the interfered list";
	return "failed";
}

void html_excluded(struct html_page *p)
{
	bool inc = p->ro->include_interfered;
	size_t n_out = 0, n_inc = 0;

	html_section(p, "excluded", "Interference and invalid runs");
	for (size_t i = 0; i < p->n; i++) {
		const struct report_row *r = &p->rows[i];
		const char *why = report_row_excluded(r, inc);

		if (!why && !(inc && r->disturbed))
			continue;
		if (n_out + n_inc == 0)
			fputs("<div class=\"wide\"><table>\n<tr><th>run</th><th>game</th><th>run name</th>"
			      "<th>status</th><th>counted</th><th>why</th></tr>\n", p->out);
		n_out += why != NULL;
		n_inc += why == NULL;
		fprintf(p->out, "<tr><td><a href=\"#run-%zu\">", i);
		html_escape(p->out, r->run);
		fputs("</a></td><td>", p->out);
		html_escape(p->out, r->game);
		fputs("</td><td>", p->out);
		html_escape(p->out, r->run_name);
		fputs("</td><td>", p->out);
		html_escape(p->out, r->status);
		fprintf(p->out, "</td><td>%s</td><td>", why ? "no" : "yes (--include-interfered)");
		if (why)
			html_escapef(p->out, "%s: %s", excluded_kind(r, why), why);
		else
			html_escapef(p->out, "disturbed, counted anyway: %s", r->disturbed);
		fputs("</td></tr>\n", p->out);
	}
	if (n_out + n_inc)
		fputs("</table></div>\n", p->out);
	else
		fputs("<p>Every run is counted: none failed, none is invalid, none was marked "
		      "disturbed.</p>\n", p->out);
	fputs("<p class=\"note\">A run is left out when it failed, when its data fails a check "
	      "(docs/formats.md \"Run integrity\"), or when an observer marked it (bench.txt "
	      "invalid=1 or interfered=1: docs/interference.md) or results/interfered.txt lists it; "
	      "it is kept and shown, never counted.</p>\n</section>\n", p->out);
}
