/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_REPROSH_H
#define WBLAB_CELL_REPROSH_H

#include <stddef.h>

#include "util/strbuf.h"

/*
 * A cell's plan (plan.txt, agent/proto.h) as a POSIX shell script for a
 * human to run as root in a guest by hand: the same steps in the same
 * order. Only text is written here; nothing goes through a shell on the
 * host. Every field of the plan (guest-controlled when the plan comes
 * from a results directory someone handed over) is written single-quoted
 * by sh_quote() (util/run.h).
 */

/*
 * Render plan (len bytes, as read from name) into out. 0, or -1 with
 * "NAME:LINE: why" in err for a line that is no valid step (an unknown
 * verb, too few fields, a bad timeout, phase, env name or result name).
 */
int repro_plan_sh(const char *plan, size_t len, const char *name,
		  struct strbuf *out, struct strbuf *err);

#endif
