/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_STEP_H
#define WBLAB_CELL_STEP_H

#include "agent/proto.h"
#include "util/strbuf.h"

/* A setup or teardown step's deadline in the guest, seconds. */
#define STEP_TIMEOUT "120"

/* Append one plan step: fields escaped and TAB-separated, NULL-terminated. */
void plan_step(struct strbuf *p, enum proto_verb verb, ...)
	__attribute__((sentinel));
/* Append a step whose trailing fields are an argv array. */
void plan_step_argv(struct strbuf *p, enum proto_verb verb, const char *a1,
		    const char *a2, const char *const *argv);
/* A phase step: the agent stops background steps and announces it. */
void plan_phase(struct strbuf *p, enum proto_phase phase);

#endif
