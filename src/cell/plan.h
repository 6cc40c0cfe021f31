/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_PLAN_H
#define WBLAB_PLAN_H

#include "spec/specs.h"
#include "util/strbuf.h"

/* The guest a plan is for: the cell's own guest, or an iSCSI target guest. */
enum plan_role { PLAN_MAIN, PLAN_TARGET };

struct plan_opts {
	enum plan_role role;
	int workload_timeout; /* seconds the agent gives the workload */
	const char *target_ip; /* where remote iSCSI targets listen */
	const char *own_ip; /* this guest's address on the lab network */
};

/* Append one plan step: fields escaped and TAB-separated, NULL-terminated. */
void plan_step(struct strbuf *p, const char *verb, ...)
	__attribute__((sentinel));
/* Append a step whose trailing fields are an argv array. */
void plan_step_argv(struct strbuf *p, const char *verb, const char *a1,
		    const char *a2, const char *const *argv);
/*
 * Compile topology + workload into the agent's plan (see agent/proto.h):
 * setup bottom-up, snapshots, the workload, collection, teardown top-down.
 */
int plan_compile(const struct topology_spec *t, const struct workload_spec *w,
		 const struct plan_opts *o, struct strbuf *out);
/* The mount point of a mount-providing layer in the guest. */
char *plan_mount_dir(const struct topo_layer *l);

#endif
