// SPDX-License-Identifier: GPL-2.0
/*
 * A dm-delay layer's stall: (spec/specs.h, struct topo_stall): the agent's
 * dm-stall helper (agent/dmdelay.c) suspends and resumes the device on
 * its schedule from the workload's start. It starts before the workload's
 * cgroup is made, so that it is not in the memcg it helps to fill: its
 * resume must never wait for that memcg's reclaim. Only the main guest
 * runs a workload, and the loader keeps stall: there (spec/topology.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "agent/proto.h"
#include "cell/plan-stall.h"
#include "cell/step.h"

static bool stalls(const struct topo_layer *l)
{
	return l->type == LAYER_DM_DELAY && l->stall.count &&
	       !strcmp(l->guest, "main");
}

void plan_stall_start(struct strbuf *p, const struct topo_layer *l)
{
	const struct topo_stall *st = &l->stall;
	char label[96], a[24], s[24], r[24], c[24];

	if (!stalls(l))
		return;
	snprintf(label, sizeof(label), "stall-%s", l->name);
	snprintf(a, sizeof(a), "%lld", st->after_ms);
	snprintf(s, sizeof(s), "%lld", st->suspend_ms);
	snprintf(r, sizeof(r), "%lld", st->resume_ms);
	snprintf(c, sizeof(c), "%lld", st->count);
	plan_step_argv(p, VERB_BG, label, NULL,
		       (const char *const[]){ "/run/wblab-agent", "dm-stall",
					      l->name, a, s, r, c, NULL });
}

/*
 * After the workload: the stall's schedule runs out (a helper still
 * running at the workload's timeout is killed), the device is resumed in
 * case it was killed while suspended (the collect phase's reads and the
 * unmount would wait for ever), and its times go back as stall-NAME.tsv.
 */
void plan_stall_end(struct strbuf *p, const struct topo_layer *l,
		    const char *timeout)
{
	char label[96], name[96], out[160];

	if (!stalls(l))
		return;
	snprintf(label, sizeof(label), "stall-%s", l->name);
	snprintf(name, sizeof(name), "stall-%s.tsv", l->name);
	snprintf(out, sizeof(out), AGENT_BG_PREFIX "%s" AGENT_BG_SUFFIX, label);
	plan_step(p, VERB_WAIT, label, timeout, NULL);
	/* 120 s: every setup and teardown step's (cell/step.h). */
	plan_step_argv(p, VERB_TRY, l->name, STEP_TIMEOUT,
		       (const char *const[]){ "dmsetup", "resume",
					      "--noudevsync", l->name, NULL });
	plan_step(p, VERB_GET, name, out, NULL);
}
