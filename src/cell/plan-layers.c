// SPDX-License-Identifier: GPL-2.0
/*
 * The layer types of a topology, the planner's half: one row each, with
 * its setup steps, its teardown, what topology.txt captures, the stack
 * probes it needs, its steps beside the workload and its keys in
 * cell.json (cell/plan-int.h). The loader's half is spec/layers.c.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell/plan-int.h"
#include "cell/plan-stall.h"
#include "collect/stackprobe.h"
#include "util/log.h"
#include "util/strvec.h"

char *plan_mount_dir(const struct topo_layer *l)
{
	return xasprintf("/mnt/%s", l->name);
}

bool plan_in_role(const struct topo_layer *l, enum plan_role role)
{
	return !strcmp(l->guest, role == PLAN_TARGET ? "target" : "main");
}

const char *plan_dev_of(const struct planner *pl, const struct topo_layer *l)
{
	return pl->devs->dev[l - pl->t->layers];
}

const char *plan_named_dev(const struct planner *pl, const char *name)
{
	return plan_dev_of(pl, topology_find(pl->t, name));
}

const char *plan_lower_dev(const struct planner *pl, const struct topo_layer *l,
			   size_t i)
{
	return plan_named_dev(pl, l->on.v[i]);
}

const char *plan_set_dev(struct planner *pl, const struct topo_layer *l,
			 char *dev)
{
	char **slot = &pl->devs->dev[l - pl->t->layers];

	free(*slot);
	*slot = dev;
	return dev;
}

static json_object *JS(const char *s)
{
	return json_object_new_string(s ? s : "");
}

static void setup_disk(struct planner *pl, const struct topo_layer *l)
{
	plan_set_dev(pl, l, xasprintf("@disk:wblab-disk%lld", l->index));
}

static void setup_md(struct planner *pl, const struct topo_layer *l)
{
	const char *dev = plan_set_dev(pl, l, xasprintf("/dev/md%d", pl->md++));
	struct strvec a = STRVEC_INIT;

	TRY(pl->p, "md:modprobe", "modprobe", "-a", "md_mod", "raid0", "raid1",
	    "raid456", "raid10");
	strvec_pushl(&a, "mdadm", "--create", dev, "--run", "--metadata=1.2",
		     NULL);
	strvec_pushf(&a, "--level=%lld", l->level);
	strvec_pushf(&a, "--raid-devices=%zu", l->on.n);
	/* No initial resync: it would compete with the workload's I/O. */
	if (l->level)
		strvec_push(&a, "--assume-clean");
	if (l->chunk && l->level != 1) {
		uint64_t c = 0;

		spec_parse_size(l->chunk, &c);
		strvec_pushf(&a, "--chunk=%lluK",
			     (unsigned long long)(c >> 10));
	}
	if (l->bitmap)
		strvec_pushf(&a, "--bitmap=%s", l->bitmap);
	for (size_t i = 0; i < l->on.n; i++)
		strvec_push(&a, plan_lower_dev(pl, l, i));
	plan_step_argv(pl->p, VERB_RUN, l->name, STEP_TIMEOUT, a.v);
	strvec_clear(&a);
}

static void teardown_md(struct planner *pl, const struct topo_layer *l,
			const char *dev)
{
	TRY(pl->p, l->name, "mdadm", "--stop", dev);
}

static void capture_md(struct strbuf *p)
{
	CAPTURE(p, "/proc/mdstat", "cat", "/proc/mdstat");
}

static unsigned int stack_md(const struct topo_layer *l)
{
	if (l->level == 1)
		return STACK_NEED_RAID1;
	if (l->level >= 4 && l->level <= 6)
		return STACK_NEED_RAID5;
	return 0;
}

static void record_md(json_object *lj, const struct topo_layer *l)
{
	json_object_object_add(lj, "level", json_object_new_int64(l->level));
}

static void setup_fs(struct planner *pl, const struct topo_layer *l)
{
	struct strbuf *p = pl->p;
	const char *dev = plan_lower_dev(pl, l, 0);
	const char *mnt = plan_set_dev(pl, l, plan_mount_dir(l));
	char *label = xasprintf("%s:mkfs", l->name);
	struct strvec a = STRVEC_INIT;

	strvec_pushf(&a, "mkfs.%s", l->fstype);
	/* Overwrite what is there, quietly: mkfs.ext4 -F, the others -f. */
	strvec_push(&a, !strcmp(l->fstype, "ext4") ? "-F" : "-f");
	if (strcmp(l->fstype, "xfs"))
		strvec_push(&a, "-q");
	for (size_t i = 0; i < l->mkfs.n; i++)
		strvec_push(&a, l->mkfs.v[i]);
	strvec_push(&a, dev);
	plan_step_argv(p, VERB_RUN, label, "600", a.v);
	free(label);
	label = xasprintf("%s:mount", l->name);
	/*
	 * The agent makes the mount point itself (no mkdir -p to start: 80-130
	 * ms under TCG); if it cannot, the mount fails the setup.
	 */
	plan_step(p, VERB_MKDIR, mnt, NULL);
	if (l->mount_opts)
		RUN(p, label, "mount", "-t", l->fstype, "-o", l->mount_opts,
		    dev, mnt);
	else
		RUN(p, label, "mount", "-t", l->fstype, dev, mnt);
	free(label);
	strvec_clear(&a);
}

/* fs and overlay: the mount goes. */
static void teardown_mount(struct planner *pl, const struct topo_layer *l,
			   const char *dev)
{
	TRY(pl->p, l->name, "umount", dev);
}

static unsigned int stack_fs(const struct topo_layer *l)
{
	if (!l->fstype)
		return 0;
	if (!strcmp(l->fstype, "xfs"))
		return STACK_NEED_XFS;
	if (!strcmp(l->fstype, "f2fs"))
		return STACK_NEED_F2FS;
	return 0;
}

static void record_fs(json_object *lj, const struct topo_layer *l)
{
	if (l->fstype)
		json_object_object_add(lj, "fstype", JS(l->fstype));
}

/*
 * Swap on a block device of the stack: anonymous reclaim then writes
 * through every layer below it (md, iSCSI, the target's disk).
 */
static void setup_swap(struct planner *pl, const struct topo_layer *l)
{
	struct strbuf *p = pl->p;
	const char *dev =
		plan_set_dev(pl, l, xstrdup(plan_lower_dev(pl, l, 0)));
	char *label = xasprintf("%s:mkswap", l->name);
	char prio[24];

	RUN(p, label, "mkswap", "-f", dev);
	free(label);
	label = xasprintf("%s:swapon", l->name);
	if (l->priority >= 0) {
		snprintf(prio, sizeof(prio), "%lld", l->priority);
		RUN(p, label, "swapon", "-p", prio, dev);
	} else {
		RUN(p, label, "swapon", dev);
	}
	free(label);
}

static void teardown_swap(struct planner *pl, const struct topo_layer *l,
			  const char *dev)
{
	/* The workload has exited: little is left to read back. */
	TRY(pl->p, l->name, "swapoff", dev);
}

static void capture_swap(struct strbuf *p)
{
	CAPTURE(p, "/proc/swaps", "cat", "/proc/swaps");
}

static void record_swap(json_object *lj, const struct topo_layer *l)
{
	if (l->priority >= 0)
		json_object_object_add(lj, "priority",
				       json_object_new_int64(l->priority));
}

/*
 * dm-delay over a block device of the stack, the whole device: the
 * agent's dm-delay helper reads the lower device's size and runs
 * dmsetup create (the table needs the length in sectors, which only the
 * guest knows for an md array or a LUN). The guest has no udev, so
 * dmsetup makes /dev/mapper/NAME itself.
 */
static void setup_dm_delay(struct planner *pl, const struct topo_layer *l)
{
	char *dev = xasprintf("/dev/mapper/%s", l->name);
	char ms[24];

	snprintf(ms, sizeof(ms), "%lld", l->delay_ms);
	RUN(pl->p, l->name, "/run/wblab-agent", "dm-delay", l->name,
	    plan_lower_dev(pl, l, 0), ms);
	RUN(pl->p, l->name, "dmsetup", "mknodes", l->name);
	plan_set_dev(pl, l, dev);
}

static void teardown_dm_delay(struct planner *pl, const struct topo_layer *l,
			      const char *dev)
{
	TRY(pl->p, l->name, "dmsetup", "remove", l->name);
}

static void capture_dm(struct strbuf *p)
{
	CAPTURE(p, "dmsetup table", "dmsetup", "table");
}

/* A dm-delay layer's stall schedule, as the topology gave it. */
static json_object *stall_json(const struct topo_stall *st)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "after_ms",
			       json_object_new_int64(st->after_ms));
	json_object_object_add(o, "suspend_ms",
			       json_object_new_int64(st->suspend_ms));
	json_object_object_add(o, "resume_ms",
			       json_object_new_int64(st->resume_ms));
	json_object_object_add(o, "count", json_object_new_int64(st->count));
	return o;
}

static void record_dm_delay(json_object *lj, const struct topo_layer *l)
{
	json_object_object_add(lj, "delay_ms",
			       json_object_new_int64(l->delay_ms));
	if (l->stall.count)
		json_object_object_add(lj, "stall", stall_json(&l->stall));
}

static void setup_overlay(struct planner *pl, const struct topo_layer *l)
{
	struct strbuf *p = pl->p;
	const char *lo = plan_named_dev(pl, l->lower);
	const char *up = plan_named_dev(pl, l->upper);
	char *lower = xasprintf("%s/ovl-lower", lo);
	char *upper = xasprintf("%s/ovl-upper", up);
	char *work = xasprintf("%s/ovl-work", up);
	char *opts = xasprintf("lowerdir=%s,upperdir=%s,workdir=%s", lower,
			       upper, work);
	const char *mnt = plan_set_dev(pl, l, plan_mount_dir(l));

	TRY(p, "overlay:modprobe", "modprobe", "overlay");
	RUN(p, l->name, "mkdir", "-p", lower, upper, work, mnt);
	RUN(p, l->name, "mount", "-t", "overlay", "overlay", "-o", opts, mnt);
	free(lower);
	free(upper);
	free(work);
	free(opts);
}

/* The device an initiator names a target's LUN by, in either guest. */
static void target_dev(struct planner *pl, const struct topo_layer *l)
{
	plan_set_dev(pl, l, xasprintf("%s:%lld", l->iqn, l->lun));
}

static void target_modules(struct strbuf *p)
{
	TRY(p, "target:modprobe", "modprobe", "-a", "target_core_mod",
	    "iscsi_target_mod", "target_core_iblock", "target_core_file");
	TRY(p, "target:configfs", "mount", "-t", "configfs", "configfs",
	    "/sys/kernel/config");
	/* targetcli looks for tcmu-runner on the system bus. */
	RUN(p, "target:dbus", "mkdir", "-p", "/run/dbus");
	RUN(p, "target:dbus", "dbus-daemon", "--system", "--fork");
}

static void setup_target(struct planner *pl, const struct topo_layer *l)
{
	struct strbuf *p = pl->p;
	const char *dev = plan_lower_dev(pl, l, 0);
	bool fileio = l->backstore && !strcmp(l->backstore, "fileio");
	char *bs = xasprintf("/backstores/%s/%s", fileio ? "fileio" : "block",
			     l->name);
	char *bsdir = xasprintf("/backstores/%s", fileio ? "fileio" : "block");
	char *name = xasprintf("name=%s", l->name);
	char *devarg = xasprintf("%s=%s", fileio ? "file_or_dev" : "dev", dev);
	char *tpg = xasprintf("/iscsi/%s/tpg1", l->iqn);
	char *luns = xasprintf("%s/luns", tpg);
	char *lun = xasprintf("lun=%lld", l->lun);

	target_dev(pl, l);
	if (!pl->targets)
		target_modules(p);
	pl->targets = true;
	RUN(p, l->name, "targetcli", bsdir, "create", name, devarg);
	RUN(p, l->name, "targetcli", "/iscsi", "create", l->iqn);
	RUN(p, l->name, "targetcli", luns, "create", bs, lun);
	if (l->acl) {
		char *acls = xasprintf("%s/acls", tpg);

		RUN(p, l->name, "targetcli", acls, "create", l->acl);
		RUN(p, l->name, "targetcli", tpg, "set", "attribute",
		    "authentication=0");
		free(acls);
	} else {
		/* Lab network only: any initiator may log in, no CHAP. */
		RUN(p, l->name, "targetcli", tpg, "set", "attribute",
		    "authentication=0", "demo_mode_write_protect=0",
		    "generate_node_acls=1", "cache_dynamic_acls=1");
	}
	free(bs);
	free(bsdir);
	free(name);
	free(devarg);
	free(tpg);
	free(luns);
	free(lun);
}

static void teardown_target(struct planner *pl, const struct topo_layer *l,
			    const char *dev)
{
	TRY(pl->p, l->name, "targetcli", "clearconfig", "confirm=True");
}

static void capture_target(struct strbuf *p)
{
	CAPTURE(p, "targetcli ls", "targetcli", "ls");
}

static void record_target(json_object *lj, const struct topo_layer *l)
{
	if (l->iqn)
		json_object_object_add(lj, "iqn", JS(l->iqn));
}

static const char *initiator_iqn(enum plan_role role)
{
	return role == PLAN_TARGET ? "iqn.2026-12.org.wblab:target-guest" :
				     "iqn.2026-12.org.wblab:main-guest";
}

static void setup_initiator(struct planner *pl, const struct topo_layer *l)
{
	struct strbuf *p = pl->p;
	const struct plan_opts *o = pl->o;
	const struct topo_layer *tg = topology_find(pl->t, l->on.v[0]);
	const char *portal = strcmp(tg->guest, l->guest) && o->target_ip ?
				     o->target_ip :
				     "127.0.0.1";
	char *name = xasprintf("InitiatorName=%s\n", initiator_iqn(o->role));

	plan_set_dev(pl, l, xasprintf("@iscsi:%s:%lld", tg->iqn, tg->lun));
	if (!pl->iscsid) {
		TRY(p, "iscsi:modprobe", "modprobe", "-a", "iscsi_tcp",
		    "sd_mod");
		plan_step(p, VERB_PUT, "/etc/iscsi/initiatorname.iscsi", name,
			  NULL);
		RUN(p, "iscsid", "iscsid");
		pl->iscsid = true;
	}
	RUN(p, l->name, "iscsiadm", "-m", "discovery", "-t", "sendtargets",
	    "-p", portal);
	RUN(p, l->name, "iscsiadm", "-m", "node", "-T", tg->iqn, "-p", portal,
	    "--login");
	free(name);
}

static void teardown_initiator(struct planner *pl, const struct topo_layer *l,
			       const char *dev)
{
	TRY(pl->p, l->name, "iscsiadm", "-m", "node", "--logoutall=all");
}

static void capture_initiator(struct strbuf *p)
{
	CAPTURE(p, "iscsiadm -m session", "iscsiadm", "-m", "session");
	CAPTURE(p, "iscsiadm -m session -P 1", "iscsiadm", "-m", "session",
		"-P", "1");
}

static unsigned int stack_initiator(const struct topo_layer *l)
{
	return STACK_NEED_ISCSI;
}

/*
 * zram: the module (built in on the lab's kernels, where modprobe does
 * nothing) makes /dev/zram0; zramctl sets its compressor, then its size.
 */
static void setup_zram(struct planner *pl, const struct topo_layer *l)
{
	const char *dev = plan_set_dev(pl, l, xstrdup("/dev/zram0"));
	char size[24];

	snprintf(size, sizeof(size), "%llu", (unsigned long long)l->size);
	TRY(pl->p, "zram:modprobe", "modprobe", "zram");
	if (l->algorithm)
		RUN(pl->p, l->name, "zramctl", "--algorithm", l->algorithm,
		    "--size", size, dev);
	else
		RUN(pl->p, l->name, "zramctl", "--size", size, dev);
}

static void teardown_zram(struct planner *pl, const struct topo_layer *l,
			  const char *dev)
{
	TRY(pl->p, l->name, "zramctl", "--reset", dev);
}

/* After the workload: what it stored and what that compressed to. */
static void capture_zram(struct strbuf *p)
{
	CAPTURE(p, "zramctl", "zramctl", "--bytes");
}

static void record_zram(json_object *lj, const struct topo_layer *l)
{
	json_object_object_add(lj, "size", json_object_new_int64(l->size));
	if (l->algorithm)
		json_object_object_add(lj, "algorithm", JS(l->algorithm));
}

/* clang-format off */
const struct layer_steps plan_layer_table[LAYER_TYPES] = {
	{ .type = LAYER_DISK, .setup = setup_disk },
	{ .type = LAYER_MD, .setup = setup_md, .teardown = teardown_md,
	  .capture = capture_md, .stack_need = stack_md, .record = record_md },
	{ .type = LAYER_ISCSI_INITIATOR, .setup = setup_initiator,
	  .teardown = teardown_initiator, .capture = capture_initiator,
	  .stack_need = stack_initiator },
	{ .type = LAYER_ISCSI_TARGET, .setup = setup_target,
	  .elsewhere = target_dev, .teardown = teardown_target,
	  .capture = capture_target, .record = record_target },
	{ .type = LAYER_FS, .setup = setup_fs, .teardown = teardown_mount,
	  .stack_need = stack_fs, .record = record_fs },
	{ .type = LAYER_OVERLAY, .setup = setup_overlay,
	  .teardown = teardown_mount },
	{ .type = LAYER_SWAP, .setup = setup_swap, .teardown = teardown_swap,
	  .capture = capture_swap, .record = record_swap },
	{ .type = LAYER_DM_DELAY, .setup = setup_dm_delay,
	  .teardown = teardown_dm_delay, .capture = capture_dm,
	  .workload_start = plan_stall_start, .workload_end = plan_stall_end,
	  .record = record_dm_delay },
	{ .type = LAYER_ZRAM, .setup = setup_zram, .teardown = teardown_zram,
	  .capture = capture_zram, .record = record_zram },
};
/* clang-format on */

const struct layer_steps *plan_layer_steps(enum layer_type type)
{
	for (size_t i = 0; i < LAYER_TYPES; i++)
		if (plan_layer_table[i].type == type)
			return &plan_layer_table[i];
	die("layer type %d has no row in plan_layer_table", (int)type);
}

void plan_layer_record(struct json_object *lj, const struct topo_layer *l)
{
	const struct layer_steps *s = plan_layer_steps(l->type);

	if (s->record)
		s->record(lj, l);
}
