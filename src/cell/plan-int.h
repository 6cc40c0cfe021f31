/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_PLAN_INT_H
#define WBLAB_CELL_PLAN_INT_H

#include <stdbool.h>

#include "cell/plan.h"
#include "cell/step.h"

/*
 * The planner's unit: plan.c compiles a plan, plan-layers.c holds each
 * layer type's steps (one row a type), plan-stall.c and plan-failslab.c
 * the steps of a dm-delay stall and of a workload's failslab.
 */

#define RUN(p, label, ...)                               \
	plan_step_argv(p, VERB_RUN, label, STEP_TIMEOUT, \
		       (const char *const[]){ __VA_ARGS__, NULL })
#define TRY(p, label, ...)                               \
	plan_step_argv(p, VERB_TRY, label, STEP_TIMEOUT, \
		       (const char *const[]){ __VA_ARGS__, NULL })
#define CAPTURE(p, label, ...)                                 \
	plan_step_argv(p, VERB_CAPTURE, "topology.txt", label, \
		       (const char *const[]){ __VA_ARGS__, NULL })

/* One plan being compiled: what it reads, what it writes. */
struct planner {
	struct strbuf *p;
	const struct topology_spec *t;
	const struct plan_opts *o;
	struct plan_devs *devs;
	/* What the layers set up so far share in this guest. */
	int md; /* the next md array's number */
	bool iscsid; /* the initiator's daemon runs */
	bool targets; /* LIO's modules and configfs are up */
};

/*
 * A topology layer type, the planner's half (the loader's half is
 * spec/layers.c's row): every hook may be NULL, for nothing to do.
 */
struct layer_steps {
	enum layer_type type;
	/* Its setup steps in its own guest; records its device (set_dev). */
	void (*setup)(struct planner *pl, const struct topo_layer *l);
	/* Its device as the other guest reaches it (an iSCSI target's LUN). */
	void (*elsewhere)(struct planner *pl, const struct topo_layer *l);
	/* Undo setup, top-down, ignoring failures (TRY); dev is its device. */
	void (*teardown)(struct planner *pl, const struct topo_layer *l,
			 const char *dev);
	/* topology.txt's lines, once per guest with one such layer or more. */
	void (*capture)(struct strbuf *p);
	/* The STACK_NEED_* bits (collect/stackprobe.h) the layer loads. */
	unsigned int (*stack_need)(const struct topo_layer *l);
	/* Beside the workload, main guest only: at its start and its end. */
	void (*workload_start)(struct strbuf *p, const struct topo_layer *l);
	void (*workload_end)(struct strbuf *p, const struct topo_layer *l,
			     const char *timeout);
	/* Its own keys in its cell.json topology.layers[] entry. */
	void (*record)(struct json_object *lj, const struct topo_layer *l);
};

/*
 * Every type's row, in the order the topology captures run; one row for
 * each enum layer_type (tests/test_cell.c checks it).
 */
extern const struct layer_steps plan_layer_table[LAYER_TYPES];
const struct layer_steps *plan_layer_steps(enum layer_type type);

bool plan_in_role(const struct topo_layer *l, enum plan_role role);
/* The guest device of a layer so far, or NULL. */
const char *plan_dev_of(const struct planner *pl, const struct topo_layer *l);
/* The device of the layer named name, or of l's i-th lower layer. */
const char *plan_named_dev(const struct planner *pl, const char *name);
const char *plan_lower_dev(const struct planner *pl, const struct topo_layer *l,
			   size_t i);
/* Record the layer's device (taking dev); returns it. */
const char *plan_set_dev(struct planner *pl, const struct topo_layer *l,
			 char *dev);

#endif
