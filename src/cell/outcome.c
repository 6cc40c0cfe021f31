// SPDX-License-Identifier: GPL-2.0
/*
 * The one place a cell's outcome is decided. Host-side failures are
 * infra-error and never a kernel outcome; a kernel outcome needs the
 * guest (or its console) to have shown it.
 */
#include <string.h>

#include "cell/outcome.h"
#include "collect/console.h"

static bool eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/*
 * After a timer (a phase's, the cell's deadline): the console's hang
 * report makes it hung. A timer is not evidence: without the kernel's own
 * hang report a slow or stuck host looks the same.
 */
static enum cell_outcome hang_or_host(const struct cell_facts *f,
				      const char *title, struct strbuf *r)
{
	if (f->console_hang) {
		strbuf_addf(r, "; console: %s", title);
		return OUTCOME_HUNG;
	}
	strbuf_addstr(
		r,
		"; no hang evidence on the console (hung task, soft lockup, RCU stall, stall watcher): host suspect");
	return OUTCOME_INFRA_ERROR;
}

enum cell_outcome cell_outcome(const struct cell_facts *f, struct strbuf *r)
{
	const char *title = f->console_title ? f->console_title : "";

	if (f->infra_error) {
		strbuf_addf(r, "host: %s",
			    f->infra_detail ? f->infra_detail : "?");
		return OUTCOME_INFRA_ERROR;
	}
	/* QEMU stopped or paused by the host, the connection lost: not the kernel. */
	if (f->host_fault && !f->console_crash) {
		strbuf_addf(r, "host: %s", f->host_fault);
		return OUTCOME_INFRA_ERROR;
	}
	/* The overall deadline, even before the hello: evidence or the host. */
	if (f->deadline && !f->hello && !f->console_crash) {
		strbuf_addstr(
			r,
			"the cell's overall deadline passed before the agent reported in");
		return hang_or_host(f, title, r);
	}
	/*
	 * A boot still printing when the boot timer fired is a host too slow
	 * (TCG on a loaded host), not a kernel that cannot boot.
	 */
	if (!f->hello && f->boot_timeout && f->boot_progressing &&
	    !f->console_crash && !f->console_hang) {
		strbuf_addstr(
			r,
			"the agent did not report in before the boot timeout, but the guest was still booting (its console was advancing): host too slow");
		return OUTCOME_INFRA_ERROR;
	}
	if (!f->hello) {
		if (f->boot_timeout)
			strbuf_addstr(
				r,
				"the agent did not report in before the boot timeout");
		else
			strbuf_addstr(
				r,
				"the guest stopped before the agent reported in");
		if (f->console_crash || f->console_hang)
			strbuf_addf(r, "; console: %s", title);
		return OUTCOME_BOOT_FAILED;
	}
	if (f->console_crash) {
		strbuf_addf(r, "console: %s", title);
		return OUTCOME_CRASHED;
	}
	if (f->run_timeout || f->deadline) {
		if (f->deadline)
			strbuf_addf(r,
				    "the cell's overall deadline passed in %s",
				    f->timeout_phase && *f->timeout_phase ?
					    f->timeout_phase :
					    "the run");
		else
			strbuf_addf(
				r,
				"no exit from the agent before the %s timeout",
				f->timeout_phase && *f->timeout_phase ?
					f->timeout_phase :
					"run");
		return hang_or_host(f, title, r);
	}
	/*
	 * Garbage on the channel from a guest whose console shows no crash
	 * is the agent's or the channel's fault, not a kernel outcome.
	 */
	if (f->proto_error && !f->exited) {
		strbuf_addf(r, "malformed data on the agent channel: %s",
			    f->proto_detail ? f->proto_detail : "?");
		return OUTCOME_INFRA_ERROR;
	}
	if (!f->exited) {
		strbuf_addstr(r, "the guest stopped before the agent finished");
		return OUTCOME_CRASHED;
	}
	if (eq(f->agent_status, "setup-failed")) {
		strbuf_addf(r, "topology setup failed at layer %s",
			    f->fail_label ? f->fail_label : "?");
		return OUTCOME_INFRA_ERROR;
	}
	if (eq(f->agent_status, "workload-failed")) {
		/*
		 * 124 is the agent's status for a step its deadline killed
		 * (agent/plan.c wait_timeout(): --timeout, the workload's
		 * timeout:): said so, not as a failure of the program.
		 */
		strbuf_addf(
			r, "workload step %s %s",
			f->fail_label ? f->fail_label : "?",
			eq(f->fail_rc, "124") ?
				"stopped at its deadline (the workload's timeout)" :
				"failed");
		/*
		 * The kernel's own hang report beside a failed step: the step
		 * timed out because tasks were stuck in the kernel (swap to
		 * RAID1 over iSCSI deadlocked on a bio mempool in
		 * swap-direct), a kernel outcome to bisect, not the
		 * workload's.
		 */
		if (f->console_hang) {
			strbuf_addf(r, "; console: %s", title);
			return OUTCOME_HUNG;
		}
		return OUTCOME_WORKLOAD_FAILED;
	}
	strbuf_addstr(r, "workload completed");
	return OUTCOME_OK;
}

void cell_facts_console(struct cell_facts *f, const struct console_report *con)
{
	f->console_kind = con->kind;
	for (size_t i = 0; i < con->nr_events; i++) {
		const char *k = con->events[i].kind;

		if (console_kind_is_crash(k) && !f->console_crash) {
			f->console_crash = true;
			f->console_title = con->events[i].title;
		}
		/*
		 * Hang evidence is the kernel's own report or the stall
		 * watcher's: the same tasks in D state at the same wait site
		 * in two SysRq-t dumps 15 s apart, with no progress counter
		 * moving. The watcher's is the only one a deadlock that
		 * sleeps in short slices (mempool_alloc's 5 s) leaves.
		 */
		if ((!strcmp(k, "hung_task") || !strcmp(k, "soft_lockup") ||
		     !strcmp(k, "rcu_stall") || !strcmp(k, "stall")) &&
		    !f->console_hang) {
			f->console_hang = true;
			if (!f->console_title)
				f->console_title = con->events[i].title;
		}
	}
}
