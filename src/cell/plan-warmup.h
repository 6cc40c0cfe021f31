/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_PLAN_WARMUP_H
#define WBLAB_CELL_PLAN_WARMUP_H

#include "spec/specs.h"
#include "util/strbuf.h"

/* At most this long, seconds: the warm-up is not the measurement. */
#define WARMUP_SECONDS 3

/*
 * The warmup lever (results/levers.h): under TCG the first run of a code
 * path pays for its translation; the workload's own fio job, for at most
 * WARMUP_SECONDS and in a memcg of its own with the workload's limit,
 * translates the paths the measured phase takes. It runs first in the
 * warm-up phase, so the workload's pre: steps (its file laid out, caches
 * dropped) then set the state the measured phase starts from; the
 * workload's memcg and its counters are untouched. A workload without a
 * fio job gets nothing.
 */
void plan_warmup(struct strbuf *p, const struct workload_spec *w,
		 const char *timeout);

#endif
