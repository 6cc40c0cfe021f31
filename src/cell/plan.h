/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_PLAN_H
#define WBLAB_PLAN_H

#include <stdbool.h>

#include "spec/specs.h"
#include "util/strbuf.h"

/* The guest a plan is for: the cell's own guest, or an iSCSI target guest. */
enum plan_role { PLAN_MAIN, PLAN_TARGET };

struct plan_opts {
	enum plan_role role;
	int workload_timeout; /* seconds the agent gives the workload */
	const char *target_ip; /* where remote iSCSI targets listen */
	const char *own_ip; /* this guest's address on the lab network */
	long thread_size; /* the kernel's THREAD_SIZE (0: unknown) */
	int kver; /* its version, KVER() (0: unknown) */
	bool warmup; /* the warmup lever: plan-warmup.h */
	/* Its System.map, as collectors_opts (cell/collectors-plan.h). */
	const char *system_map;
	bool map_complete;
	struct strbuf *host_ksyms;
};

/*
 * The guest device each layer of a topology became in one plan, by layer
 * index: "@disk:SERIAL", "/dev/md0", "/mnt/scratch", "IQN:LUN", ... or
 * NULL (a layer of the other guest).
 */
struct plan_devs {
	size_t nr;
	char **dev;
};

void plan_devs_free(struct plan_devs *d);

/*
 * Compile topology + workload into the agent's plan (see agent/proto.h):
 * setup bottom-up, snapshots, the workload, collection, teardown top-down.
 * Reads t and w only; fills devs (free with plan_devs_free()).
 */
int plan_compile(const struct topology_spec *t, const struct workload_spec *w,
		 const struct plan_opts *o, struct strbuf *out,
		 struct plan_devs *devs);
/* The mount point of a mount-providing layer in the guest. */
char *plan_mount_dir(const struct topo_layer *l);
/*
 * Add a layer's own keys to its entry in cell.json's topology.layers[]
 * (md's level, dm-delay's delay_ms, ...: its type's row says which).
 */
struct json_object;
void plan_layer_record(struct json_object *lj, const struct topo_layer *l);

#endif
