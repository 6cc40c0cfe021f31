/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_COLLECTORS_H
#define WBLAB_COLLECTORS_H

#include <json-c/json.h>

#include "util/strbuf.h"

/*
 * Collectors: what the guest records around the workload (plan steps) and
 * what the host makes of it (metrics). The planner calls the plan hooks at
 * fixed points; results.c calls collectors_metrics() for every cell.
 */

/* End of setup, before vmstat.before: arm tracers, reset maxima. */
void collectors_plan_arm(struct strbuf *plan);
/* Start of the workload phase: background samplers. */
void collectors_plan_workload(struct strbuf *plan);
/* Start of the collect phase, right after vmstat.after: fetch everything. */
void collectors_plan_collect(struct strbuf *plan);
/* Host side: parse a cell's files into metrics (adds keys to metrics). */
void collectors_metrics(const char *cell_dir, json_object *metrics);

#endif
