/*
 * A batch's runs sent on to the lab's database as they are made (hitchbench
 * run --db postgresql://...): each run is stored in this machine's own
 * database first, then everything that database has not sent yet is pushed
 * (resultsdb_push). The lab's database being down, or going down, costs no
 * run: it is said once, the runs wait in the local database, and the next
 * run, the batch's end or 'hitchbench db push --to URL' sends them.
 *
 * Nothing here runs during a measured window: the runner calls it between
 * runs.
 */
#ifndef HB_LABSYNC_H
#define HB_LABSYNC_H

#include <stdbool.h>
#include <stddef.h>

struct resultsdb;

struct lab_sync {
	char *url;                 /* as given (it may hold a password) */
	char *name;                /* the URL without a password, for messages */
	struct resultsdb *lab;     /* open while it answers; NULL after a failure */
	bool said;                 /* the failure was said */
	size_t unsent;             /* runs the last try left unsent */
};

void lab_sync_init(struct lab_sync *ls, const char *url);
/* Pushes what local has not sent. 0 when all was sent; else -errno, the
 * runs kept in local, and the first failure of a batch says why in err
 * (lines for the command to print; later ones leave err as it was). */
struct strbuf;
int lab_sync_push(struct lab_sync *ls, struct resultsdb *local, struct strbuf *err);
/* The connection closed (it must not cross a fork); the next push opens
 * it again. */
void lab_sync_close(struct lab_sync *ls);
void lab_sync_release(struct lab_sync *ls);

#endif
