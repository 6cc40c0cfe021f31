// SPDX-License-Identifier: GPL-2.0
/*
 * topologies/<name>.yaml: disks and a stack of layers, each sitting on the
 * layers named in on:. Checked for types, parameters, references and cycles
 * before anything is started.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/layers.h"
#include "spec/specs.h"
#include "util/log.h"
#include "util/str.h"

#define T(field) offsetof(struct topology_spec, field)

static int parse_layers(struct spec_file *sf, yaml_node_t *n, const char *field,
			void *obj);

/* clang-format off */
/* Every guest's disks: "disks: {count, size}" (a size only with disks). */
#define D(field) offsetof(struct topo_disks, field)
static const struct spec_field disks_fields[] = {
	{ .name = "count", .type = SPEC_INT, .offset = D(count), .required = true, .max = 16 },
	{ .name = "size", .type = SPEC_SIZE, .offset = D(size), .min = 16LL << 20, .max = 1LL << 40 },
	SPEC_END
};

static const struct spec_field target_guest_fields[] = {
	SPEC_SUBMAP_AT("disks", true, disks_fields, T(target_disks)),
	{ .name = "memory", .type = SPEC_MIB, .offset = T(target_memory), .min = 128, .max = 1 << 20 },
	SPEC_END
};

static const struct spec_field topo_fields[] = {
	{ .name = "description", .type = SPEC_TEXT, .offset = T(description), .required = true },
	SPEC_SUBMAP_AT("disks", true, disks_fields, T(disks)),
	SPEC_SUBMAP("target", false, target_guest_fields),
	{ .name = "layers", .type = SPEC_MAP, .offset = 0, .required = true, .parse = parse_layers },
	{ .name = "mount", .type = SPEC_STR, .offset = T(mount), .value = SPEC_V_ABSPATH },
	SPEC_END
};
/* clang-format on */

static int parse_layer(struct spec_file *sf, yaml_node_t *n, const char *prefix,
		       struct topo_layer *l)
{
	const char *type = spec_scalar(spec_map_get(sf, n, "type"));
	const struct layer_kind *k;
	struct strbuf known = STRBUF_INIT;
	char field[64];

	l->line = spec_line(n);
	l->index = -1;
	l->priority = -1;
	if (n->type != YAML_MAPPING_NODE) {
		spec_error(sf, n, prefix,
			   "a layer is a mapping (name:, type:, ...)");
		return -1;
	}
	if (!type) {
		spec_error(sf, n, prefix, "layer has no type:");
		return -1;
	}
	k = layer_kind_named(type);
	if (k) {
		l->type = k - layer_kinds;
		return spec_apply(sf, n, k->fields, l, prefix);
	}
	snprintf(field, sizeof(field), "%s.type", prefix);
	for (size_t i = 0; i < LAYER_TYPES; i++)
		strbuf_addf(&known, "%s%s", i ? ", " : "", layer_kinds[i].name);
	spec_error(sf, spec_map_get(sf, n, "type"), field,
		   "unknown layer type '%s' (known: %s)", type, known.buf);
	strbuf_release(&known);
	return -1;
}

static int parse_layers(struct spec_file *sf, yaml_node_t *n, const char *field,
			void *obj)
{
	struct topology_spec *t = obj;
	size_t count;

	if (n->type != YAML_SEQUENCE_NODE) {
		spec_error(sf, n, field, "expected a list of layers");
		return -1;
	}
	count = n->data.sequence.items.top - n->data.sequence.items.start;
	if (!count)
		return 0; /* a bare guest: nothing to build, no mount */
	t->layers = xzalloc(count * sizeof(*t->layers));
	t->nr_layers = count;
	for (size_t i = 0; i < count; i++) {
		char prefix[32];

		snprintf(prefix, sizeof(prefix), "layers[%zu]", i);
		parse_layer(sf, spec_node(sf, n->data.sequence.items.start[i]),
			    prefix, &t->layers[i]);
	}
	return 0;
}

const struct topo_iotune *topology_disk_iotune(const struct topology_spec *t,
					       const char *guest,
					       long long index)
{
	for (size_t i = 0; i < t->nr_layers; i++) {
		const struct topo_layer *l = &t->layers[i];

		if (l->type == LAYER_DISK && l->index == index &&
		    !strcmp(l->guest ? l->guest : "main", guest))
			return &l->iotune;
	}
	return NULL;
}

static bool provides_block(enum layer_type t)
{
	return layer_kinds[t].block;
}

static bool provides_mount(enum layer_type t)
{
	return layer_kinds[t].mount;
}

static void check_refs(struct spec_file *sf, struct topology_spec *t,
		       struct topo_layer *l)
{
	const struct layer_kind *k = &layer_kinds[l->type];

	if (k->min_on && (l->on.n < k->min_on || l->on.n > k->max_on))
		layer_error(sf, t, l, "on",
			    "%s takes %zu%s lower layer%s, not %zu",
			    l->type_name, k->min_on,
			    k->max_on > 1 ? " or more" : "",
			    k->min_on > 1 ? "s" : "", l->on.n);
	for (size_t i = 0; i < l->on.n; i++) {
		const struct topo_layer *lo = topology_find(t, l->on.v[i]);

		if (!lo) {
			layer_error(sf, t, l, "on", "no layer named '%s'",
				    l->on.v[i]);
			continue;
		}
		if (lo == l) {
			layer_error(sf, t, l, "on",
				    "a layer cannot sit on itself");
			continue;
		}
		if (k->check_lower) {
			k->check_lower(sf, t, l, lo);
			continue;
		}
		if (!provides_block(lo->type))
			layer_error(sf, t, l, "on",
				    "'%s' (%s) provides no block device for %s",
				    lo->name, lo->type_name, l->type_name);
		if (strcmp(layer_guest(lo), layer_guest(l)))
			layer_error(
				sf, t, l, "on",
				"'%s' is in guest %s, this layer in guest %s (only iSCSI crosses guests)",
				lo->name, layer_guest(lo), layer_guest(l));
	}
	if (k->check_refs)
		k->check_refs(sf, t, l);
}

/*
 * A block device has one user: mkfs, mkswap, mdadm and LIO each claim the
 * whole device, so a second layer on it would destroy the first.
 */
static void check_shared(struct spec_file *sf, struct topology_spec *t,
			 struct topo_layer *l)
{
	for (size_t k = 0; k < l->on.n; k++) {
		const struct topo_layer *lo = topology_find(t, l->on.v[k]);

		if (!lo || !provides_block(lo->type))
			continue;
		for (struct topo_layer *e = t->layers; e < l; e++)
			if (spec_strlist_has(&e->on, lo->name)) {
				layer_error(
					sf, t, l, "on",
					"'%s' is already used by layer '%s' (a block device has one user)",
					lo->name, e->name);
				break;
			}
	}
}

static bool has_swap(const struct topology_spec *t)
{
	for (size_t i = 0; i < t->nr_layers; i++)
		if (t->layers[i].type == LAYER_SWAP &&
		    !strcmp(t->layers[i].guest, "main"))
			return true;
	return false;
}

/*
 * An md array of the main guest that no layer is on: a stack for
 * workloads that write the array itself (fio's filename=/dev/md0,
 * workloads/md-failslab), as a swap-only stack is for anonymous ones.
 */
static bool has_md_on_top(const struct topology_spec *t)
{
	for (size_t i = 0; i < t->nr_layers; i++) {
		const struct topo_layer *l = &t->layers[i];
		bool under = false;

		if (l->type != LAYER_MD || strcmp(l->guest, "main"))
			continue;
		for (size_t j = 0; j < t->nr_layers && !under; j++)
			for (size_t k = 0; k < t->layers[j].on.n; k++)
				if (!strcmp(t->layers[j].on.v[k], l->name))
					under = true;
		if (!under)
			return true;
	}
	return false;
}

/* Depth-first search for cycles through on: (colour: 0 new, 1 open, 2 done). */
static bool has_cycle(const struct topology_spec *t, size_t i, int *colour)
{
	if (colour[i] == 1)
		return true;
	if (colour[i] == 2)
		return false;
	colour[i] = 1;
	for (size_t k = 0; k < t->layers[i].on.n; k++) {
		const struct topo_layer *lo =
			topology_find(t, t->layers[i].on.v[k]);

		if (lo && lo != &t->layers[i] &&
		    has_cycle(t, lo - t->layers, colour))
			return true;
	}
	colour[i] = 2;
	return false;
}

/* disks: {count, size}: a size for disks there are, none without any. */
static void check_disks(struct spec_file *sf, yaml_node_t *map,
			const struct topo_disks *d, const char *field,
			bool target)
{
	yaml_node_t *n = spec_map_get(sf, map, "disks");
	char where[64];

	snprintf(where, sizeof(where), "%s.size", field);
	if (d->count && !d->size)
		spec_error(sf, n, where, "%lld disks need a size (16M..1T)",
			   d->count);
	snprintf(where, sizeof(where), "%s.count", field);
	if (target && !d->count)
		spec_error(sf, n, where,
			   "a target guest serves at least one disk");
}

static int topology_check(struct spec_file *sf, void *obj)
{
	struct topology_spec *t = obj;
	yaml_node_t *tgt = spec_map_get(sf, spec_root(sf), "target");
	int *colour;

	check_disks(sf, spec_root(sf), &t->disks, "disks", false);
	if (tgt)
		check_disks(sf, tgt, &t->target_disks, "target.disks", true);

	for (size_t i = 0; i < t->nr_layers; i++) {
		struct topo_layer *l = &t->layers[i];

		if (!spec_valid_name(l->name))
			layer_error(sf, t, l, "name",
				    "'%s' must be [A-Za-z0-9._-]+", l->name);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(t->layers[k].name, l->name))
				layer_error(
					sf, t, l, "name",
					"duplicate layer name '%s' (first at line %d)",
					l->name, t->layers[k].line);
		if (!l->guest)
			l->guest = xstrdup("main");
		if (layer_kinds[l->type].check)
			layer_kinds[l->type].check(sf, t, l);
		if (!strcmp(l->guest, "target") && !t->target_disks.count)
			layer_error(
				sf, t, l, "guest",
				"layer in guest target but the topology has no target: section");
	}
	if (sf->nr_errors)
		return -1;
	for (size_t i = 0; i < t->nr_layers; i++)
		check_refs(sf, t, &t->layers[i]);
	if (sf->nr_errors)
		return -1;
	colour = xzalloc(t->nr_layers * sizeof(*colour));
	for (size_t i = 0; i < t->nr_layers; i++) {
		if (has_cycle(t, i, colour)) {
			layer_error(sf, t, &t->layers[i], "on",
				    "layer '%s' is part of a cycle",
				    t->layers[i].name);
			break;
		}
	}
	free(colour);
	for (size_t i = 0; sf->nr_errors == 0 && i < t->nr_layers; i++)
		check_shared(sf, t, &t->layers[i]);
	if (sf->nr_errors)
		return -1;
	if (t->mount) {
		const struct topo_layer *m = topology_find(t, t->mount);

		if (!m || !provides_mount(m->type) || strcmp(m->guest, "main"))
			spec_error(
				sf, spec_map_get(sf, spec_root(sf), "mount"),
				"mount",
				"'%s' is not an fs or overlay layer of the main guest",
				t->mount);
	} else if (t->nr_layers && !topology_mount_layer(t) && !has_swap(t) &&
		   !has_md_on_top(t)) {
		/*
		 * A swap-only stack is for anonymous workloads, an md array on
		 * top for workloads that name it: no mount.
		 */
		spec_error(
			sf, spec_root(sf), "layers",
			"no fs, overlay, swap or top md layer in the main guest to run workloads on");
	}
	return 0;
}

const struct topo_layer *topology_mount_layer(const struct topology_spec *t)
{
	if (t->mount)
		return topology_find(t, t->mount);
	for (size_t i = t->nr_layers; i-- > 0;)
		if (provides_mount(t->layers[i].type) &&
		    (!t->layers[i].guest ||
		     !strcmp(t->layers[i].guest, "main")))
			return &t->layers[i];
	return NULL;
}

bool topology_has_target(const struct topology_spec *t)
{
	return t->target_disks.count > 0;
}

int topology_spec_load_err(const char *path, const char *name,
			   struct topology_spec *out, struct strbuf *err)
{
	memset(out, 0, sizeof(*out));
	out->name = xstrdup(name);
	out->path = xstrdup(path);
	return spec_load_file(path, topo_fields, out, err, topology_check);
}

int topology_spec_load(const char *path, const char *name,
		       struct topology_spec *out)
{
	return topology_spec_load_err(path, name, out, NULL);
}

void topology_spec_free(struct topology_spec *t)
{
	for (size_t i = 0; i < t->nr_layers; i++) {
		struct topo_layer *l = &t->layers[i];

		/* Every string its type's fields hold, and on: (overlay's too). */
		spec_fields_free(layer_kinds[l->type].fields, l);
		spec_strlist_free(&l->on);
	}
	free(t->layers);
	free(t->name);
	free(t->path);
	free(t->description);
	free(t->mount);
	memset(t, 0, sizeof(*t));
}
