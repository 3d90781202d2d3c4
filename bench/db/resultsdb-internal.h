/*
 * What the parts of the results database share; not for commands. The parts:
 *   resultsdb.c        opening, migrating, closing; transactions tried again
 *   resultsdb-import.c writing runs and batches
 *   resultsdb-list.c   reading runs back (the report's and db's listing)
 *   resultsdb-query.c  compare's and regress's queries (resultsdb-query.h)
 *   resultsdb-push.c   sending a local database's runs to the lab's
 * They speak SQL through sqldb.h, never to an engine directly.
 */
#ifndef HB_RESULTSDB_INTERNAL_H
#define HB_RESULTSDB_INTERNAL_H

#include "db/resultsdb.h"
#include "db/sqldb.h"

/* The SQL condition "run r ran on the machine parameter P names" (P NULL:
 * any machine): its host name or its machine id. */
#define RESULTSDB_MACHINE_IS(p) "(" p " IS NULL OR r.host = " p " OR r.machine_id = " p ")"

struct sqldb *resultsdb_sqldb(struct resultsdb *db);

/* One transaction's work: 0, or -errno with a message in err. */
typedef int resultsdb_body(struct resultsdb *db, void *arg, struct strbuf *err);
/* Runs body in a transaction (sqldb_begin: one that writes) and commits
 * it; a failure that passes (-EAGAIN: a serialization failure, deadlock
 * or lock held too long; -ECONNRESET: the connection lost, opened again)
 * rolls back and tries the whole again, a few times over some seconds
 * (resultsdb.c says how often). 0, or the last -errno with the
 * last failed try's message in err. */
int resultsdb_transaction(struct resultsdb *db, resultsdb_body *body, void *arg, struct strbuf *err,
			  const char *what);

#endif
