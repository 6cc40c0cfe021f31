/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_PLAN_STALL_H
#define WBLAB_CELL_PLAN_STALL_H

#include "spec/specs.h"
#include "util/strbuf.h"

/*
 * The workload steps of a stalling dm-delay layer (stall:, struct
 * topo_stall), for the main guest's plan, nothing for another layer:
 * plan_stall_start() at the workload's start, before its memcg is made;
 * plan_stall_end() once the workload's commands are done, timeout the
 * workload's (seconds). The dm-delay row's workload hooks
 * (cell/plan-layers.c).
 */
void plan_stall_start(struct strbuf *p, const struct topo_layer *l);
void plan_stall_end(struct strbuf *p, const struct topo_layer *l,
		    const char *timeout);

#endif
