/*
 * Sending a batch's runs to the lab's database as they are made (see
 * labsync.h).
 */
#include "db/labsync.h"
#include "db/resultsdb.h"
#include "db/sqldb.h"
#include "base/util.h"

#include <stdlib.h>

void lab_sync_init(struct lab_sync *ls, const char *url)
{
	ls->url = xstrdup(url);
	ls->name = sqldb_public_name(url);
	ls->lab = NULL;
	ls->said = false;
	ls->unsent = 0;
}

int lab_sync_push(struct lab_sync *ls, struct resultsdb *local, struct strbuf *out)
{
	struct resultsdb_push_stats stats = { 0, 0, 0 };
	struct strbuf err = STRBUF_INIT;
	int r = 0;

	if (!ls->lab)
		r = resultsdb_open(ls->url, &ls->lab, &err);
	if (r == 0)
		r = resultsdb_push(local, ls->lab, &stats, &err);
	ls->unsent = stats.pending - stats.sent;
	if (r == 0)
		return 0;
	if (!ls->said) {
		strbuf_addf(out, "the lab's database did not take the runs: %s\n", err.buf);
		strbuf_addf(out, "they are kept in '%s'; the next run, the batch's end or "
			    "'hitchbench db push --db %s --to URL' sends them", resultsdb_name(local),
			    resultsdb_name(local));
		ls->said = true;
	}
	strbuf_release(&err);
	/* a connection that failed may be half-gone: the next try opens anew */
	lab_sync_close(ls);
	return r;
}

void lab_sync_close(struct lab_sync *ls)
{
	resultsdb_close(ls->lab);
	ls->lab = NULL;
}

void lab_sync_release(struct lab_sync *ls)
{
	lab_sync_close(ls);
	free(ls->url);
	free(ls->name);
	ls->url = ls->name = NULL;
}
