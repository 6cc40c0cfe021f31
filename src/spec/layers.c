// SPDX-License-Identifier: GPL-2.0
/*
 * The layer types of a topology, the loader's half: one row each, with
 * its fields and its own checks (spec/layers.h). spec/topology.c reads a
 * layer through its row and checks what every layer shares (names,
 * references, cycles, one user per block device).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "spec/layers.h"
#include "util/str.h"

#define L(field) offsetof(struct topo_layer, field)

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
#define ON_FIELD \
	{ .name = "on", .type = SPEC_STRLIST, .offset = L(on), .required = true, .value = SPEC_V_NAME }

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
	ON_FIELD,
	{ .name = "level", .type = SPEC_INT, .offset = L(level), .required = true, .max = 10 },
	{ .name = "chunk", .type = SPEC_STR, .offset = L(chunk), .value = SPEC_V_WORD },
	{ .name = "bitmap", .type = SPEC_ENUM, .offset = L(bitmap), .choices = md_bitmaps },
	SPEC_END
};

static const struct spec_field target_fields[] = {
	COMMON_FIELDS,
	ON_FIELD,
	{ .name = "backstore", .type = SPEC_ENUM, .offset = L(backstore), .choices = backstores },
	{ .name = "iqn", .type = SPEC_STR, .offset = L(iqn), .required = true, .value = SPEC_V_IQN },
	{ .name = "lun", .type = SPEC_INT, .offset = L(lun), .max = 255 },
	{ .name = "acl", .type = SPEC_STR, .offset = L(acl), .value = SPEC_V_IQN },
	SPEC_END
};

static const struct spec_field initiator_fields[] = {
	COMMON_FIELDS,
	ON_FIELD,
	SPEC_END
};

static const struct spec_field fs_fields[] = {
	COMMON_FIELDS,
	ON_FIELD,
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
	ON_FIELD,
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
	ON_FIELD,
	{ .name = "delay_ms", .type = SPEC_INT, .offset = L(delay_ms), .required = true, .max = 60000 },
	SPEC_SUBMAP_AT("stall", false, stall_fields, L(stall)),
	SPEC_END
};

/*
 * zram: a compressed RAM block device, /dev/zram0, of size bytes: swap
 * on it makes anonymous reclaim cost CPU and memory, not I/O (the
 * mixed-reclaim-zram workload made one by hand in its pre: steps).
 */
static const struct spec_field zram_fields[] = {
	COMMON_FIELDS,
	{ .name = "size", .type = SPEC_SIZE, .offset = L(size), .required = true, .min = 1LL << 20, .max = 64LL << 30 },
	{ .name = "algorithm", .type = SPEC_STR, .offset = L(algorithm), .value = SPEC_V_NAME },
	SPEC_END
};
/* clang-format on */

/* Here, not in topology.c, so that the checks below call nothing there. */
const struct topo_layer *topology_find(const struct topology_spec *t,
				       const char *name)
{
	for (size_t i = 0; i < t->nr_layers; i++)
		if (t->layers[i].name && !strcmp(t->layers[i].name, name))
			return &t->layers[i];
	return NULL;
}

const char *layer_guest(const struct topo_layer *l)
{
	return l->guest ? l->guest : "main";
}

void layer_error(struct spec_file *sf, const struct topology_spec *t,
		 const struct topo_layer *l, const char *field, const char *fmt,
		 ...)
{
	va_list ap;

	strbuf_addf(&sf->errors, "%s:%d: layers[%zu].%s: ", sf->path, l->line,
		    (size_t)(l - t->layers), field);
	va_start(ap, fmt);
	strbuf_vaddf(&sf->errors, fmt, ap);
	va_end(ap);
	strbuf_addch(&sf->errors, '\n');
	sf->nr_errors++;
}

static void check_disk(struct spec_file *sf, struct topology_spec *t,
		       struct topo_layer *l)
{
	/* QEMU's virtio-blk takes a power of two. */
	if (l->iotune.queue_size & (l->iotune.queue_size - 1))
		layer_error(sf, t, l, "queue_size",
			    "%lld is not a power of two (4..1024)",
			    l->iotune.queue_size);
}

static void check_disk_index(struct spec_file *sf, struct topology_spec *t,
			     struct topo_layer *l)
{
	long long count = strcmp(layer_guest(l), "target") ?
				  t->disks.count :
				  t->target_disks.count;

	if (l->index >= count)
		layer_error(
			sf, t, l, "index",
			"disk %lld does not exist (guest %s has %lld disks)",
			l->index, layer_guest(l), count);
}

static void check_md(struct spec_file *sf, struct topology_spec *t,
		     struct topo_layer *l)
{
	long long lv = l->level;
	size_t need = lv == 0 || lv == 1 ? 2 :
		      lv == 5		 ? 3 :
		      lv == 6		 ? 4 :
		      lv == 10		 ? 2 :
					   0;

	if (!need)
		layer_error(sf, t, l, "level",
			    "md level %lld is not one of 0, 1, 5, 6, 10", lv);
	else if (l->on.n < need)
		layer_error(sf, t, l, "on",
			    "RAID%lld needs at least %zu members, has %zu", lv,
			    need, l->on.n);
	if (l->chunk) {
		uint64_t c;

		if (spec_parse_size(l->chunk, &c) || c < 4096 || (c & (c - 1)))
			layer_error(sf, t, l, "chunk",
				    "'%s' is not a power-of-two size >= 4K",
				    l->chunk);
	}
	/* RAID0 has no redundancy to resync: mdadm refuses a bitmap. */
	if (lv == 0 && l->bitmap && strcmp(l->bitmap, "none"))
		layer_error(sf, t, l, "bitmap",
			    "RAID0 has no write-intent bitmap, only none");
}

static void check_target(struct spec_file *sf, struct topology_spec *t,
			 struct topo_layer *l)
{
	if (!starts_with(l->iqn, "iqn."))
		layer_error(sf, t, l, "iqn",
			    "'%s' is not an IQN (iqn.YYYY-MM.domain:name)",
			    l->iqn);
}

/* An initiator logs in to a target, which may be in the other guest. */
static void check_initiator_lower(struct spec_file *sf, struct topology_spec *t,
				  struct topo_layer *l,
				  const struct topo_layer *lo)
{
	if (lo->type != LAYER_ISCSI_TARGET)
		layer_error(
			sf, t, l, "on",
			"an iscsi-initiator logs in to an iscsi-target layer, '%s' is %s",
			lo->name, lo->type_name);
}

/* lower: and upper: are fs layers; they become its on: (the build order). */
static void check_overlay(struct spec_file *sf, struct topology_spec *t,
			  struct topo_layer *l)
{
	const char *which[] = { l->lower, l->upper };
	const char *fld[] = { "lower", "upper" };

	for (int i = 0; i < 2; i++) {
		const struct topo_layer *lo = topology_find(t, which[i]);

		if (!lo)
			layer_error(sf, t, l, fld[i], "no layer named '%s'",
				    which[i]);
		else if (lo->type != LAYER_FS)
			layer_error(
				sf, t, l, fld[i],
				"overlay dirs live on an fs layer, '%s' is %s",
				lo->name, lo->type_name);
		else if (!spec_strlist_has(&l->on, lo->name))
			spec_strlist_add(&l->on, lo->name);
	}
}

/* The stall runs with the workload, which a target guest has not. */
static void check_dm_delay(struct spec_file *sf, struct topology_spec *t,
			   struct topo_layer *l)
{
	if (l->stall.count && strcmp(l->guest, "main"))
		layer_error(
			sf, t, l, "stall",
			"a stall runs beside the workload, in guest main, not %s",
			l->guest);
}

/*
 * The plan names the device /dev/zram0, the one zram makes when it
 * loads (num_devices=1); a second would need hot_add, whose number only
 * the guest knows.
 */
static void check_zram(struct spec_file *sf, struct topology_spec *t,
		       struct topo_layer *l)
{
	for (const struct topo_layer *e = t->layers; e < l; e++)
		if (e->type == LAYER_ZRAM && !strcmp(e->guest, l->guest))
			layer_error(
				sf, t, l, "type",
				"guest %s has a zram layer already, '%s' (one a guest: /dev/zram0)",
				l->guest, e->name);
}

/* In enum layer_type's order, which is also the order errors list them. */
const struct layer_kind layer_kinds[LAYER_TYPES] = {
	[LAYER_DISK] = { .name = "disk",
			 .fields = disk_fields,
			 .block = true,
			 .check = check_disk,
			 .check_refs = check_disk_index },
	[LAYER_MD] = { .name = "md",
		       .fields = md_fields,
		       .min_on = 2,
		       .max_on = 16,
		       .block = true,
		       .check_refs = check_md },
	[LAYER_ISCSI_TARGET] = { .name = "iscsi-target",
				 .fields = target_fields,
				 .min_on = 1,
				 .max_on = 1,
				 .check_refs = check_target },
	[LAYER_ISCSI_INITIATOR] = { .name = "iscsi-initiator",
				    .fields = initiator_fields,
				    .min_on = 1,
				    .max_on = 1,
				    .block = true,
				    .check_lower = check_initiator_lower },
	[LAYER_FS] = { .name = "fs",
		       .fields = fs_fields,
		       .min_on = 1,
		       .max_on = 1,
		       .mount = true },
	[LAYER_OVERLAY] = { .name = "overlay",
			    .fields = overlay_fields,
			    .mount = true,
			    .check_refs = check_overlay },
	[LAYER_SWAP] = { .name = "swap",
			 .fields = swap_fields,
			 .min_on = 1,
			 .max_on = 1 },
	[LAYER_DM_DELAY] = { .name = "dm-delay",
			     .fields = dm_delay_fields,
			     .min_on = 1,
			     .max_on = 1,
			     .block = true,
			     .check = check_dm_delay },
	[LAYER_ZRAM] = { .name = "zram",
			 .fields = zram_fields,
			 .block = true,
			 .check = check_zram },
};

const struct layer_kind *layer_kind_named(const char *name)
{
	for (size_t i = 0; i < LAYER_TYPES; i++)
		if (layer_kinds[i].name && !strcmp(layer_kinds[i].name, name))
			return &layer_kinds[i];
	return NULL;
}
