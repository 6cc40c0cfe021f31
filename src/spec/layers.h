/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_SPEC_LAYERS_H
#define WBLAB_SPEC_LAYERS_H

#include <stdbool.h>
#include <stddef.h>

#include "spec/spec.h"
#include "spec/specs.h"

/*
 * A topology layer type, the loader's half: its type: name, its fields,
 * how many lower layers its on: names, what it gives the layers above it,
 * and the checks of its own fields. One row per enum layer_type
 * (spec/layers.c); the planner's half, its steps, teardown and what
 * cell.json records, is cell/plan-layers.c's row (docs/design.md, "Add a
 * layer type").
 */
struct layer_kind {
	const char *name; /* type: in a topology */
	const struct spec_field *fields; /* a NULL-terminated field table */
	/* on: names min_on..max_on layers; 0: none of its own (disk, overlay) */
	size_t min_on, max_on;
	bool block; /* is a block device the layers on: it use */
	bool mount; /* is a mount point a workload runs on */
	/* Its own fields, once every layer's guest is known (first pass). */
	void (*check)(struct spec_file *sf, struct topology_spec *t,
		      struct topo_layer *l);
	/*
	 * One lower layer lo of its on: (second pass); NULL: lo must be a
	 * block device in the same guest.
	 */
	void (*check_lower)(struct spec_file *sf, struct topology_spec *t,
			    struct topo_layer *l, const struct topo_layer *lo);
	/* After its on: is checked: what needs the other layers. */
	void (*check_refs)(struct spec_file *sf, struct topology_spec *t,
			   struct topo_layer *l);
};

extern const struct layer_kind layer_kinds[LAYER_TYPES];

/* The row named name (a topology's type:), or NULL. */
const struct layer_kind *layer_kind_named(const char *name);
/* "main" or "target": the guest a layer is built in. */
const char *layer_guest(const struct topo_layer *l);
/* Record "file:line: layers[i].field: message" against layer l. */
void layer_error(struct spec_file *sf, const struct topology_spec *t,
		 const struct topo_layer *l, const char *field, const char *fmt,
		 ...) __attribute__((format(printf, 5, 6)));

#endif
