/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_PLAN_STALL_H
#define WBLAB_CELL_PLAN_STALL_H

#include "spec/specs.h"
#include "util/strbuf.h"

/*
 * The workload steps of a topology's stalling dm-delay layers (stall:,
 * struct topo_stall), for the main guest's plan: plan_stall_start() at
 * the workload's start, before its memcg is made; plan_stall_end() once
 * the workload's commands are done, timeout the workload's (seconds).
 */
void plan_stall_start(struct strbuf *p, const struct topology_spec *t);
void plan_stall_end(struct strbuf *p, const struct topology_spec *t,
		    const char *timeout);

#endif
