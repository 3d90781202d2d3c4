/*
 * The site's batch pages: a batch's runs as `hitchbench report --format
 * html` shows them (report-html.h, with the numbers as the database holds
 * them), and for a batch of `hitchbench ab` its verdict page. The most
 * costly pages of a build (the report draws its pictures with gnuplot), so
 * each is skipped, before anything is read for it, when the fingerprint of
 * its batch row and its runs' rows is the one its page was made from.
 */
#include "site/site-internal.h"
#include "report/report-html.h"
#include "base/hash.h"
#include "text/argv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a batch's pages are made from, hashed. */
static void batch_fingerprint(const struct site_build *b, const struct site_batch *sb, const char *kind,
			      char out[HB_SHA256_HEX_LEN + 1])
{
	const struct resultsdb_site_batch *db = sb->b;
	struct strbuf t = STRBUF_INIT;

	strbuf_addf(&t, "%s\n%s\n", kind, b->o->generator);
	if (db) {
		const char *f[] = { db->uuid, db->path, db->game, db->variants, db->tokens, db->status,
				    db->started_utc, db->ended_utc, db->host, db->machine_id,
				    db->kernel_release, db->harness_command };

		for (size_t i = 0; i < ARRAY_SIZE(f); i++)
			strbuf_addf(&t, "%s\n", f[i] ? f[i] : "\x01");
		strbuf_addf(&t, "%lld\n", (long long)db->rounds);
	}
	for (size_t i = 0; i < sb->n_runs; i++) {
		const struct resultsdb_site_run *r = &b->m.runs[sb->runs[i]];

		strbuf_addf(&t, "%s\n%s\n", r->run_uuid, r->fingerprint);
	}
	sha256_hex(t.buf, t.len, out);
	strbuf_release(&t);
}

/* The page of a batch's runs into *text. */
static int report_page(struct site_build *b, const struct site_batch *sb, int depth, char **text,
		       size_t *len, bool *complete, struct strbuf *err)
{
	struct report_opts ro = { .format = REPORT_HTML, .metric = METRIC_OPTS_DEFAULT,
				  .window_note = "as stored: frames ending in each run's measured window" };
	struct resultsdb_run *runs = NULL;
	struct report_row *rows = NULL;
	struct strbuf problems = STRBUF_INIT;
	char *command, *back = xasprintf("%sindex.html", site_root(depth));
	size_t n = 0, n_problems = 0;
	FILE *f = NULL;
	int r;

	if (sb->b) {
		/* what makes this page again (the site applies no interfered list) */
		char *argv[] = { (char *)"hitchbench", (char *)"report", (char *)"--format", (char *)"html",
				 (char *)"--interfered", (char *)"/dev/null", (char *)"--db",
				 (char *)resultsdb_name(b->db), (char *)"--batch", sb->b->uuid, NULL };

		command = argv_join(argv);
	} else
		command = xasprintf("the runs of no batch on %s with kernel %s, from the results database "
				    "(hitchbench site)", sb->machine, sb->kernel);
	r = resultsdb_list_batch(b->db, sb->b ? sb->b->uuid : NULL, sb->b ? NULL : sb->machine,
				 sb->b ? NULL : sb->kernel, &runs, &n, err);
	if (r < 0)
		goto out;
	rows = zalloc(sizeof(*rows) * (n + 1));
	for (size_t i = 0; i < n; i++)
		resultsdb_run_report_row(&runs[i], &rows[i]);
	f = open_memstream(text, len);
	if (!f) {
		r = -errno;
		strbuf_addf(err, "cannot make a page in memory: %s", strerror(errno));
		goto out;
	}
	{
		struct report_html_opts ho = { .report = &ro, .command = command, .from_db = true,
					       .tmpdir = b->o->tmpdir, .gnuplot = b->o->gnuplot,
					       .back_href = back, .back_text = "hitchbench lab: index" };

		r = report_html_write(f, rows, n, &ho, &problems, &n_problems);
	}
	if (fclose(f) != 0 && r == 0)
		r = -EIO;
	if (r < 0) {
		strbuf_addf(err, "cannot make the report of %s: %s", sb->href_from_root, strerror(-r));
		free(*text);
		*text = NULL;
		goto out;
	}
	*complete = n_problems == 0;
	if (n_problems) {
		b->stats->problems += n_problems;
		strbuf_addf(b->problems, "%s: %s", sb->href_from_root, problems.buf);
		if (problems.len && problems.buf[problems.len - 1] != '\n')
			strbuf_addch(b->problems, '\n');
	}
out:
	resultsdb_runs_free(runs, n);
	free(rows);
	free(command);
	free(back);
	strbuf_release(&problems);
	return r;
}

/* The verdict page of an ab batch into *text. */
static int verdict_page(struct site_build *b, const struct site_batch *sb, char **text, size_t *len,
			struct strbuf *err)
{
	const struct resultsdb_site_batch *db = sb->b;
	char *ab = NULL, *probe = db->path ? xasprintf("%s/ab.txt", db->path) : NULL;
	char *title = xasprintf("A/B verdict: %s", db->uuid);
	const char *root = site_root(1);
	FILE *f = open_memstream(text, len);

	if (!f) {
		strbuf_addf(err, "cannot make a page in memory: %s", strerror(errno));
		free(probe);
		free(title);
		return -errno;
	}
	if (probe && access(probe, F_OK) == 0 && b->o->ab_text)
		ab = b->o->ab_text(db->path, b->o->ab_arg);
	site_html_head(f, title, root, b->o);
	fputs("<table>\n<tr><th>batch</th><td>", f);
	fprintf(f, "<a href=\"%s%s\">", root, sb->href_from_root);
	html_escape(f, db->uuid);
	fputs("</a> (its report)</td></tr>\n<tr><th>game</th><td>", f);
	html_escape(f, db->game);
	fputs("</td></tr>\n<tr><th>cells</th><td>", f);
	html_escape(f, db->variants);
	fputs(" &times; ", f);
	html_escape(f, db->tokens);
	fputs("</td></tr>\n<tr><th>status</th><td>", f);
	html_escape(f, db->status ? db->status : "running");
	fputs("</td></tr>\n<tr><th>command</th><td class=\"mono\">", f);
	html_escape(f, db->harness_command);
	fputs("</td></tr>\n</table>\n<h2>The sequential test</h2>\n", f);
	if (ab) {
		fputs("<p>As <code>hitchbench compare --paired</code> prints it from the batch directory "
		      "(the pairs read again from its runs; docs/metrics.md, \"A paired A/B that stops when it "
		      "knows\"):</p>\n<pre>", f);
		html_escape(f, ab);
		fputs("</pre>\n", f);
	} else {
		fputs("<p class=\"note\">The sequential test is read from the batch directory <code>", f);
		html_escape(f, db->path);
		fputs(db->path && access(db->path, F_OK) == 0 ?
			      "</code>, which has no <code>ab.txt</code> the test reads here" :
			      "</code>, which is not on the machine that built this site",
		      f);
		fputs(": its verdict is not shown. Run <code>hitchbench compare --paired BATCH</code> where the "
		      "batch is. The batch's report (linked above) compares its cells from the database's numbers "
		      "(not paired).</p>\n", f);
	}
	site_html_foot(f, b->o);
	free(ab);
	free(probe);
	free(title);
	if (fclose(f) != 0) {
		strbuf_addf(err, "cannot make a page in memory");
		free(*text);
		*text = NULL;
		return -EIO;
	}
	return 0;
}

int site_write_batches(struct site_build *b, struct strbuf *err)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < b->m.n_batches; i++) {
		const struct site_batch *sb = &b->m.batches[i];
		char fp[HB_SHA256_HEX_LEN + 1];
		char *text = NULL;
		size_t len = 0;

		bool complete = true;

		batch_fingerprint(b, sb, "batch", fp);
		if (!site_page_fresh(b, sb->href_from_root, fp)) {
			r = report_page(b, sb, 1 + (sb->b == NULL), &text, &len, &complete, err);
			/* a page that lacks a part is made again by the next build */
			if (r == 0)
				r = site_put_page_fp(b, sb->href_from_root, complete ? fp : "incomplete", text,
						     len, err);
			free(text);
			text = NULL;
		}
		if (r < 0 || !sb->ab_href_from_root)
			continue;
		batch_fingerprint(b, sb, "ab", fp);
		if (site_page_fresh(b, sb->ab_href_from_root, fp))
			continue;
		r = verdict_page(b, sb, &text, &len, err);
		if (r == 0)
			r = site_put_page_fp(b, sb->ab_href_from_root, fp, text, len, err);
		free(text);
	}
	return r;
}
