/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_PLAN_FAILSLAB_H
#define WBLAB_CELL_PLAN_FAILSLAB_H

#include "util/strbuf.h"

/*
 * A workload's failslab: the debugfs knobs of /sys/kernel/debug/failslab/
 * the plan writes, in this order, before the cache's own failslab file and
 * probability (the last: nothing fails before the filter is set). Ends
 * with a NULL name. cell.json records them (cell/results.c).
 */
struct failslab_knob {
	const char *name;
	const char *value;
};

extern const struct failslab_knob failslab_knobs[];
/* Written last, after the cache's own failslab file. */
#define FAILSLAB_PROBABILITY "100"

/*
 * A workload's failslab: cache (NULL: nothing): plan_failslab_arm() last
 * in the arm phase, plan_failslab_disarm() right after the workload's
 * steps, so collection and teardown allocate as usual.
 */
void plan_failslab_arm(struct strbuf *p, const char *cache);
void plan_failslab_disarm(struct strbuf *p, const char *cache);

#endif
