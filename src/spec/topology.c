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

#include "spec/specs.h"
#include "util/log.h"
#include "util/str.h"

#define L(field) offsetof(struct topo_layer, field)
#define T(field) offsetof(struct topology_spec, field)

static const char *const guest_names[] = { "main", "target", NULL };
static const char *const fs_types[] = { "xfs", "ext4", "f2fs", NULL };
static const char *const backstores[] = { "block", "fileio", NULL };
/*
 * md's write-intent bitmap (mdadm --bitmap=): raid1/raid10 hand writes to
 * raid1d through the plug while a bitmap is set, and submit each mirror's
 * clone from inside ->submit_bio without one (raid1-10.c,
 * raid1_add_bio_to_plug()). Unset: mdadm's default, which adds an
 * internal bitmap only to arrays of 100 GiB or more.
 */
static const char *const md_bitmaps[] = { "none", "internal", NULL };

/* Field tables read best one field a line. */
/* clang-format off */
#define COMMON_FIELDS							\
	{ .name = "name", .type = SPEC_STR, .offset = L(name), .required = true, .value = SPEC_V_NAME },	\
	{ .name = "type", .type = SPEC_STR, .offset = L(type_name), .required = true },			\
	{ .name = "guest", .type = SPEC_ENUM, .offset = L(guest), .choices = guest_names }

#define IO(field) offsetof(struct topo_iotune, field)
static const struct spec_field iotune_fields[] = {
	{ .name = "total_iops_sec", .type = SPEC_INT, .offset = IO(total_iops_sec), .min = 1, .max = 10000000 },
	{ .name = "total_bytes_sec", .type = SPEC_SIZE, .offset = IO(total_bytes_sec), .min = 4096, .max = 1LL << 40 },
	SPEC_END
};

static const struct spec_field disk_fields[] = {
	COMMON_FIELDS,
	{ .name = "index", .type = SPEC_INT, .offset = L(index), .required = true, .max = 15 },
	SPEC_SUBMAP_AT("iotune", false, iotune_fields, L(iotune)),
	{ .name = "queue_size", .type = SPEC_INT, .offset = L(iotune.queue_size), .min = 4, .max = 1024 },
	SPEC_END
};

static const struct spec_field md_fields[] = {
	COMMON_FIELDS,
	{ .name = "on", .type = SPEC_STRLIST, .offset = L(on), .required = true, .value = SPEC_V_NAME },
	{ .name = "level", .type = SPEC_INT, .offset = L(level), .required = true, .max = 10 },
	{ .name = "chunk", .type = SPEC_STR, .offset = L(chunk), .value = SPEC_V_WORD },
	{ .name = "bitmap", .type = SPEC_ENUM, .offset = L(bitmap), .choices = md_bitmaps },
	SPEC_END
};

static const struct spec_field target_fields[] = {
	COMMON_FIELDS,
	{ .name = "on", .type = SPEC_STRLIST, .offset = L(on), .required = true, .value = SPEC_V_NAME },
	{ .name = "backstore", .type = SPEC_ENUM, .offset = L(backstore), .choices = backstores },
	{ .name = "iqn", .type = SPEC_STR, .offset = L(iqn), .required = true, .value = SPEC_V_IQN },
	{ .name = "lun", .type = SPEC_INT, .offset = L(lun), .max = 255 },
	{ .name = "acl", .type = SPEC_STR, .offset = L(acl), .value = SPEC_V_IQN },
	SPEC_END
};

static const struct spec_field initiator_fields[] = {
	COMMON_FIELDS,
	{ .name = "on", .type = SPEC_STRLIST, .offset = L(on), .required = true, .value = SPEC_V_NAME },
	SPEC_END
};

static const struct spec_field fs_fields[] = {
	COMMON_FIELDS,
	{ .name = "on", .type = SPEC_STRLIST, .offset = L(on), .required = true, .value = SPEC_V_NAME },
	{ .name = "fstype", .type = SPEC_ENUM, .offset = L(fstype), .required = true, .choices = fs_types },
	{ .name = "mkfs", .type = SPEC_STRLIST, .offset = L(mkfs), .value = SPEC_V_ARG },
	{ .name = "mount", .type = SPEC_STR, .offset = L(mount_opts), .value = SPEC_V_OPTS },
	SPEC_END
};

static const struct spec_field overlay_fields[] = {
	COMMON_FIELDS,
	{ .name = "lower", .type = SPEC_STR, .offset = L(lower), .required = true, .value = SPEC_V_NAME },
	{ .name = "upper", .type = SPEC_STR, .offset = L(upper), .required = true, .value = SPEC_V_NAME },
	SPEC_END
};

static const struct spec_field swap_fields[] = {
	COMMON_FIELDS,
	{ .name = "on", .type = SPEC_STRLIST, .offset = L(on), .required = true, .value = SPEC_V_NAME },
	{ .name = "priority", .type = SPEC_INT, .offset = L(priority), .max = 32767 },
	SPEC_END
};

/*
 * dm-delay: a bio-based device that takes every bio at once and hands it
 * to the device below after delay_ms, from its own worker (kdelayd). The
 * submitter never waits for a request tag of the device below, which is
 * what the premature-OOM claim's control "a queue that never blocks"
 * needs (issue #26). 0 ms remaps in the submitter's context (6.1's
 * delay_bio(): no delay, DM_MAPIO_REMAPPED), which then waits for the
 * lower device's tags as without the layer: a pass-through, which a
 * stall: can suspend (a suspend of a 1 ms dm-delay first waits for all
 * it holds, seconds on a slow disk).
 */
/*
 * stall: the device suspended count times during the workload (struct
 * topo_stall). A suspend first waits for every bio the device holds
 * (dm-delay's presuspend hands its queue down), so the suspended state
 * lasts suspend_ms from the moment the suspend is done; a suspend under
 * 100 ms would be lost in one reclaim pass.
 */
#define ST(field) offsetof(struct topo_stall, field)
static const struct spec_field stall_fields[] = {
	{ .name = "after_ms", .type = SPEC_INT, .offset = ST(after_ms), .max = 600000 },
	{ .name = "suspend_ms", .type = SPEC_INT, .offset = ST(suspend_ms), .required = true, .min = 100, .max = 60000 },
	{ .name = "resume_ms", .type = SPEC_INT, .offset = ST(resume_ms), .required = true, .min = 100, .max = 600000 },
	{ .name = "count", .type = SPEC_INT, .offset = ST(count), .required = true, .min = 1, .max = 100 },
	SPEC_END
};

static const struct spec_field dm_delay_fields[] = {
	COMMON_FIELDS,
	{ .name = "on", .type = SPEC_STRLIST, .offset = L(on), .required = true, .value = SPEC_V_NAME },
	{ .name = "delay_ms", .type = SPEC_INT, .offset = L(delay_ms), .required = true, .max = 60000 },
	SPEC_SUBMAP_AT("stall", false, stall_fields, L(stall)),
	SPEC_END
};

static const struct {
	const char *name;
	enum layer_type type;
	const struct spec_field *fields;
} layer_types[] = {
	{ "disk", LAYER_DISK, disk_fields },
	{ "md", LAYER_MD, md_fields },
	{ "iscsi-target", LAYER_ISCSI_TARGET, target_fields },
	{ "iscsi-initiator", LAYER_ISCSI_INITIATOR, initiator_fields },
	{ "fs", LAYER_FS, fs_fields },
	{ "overlay", LAYER_OVERLAY, overlay_fields },
	{ "swap", LAYER_SWAP, swap_fields },
	{ "dm-delay", LAYER_DM_DELAY, dm_delay_fields },
};

static int parse_layers(struct spec_file *sf, yaml_node_t *n, const char *field,
			void *obj);

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
	for (size_t i = 0; i < ARRAY_SIZE(layer_types); i++) {
		if (strcmp(layer_types[i].name, type))
			continue;
		l->type = layer_types[i].type;
		return spec_apply(sf, n, layer_types[i].fields, l, prefix);
	}
	snprintf(field, sizeof(field), "%s.type", prefix);
	for (size_t i = 0; i < ARRAY_SIZE(layer_types); i++)
		strbuf_addf(&known, "%s%s", i ? ", " : "", layer_types[i].name);
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

const struct topo_layer *topology_find(const struct topology_spec *t,
				       const char *name)
{
	for (size_t i = 0; i < t->nr_layers; i++)
		if (t->layers[i].name && !strcmp(t->layers[i].name, name))
			return &t->layers[i];
	return NULL;
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
	return t == LAYER_DISK || t == LAYER_MD || t == LAYER_ISCSI_INITIATOR ||
	       t == LAYER_DM_DELAY;
}

static bool provides_mount(enum layer_type t)
{
	return t == LAYER_FS || t == LAYER_OVERLAY;
}

static const char *layer_guest(const struct topo_layer *l)
{
	return l->guest ? l->guest : "main";
}

/* Error at a layer: file:line: layers[i].field: message. */
#define LAYER_ERR(sf, t, l, fld, ...)                                 \
	do {                                                          \
		char _f[96];                                          \
		snprintf(_f, sizeof(_f), "layers[%zu].%s",            \
			 (size_t)((l) - (t)->layers), fld);           \
		strbuf_addf(&(sf)->errors, "%s:%d: %s: ", (sf)->path, \
			    (l)->line, _f);                           \
		strbuf_addf(&(sf)->errors, __VA_ARGS__);              \
		strbuf_addch(&(sf)->errors, '\n');                    \
		(sf)->nr_errors++;                                    \
	} while (0)

static void check_refs(struct spec_file *sf, struct topology_spec *t,
		       struct topo_layer *l)
{
	size_t min_on = l->type == LAYER_MD ? 2 : 1;
	size_t max_on = l->type == LAYER_MD ? 16 : 1;

	if (l->type != LAYER_DISK && l->type != LAYER_OVERLAY &&
	    (l->on.n < min_on || l->on.n > max_on))
		LAYER_ERR(sf, t, l, "on",
			  "%s takes %zu%s lower layer%s, not %zu", l->type_name,
			  min_on, max_on > 1 ? " or more" : "",
			  min_on > 1 ? "s" : "", l->on.n);
	for (size_t i = 0; i < l->on.n; i++) {
		const struct topo_layer *lo = topology_find(t, l->on.v[i]);

		if (!lo) {
			LAYER_ERR(sf, t, l, "on", "no layer named '%s'",
				  l->on.v[i]);
			continue;
		}
		if (lo == l) {
			LAYER_ERR(sf, t, l, "on",
				  "a layer cannot sit on itself");
			continue;
		}
		if (l->type == LAYER_ISCSI_INITIATOR) {
			if (lo->type != LAYER_ISCSI_TARGET)
				LAYER_ERR(
					sf, t, l, "on",
					"an iscsi-initiator logs in to an iscsi-target layer, '%s' is %s",
					lo->name, lo->type_name);
			continue;
		}
		if (!provides_block(lo->type))
			LAYER_ERR(sf, t, l, "on",
				  "'%s' (%s) provides no block device for %s",
				  lo->name, lo->type_name, l->type_name);
		if (strcmp(layer_guest(lo), layer_guest(l)))
			LAYER_ERR(
				sf, t, l, "on",
				"'%s' is in guest %s, this layer in guest %s (only iSCSI crosses guests)",
				lo->name, layer_guest(lo), layer_guest(l));
	}
	if (l->type == LAYER_OVERLAY) {
		const char *which[] = { l->lower, l->upper };
		const char *fld[] = { "lower", "upper" };

		for (int i = 0; i < 2; i++) {
			const struct topo_layer *lo =
				topology_find(t, which[i]);

			if (!lo)
				LAYER_ERR(sf, t, l, fld[i],
					  "no layer named '%s'", which[i]);
			else if (lo->type != LAYER_FS)
				LAYER_ERR(
					sf, t, l, fld[i],
					"overlay dirs live on an fs layer, '%s' is %s",
					lo->name, lo->type_name);
			else if (!spec_strlist_has(&l->on, lo->name))
				spec_strlist_add(&l->on, lo->name);
		}
	}
	if (l->type == LAYER_DISK) {
		long long count = strcmp(layer_guest(l), "target") ?
					  t->disks.count :
					  t->target_disks.count;

		if (l->index >= count)
			LAYER_ERR(
				sf, t, l, "index",
				"disk %lld does not exist (guest %s has %lld disks)",
				l->index, layer_guest(l), count);
	}
	if (l->type == LAYER_MD) {
		long long lv = l->level;
		size_t need = lv == 0 || lv == 1 ? 2 :
			      lv == 5		 ? 3 :
			      lv == 6		 ? 4 :
			      lv == 10		 ? 2 :
						   0;

		if (!need)
			LAYER_ERR(sf, t, l, "level",
				  "md level %lld is not one of 0, 1, 5, 6, 10",
				  lv);
		else if (l->on.n < need)
			LAYER_ERR(
				sf, t, l, "on",
				"RAID%lld needs at least %zu members, has %zu",
				lv, need, l->on.n);
		if (l->chunk) {
			uint64_t c;

			if (spec_parse_size(l->chunk, &c) || c < 4096 ||
			    (c & (c - 1)))
				LAYER_ERR(
					sf, t, l, "chunk",
					"'%s' is not a power-of-two size >= 4K",
					l->chunk);
		}
		/* RAID0 has no redundancy to resync: mdadm refuses a bitmap. */
		if (lv == 0 && l->bitmap && strcmp(l->bitmap, "none"))
			LAYER_ERR(
				sf, t, l, "bitmap",
				"RAID0 has no write-intent bitmap, only none");
	}
	if (l->type == LAYER_ISCSI_TARGET && !starts_with(l->iqn, "iqn."))
		LAYER_ERR(sf, t, l, "iqn",
			  "'%s' is not an IQN (iqn.YYYY-MM.domain:name)",
			  l->iqn);
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
				LAYER_ERR(
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
			LAYER_ERR(sf, t, l, "name",
				  "'%s' must be [A-Za-z0-9._-]+", l->name);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(t->layers[k].name, l->name))
				LAYER_ERR(
					sf, t, l, "name",
					"duplicate layer name '%s' (first at line %d)",
					l->name, t->layers[k].line);
		if (!l->guest)
			l->guest = xstrdup("main");
		/* QEMU's virtio-blk takes a power of two. */
		if (l->iotune.queue_size & (l->iotune.queue_size - 1))
			LAYER_ERR(sf, t, l, "queue_size",
				  "%lld is not a power of two (4..1024)",
				  l->iotune.queue_size);
		/* The stall runs with the workload, which a target guest has not. */
		if (l->stall.count && strcmp(l->guest, "main"))
			LAYER_ERR(
				sf, t, l, "stall",
				"a stall runs beside the workload, in guest main, not %s",
				l->guest);
		if (!strcmp(l->guest, "target") && !t->target_disks.count)
			LAYER_ERR(
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
			LAYER_ERR(sf, t, &t->layers[i], "on",
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

		free(l->name);
		free(l->type_name);
		spec_strlist_free(&l->on);
		free(l->guest);
		free(l->chunk);
		free(l->bitmap);
		free(l->backstore);
		free(l->iqn);
		free(l->acl);
		free(l->fstype);
		spec_strlist_free(&l->mkfs);
		free(l->mount_opts);
		free(l->lower);
		free(l->upper);
	}
	free(t->layers);
	free(t->name);
	free(t->path);
	free(t->description);
	free(t->mount);
	memset(t, 0, sizeof(*t));
}
