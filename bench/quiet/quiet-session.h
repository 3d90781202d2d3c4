/*
 * Quieting for a batch: the profile, the thaw journal held for the whole
 * batch (recovering what a killed runner left first), the machine quieted
 * and the thermal guard waited for before each run, everything recorded in
 * the run's bench.txt, and the machine thawed at the end, whatever ended
 * the batch. A thin layer over quiet.h, thaw.h and thermalguard.h.
 */
#ifndef HB_QUIET_SESSION_H
#define HB_QUIET_SESSION_H

#include <stdbool.h>

#include "text/kvfile.h"
#include "quiet/quiet.h"
#include "quiet/thaw.h"
#include "base/util.h"

struct quiet_session {
	struct quiet_profile profile;
	struct thaw_journal journal;
	bool open;
};

/* Loads the profile (a path, or a name in the recipe directories) and
 * takes the journal, restoring what a dead runner left; profile NULL: the
 * journal alone (a batch not quieted whose switches change settings,
 * KNOB). Notes for people
 * (what was recovered) go to notes. 0; -EINVAL for a bad profile (exit 2);
 * other -errno with the reason in err. */
int quiet_session_start(struct quiet_session *q, const char *profile, char *const *recipe_dirs,
			size_t n_dirs, struct strbuf *notes, struct strbuf *err);
/* Before a run: the profile's steps, then the thermal guard. Records into
 * record. 0, -EINTR when a signal came on signal_fd (left unread), or
 * -errno when the journal could not be written (nothing changed then). A
 * failed step is recorded and is not an error. */
int quiet_session_before_run(struct quiet_session *q, const char *what, struct kvfile *record,
			     int signal_fd, struct strbuf *err);
/* Thaws and lets the journal go. Each restored setting is a line in out
 * (with its check). 0, or -EIO when something did not come back (the
 * journal is kept for "hitchbench thaw"). Safe to call when not open. */
int quiet_session_end(struct quiet_session *q, struct strbuf *out);

#endif
