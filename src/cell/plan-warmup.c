// SPDX-License-Identifier: GPL-2.0
/*
 * The warmup lever's steps (cell/plan-warmup.h), beside the plan's other
 * optional parts (plan-failslab.c, plan-stall.c).
 */
#include <stdio.h>

#include "agent/proto.h"
#include "cell/plan-warmup.h"
#include "cell/step.h"

#define WARMUP_CGROUP "wblab-warmup"
#define WARMUP_JOB "/tmp/wblab-warmup.fio"

void plan_warmup(struct strbuf *p, const struct workload_spec *w,
		 const char *timeout)
{
	char runtime[32];

	if (!w->fio)
		return;
	snprintf(runtime, sizeof(runtime), "--runtime=%d", WARMUP_SECONDS);
	if (w->memcg_max)
		plan_step(p, VERB_CGROUP, WARMUP_CGROUP, w->memcg_max, NULL);
	plan_step(p, VERB_PUT, WARMUP_JOB, w->fio, NULL);
	/* Its JSON stays in the guest: only the measured run is fio.json. */
	plan_step_argv(p, VERB_RUN, "warmup", timeout,
		       (const char *const[]){ "fio", "--output-format=json",
					      "--output=/tmp/wblab-warmup.json",
					      runtime, WARMUP_JOB, NULL });
	if (w->memcg_max)
		plan_step(p, VERB_CGROUP, "", "", NULL);
}
