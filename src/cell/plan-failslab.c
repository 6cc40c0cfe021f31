// SPDX-License-Identifier: GPL-2.0
/*
 * The failslab steps of a workload's plan (workloads/md-failslab): its
 * own file beside plan-stall.c, as the plan's other optional parts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "agent/proto.h"
#include "cell/plan-failslab.h"
#include "cell/step.h"
#include "util/log.h"

#define RUN(p, label, ...)                               \
	plan_step_argv(p, VERB_RUN, label, STEP_TIMEOUT, \
		       (const char *const[]){ __VA_ARGS__, NULL })

/*
 * failslab: every allocation from one slab cache fails while the workload
 * runs (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS). With the cache
 * filter on, only caches whose own failslab file says 1 fail; allocations
 * that may reclaim fail too (ignore-gfp-wait N), so a mempool on that
 * cache lives on its reserved elements alone: workloads/md-failslab.
 * Armed last in the arm phase (a kernel without it fails setup at
 * "failslab", and what was set is in topology.txt), disarmed right after
 * the workload's steps, so the collectors and teardown allocate as usual.
 */
#define FAILSLAB_DIR "/sys/kernel/debug/failslab/"

const struct failslab_knob failslab_knobs[] = {
	{ "cache-filter", "Y" }, { "ignore-gfp-wait", "N" }, { "verbose", "0" },
	{ "interval", "1" },	 { "times", "-1" },	     { "space", "0" },
	{ NULL, NULL },
};

void plan_failslab_arm(struct strbuf *p, const char *cache)
{
	char *slab, *path;

	if (!cache)
		return;
	slab = xasprintf("/sys/kernel/slab/%s/failslab", cache);
	for (const struct failslab_knob *k = failslab_knobs; k->name; k++) {
		path = xasprintf(FAILSLAB_DIR "%s", k->name);
		plan_step(p, VERB_PUT, path, k->value, NULL);
		free(path);
	}
	plan_step(p, VERB_PUT, slab, "1", NULL);
	plan_step(p, VERB_PUT, FAILSLAB_DIR "probability", FAILSLAB_PROBABILITY,
		  NULL);
	plan_step(p, VERB_CAPLINES, "topology.txt", "failslab",
		  FAILSLAB_DIR "cache-filter", FAILSLAB_DIR "ignore-gfp-wait",
		  FAILSLAB_DIR "probability", FAILSLAB_DIR "interval",
		  FAILSLAB_DIR "times", slab, NULL);
	/* A put only logs its failure: these make a missing knob fatal. */
	RUN(p, "failslab", "grep", "-qx", "1", slab);
	RUN(p, "failslab", "grep", "-qx", FAILSLAB_PROBABILITY,
	    FAILSLAB_DIR "probability");
	free(slab);
}

void plan_failslab_disarm(struct strbuf *p, const char *cache)
{
	char *slab;

	if (!cache)
		return;
	slab = xasprintf("/sys/kernel/slab/%s/failslab", cache);
	plan_step(p, VERB_PUT, FAILSLAB_DIR "probability", "0", NULL);
	plan_step(p, VERB_PUT, slab, "0", NULL);
	free(slab);
}
