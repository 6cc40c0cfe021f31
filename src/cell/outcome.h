/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_OUTCOME_H
#define WBLAB_OUTCOME_H

#include <stdbool.h>

#include "results/outcome.h"
#include "util/strbuf.h"

/* The facts a cell's outcome is decided from, in one place. */
struct cell_facts {
	bool infra_error; /* host side: libvirt, image, disk full, ... */
	const char *infra_detail;
	bool hello; /* the agent reported in */
	bool exited; /* the agent sent its exit status */
	const char *agent_status; /* ok | setup-failed | workload-failed */
	const char *fail_phase, *fail_label; /* from the agent's exit */
	const char *fail_rc; /* the failed step's status ("124": its deadline) */
	bool boot_timeout; /* no hello in time */
	bool boot_progressing; /* ...but the console was still advancing */
	bool run_timeout; /* hello, then no exit in time */
	const char *timeout_phase; /* phase the guest was in */
	bool stopped_early; /* domain ended before the agent's exit */
	bool proto_error; /* the agent's channel was malformed */
	const char *proto_detail;
	const char *console_kind; /* primary console event kind or "none" */
	const char *console_title;
	bool console_crash; /* oops, panic, stack overflow, ... */
	bool console_hang; /* hung task, soft lockup, RCU stall */
	/* libvirt's word on a host fault (guest_host_fault()), or NULL. */
	const char *host_fault;
	bool deadline; /* the cell's overall deadline passed */
};

struct console_report;
/*
 * The console's part of the facts: console_kind, the first crash and the
 * first hang (hung task, soft lockup, RCU stall) and the title shown.
 * Pointers point into con.
 */
void cell_facts_console(struct cell_facts *f, const struct console_report *con);
/* Decide; reason gets one line saying why. */
enum cell_outcome cell_outcome(const struct cell_facts *f,
			       struct strbuf *reason);

#endif
