// SPDX-License-Identifier: GPL-2.0
/*
 * The planner: turns a topology and a workload into the ordered steps the
 * guest agent runs. Pure: no I/O, and it writes nothing it is handed (the
 * specs are shared by every cell of a run); the guest device each layer
 * ends up as lives in the plan_devs it returns. Unit-tested on the shipped
 * specs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/proto.h"
#include "cell/collectors-plan.h"
#include "cell/plan.h"
#include "cell/plan-failslab.h"
#include "cell/plan-stall.h"
#include "cell/step.h"
#include "collect/stackprobe.h"
#include "util/log.h"
#include "util/strvec.h"

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
};

char *plan_mount_dir(const struct topo_layer *l)
{
	return xasprintf("/mnt/%s", l->name);
}

static const char *initiator_iqn(enum plan_role role)
{
	return role == PLAN_TARGET ? "iqn.2026-12.org.wblab:target-guest" :
				     "iqn.2026-12.org.wblab:main-guest";
}

static bool in_role(const struct topo_layer *l, enum plan_role role)
{
	return !strcmp(l->guest, role == PLAN_TARGET ? "target" : "main");
}

/* The STACK_NEED_* bits of the layers this guest builds. */
static unsigned int stack_layers(const struct topology_spec *t,
				 enum plan_role role)
{
	unsigned int need = 0;

	for (size_t i = 0; i < t->nr_layers; i++) {
		const struct topo_layer *l = &t->layers[i];

		if (!in_role(l, role))
			continue;
		if (l->type == LAYER_FS && !l->fstype)
			continue;
		if (l->type == LAYER_FS && !strcmp(l->fstype, "xfs"))
			need |= STACK_NEED_XFS;
		else if (l->type == LAYER_FS && !strcmp(l->fstype, "f2fs"))
			need |= STACK_NEED_F2FS;
		else if (l->type == LAYER_MD && l->level == 1)
			need |= STACK_NEED_RAID1;
		else if (l->type == LAYER_MD && l->level >= 4 && l->level <= 6)
			need |= STACK_NEED_RAID5;
		else if (l->type == LAYER_ISCSI_INITIATOR)
			need |= STACK_NEED_ISCSI;
	}
	return need;
}

/* The guest device of a layer so far, or NULL. */
static const char *dev_of(const struct planner *pl, const struct topo_layer *l)
{
	return pl->devs->dev[l - pl->t->layers];
}

static const char *named_dev(const struct planner *pl, const char *name)
{
	return dev_of(pl, topology_find(pl->t, name));
}

static const char *lower_dev(const struct planner *pl,
			     const struct topo_layer *l, size_t i)
{
	return named_dev(pl, l->on.v[i]);
}

/* Record the layer's device (taking dev); returns it. */
static const char *set_dev(struct planner *pl, const struct topo_layer *l,
			   char *dev)
{
	char **slot = &pl->devs->dev[l - pl->t->layers];

	free(*slot);
	*slot = dev;
	return dev;
}

static void setup_md(struct planner *pl, const struct topo_layer *l, int nr)
{
	const char *dev = set_dev(pl, l, xasprintf("/dev/md%d", nr));
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
		strvec_push(&a, lower_dev(pl, l, i));
	plan_step_argv(pl->p, VERB_RUN, l->name, STEP_TIMEOUT, a.v);
	strvec_clear(&a);
}

static void setup_fs(struct planner *pl, const struct topo_layer *l)
{
	struct strbuf *p = pl->p;
	const char *dev = lower_dev(pl, l, 0);
	const char *mnt = set_dev(pl, l, plan_mount_dir(l));
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

/*
 * Swap on a block device of the stack: anonymous reclaim then writes
 * through every layer below it (md, iSCSI, the target's disk).
 */
static void setup_swap(struct planner *pl, const struct topo_layer *l)
{
	struct strbuf *p = pl->p;
	const char *dev = set_dev(pl, l, xstrdup(lower_dev(pl, l, 0)));
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
	    lower_dev(pl, l, 0), ms);
	RUN(pl->p, l->name, "dmsetup", "mknodes", l->name);
	set_dev(pl, l, dev);
}

static void setup_overlay(struct planner *pl, const struct topo_layer *l)
{
	struct strbuf *p = pl->p;
	const char *lo = named_dev(pl, l->lower);
	const char *up = named_dev(pl, l->upper);
	char *lower = xasprintf("%s/ovl-lower", lo);
	char *upper = xasprintf("%s/ovl-upper", up);
	char *work = xasprintf("%s/ovl-work", up);
	char *opts = xasprintf("lowerdir=%s,upperdir=%s,workdir=%s", lower,
			       upper, work);
	const char *mnt = set_dev(pl, l, plan_mount_dir(l));

	TRY(p, "overlay:modprobe", "modprobe", "overlay");
	RUN(p, l->name, "mkdir", "-p", lower, upper, work, mnt);
	RUN(p, l->name, "mount", "-t", "overlay", "overlay", "-o", opts, mnt);
	free(lower);
	free(upper);
	free(work);
	free(opts);
}

/* The device an initiator names a target's LUN by. */
static char *target_dev(const struct topo_layer *l)
{
	return xasprintf("%s:%lld", l->iqn, l->lun);
}

static void setup_target(struct planner *pl, const struct topo_layer *l,
			 bool first)
{
	struct strbuf *p = pl->p;
	const char *dev = lower_dev(pl, l, 0);
	bool fileio = l->backstore && !strcmp(l->backstore, "fileio");
	char *bs = xasprintf("/backstores/%s/%s", fileio ? "fileio" : "block",
			     l->name);
	char *bsdir = xasprintf("/backstores/%s", fileio ? "fileio" : "block");
	char *name = xasprintf("name=%s", l->name);
	char *devarg = xasprintf("%s=%s", fileio ? "file_or_dev" : "dev", dev);
	char *tpg = xasprintf("/iscsi/%s/tpg1", l->iqn);
	char *luns = xasprintf("%s/luns", tpg);
	char *lun = xasprintf("lun=%lld", l->lun);

	set_dev(pl, l, target_dev(l));
	if (first) {
		TRY(p, "target:modprobe", "modprobe", "-a", "target_core_mod",
		    "iscsi_target_mod", "target_core_iblock",
		    "target_core_file");
		TRY(p, "target:configfs", "mount", "-t", "configfs", "configfs",
		    "/sys/kernel/config");
		/* targetcli looks for tcmu-runner on the system bus. */
		RUN(p, "target:dbus", "mkdir", "-p", "/run/dbus");
		RUN(p, "target:dbus", "dbus-daemon", "--system", "--fork");
	}
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

static void setup_initiator(struct planner *pl, const struct topo_layer *l,
			    bool *iscsid_started)
{
	struct strbuf *p = pl->p;
	const struct plan_opts *o = pl->o;
	const struct topo_layer *tg = topology_find(pl->t, l->on.v[0]);
	const char *portal = strcmp(tg->guest, l->guest) && o->target_ip ?
				     o->target_ip :
				     "127.0.0.1";
	char *name = xasprintf("InitiatorName=%s\n", initiator_iqn(o->role));

	set_dev(pl, l, xasprintf("@iscsi:%s:%lld", tg->iqn, tg->lun));
	if (!*iscsid_started) {
		TRY(p, "iscsi:modprobe", "modprobe", "-a", "iscsi_tcp",
		    "sd_mod");
		plan_step(p, VERB_PUT, "/etc/iscsi/initiatorname.iscsi", name,
			  NULL);
		RUN(p, "iscsid", "iscsid");
		*iscsid_started = true;
	}
	RUN(p, l->name, "iscsiadm", "-m", "discovery", "-t", "sendtargets",
	    "-p", portal);
	RUN(p, l->name, "iscsiadm", "-m", "node", "-T", tg->iqn, "-p", portal,
	    "--login");
	free(name);
}

/* The cell's private network: a static address, no DHCP, no uplink. */
static void setup_network(struct strbuf *p, const char *ip)
{
	char *cidr = xasprintf("%s/24", ip);

	TRY(p, "net:modprobe", "modprobe", "virtio_net");
	RUN(p, "net", "ip", "link", "set", "eth0", "up");
	RUN(p, "net", "ip", "addr", "add", cidr, "dev", "eth0");
	free(cidr);
}

static void setup_layer(struct planner *pl, const struct topo_layer *l, int *md,
			bool *iscsid, bool *targets)
{
	if (!in_role(l, pl->o->role)) {
		/* The other guest's targets are still reachable from here. */
		if (l->type == LAYER_ISCSI_TARGET)
			set_dev(pl, l, target_dev(l));
		return;
	}
	switch (l->type) {
	case LAYER_DISK:
		set_dev(pl, l, xasprintf("@disk:wblab-disk%lld", l->index));
		break;
	case LAYER_MD:
		setup_md(pl, l, (*md)++);
		break;
	case LAYER_FS:
		setup_fs(pl, l);
		break;
	case LAYER_OVERLAY:
		setup_overlay(pl, l);
		break;
	case LAYER_ISCSI_TARGET:
		setup_target(pl, l, !*targets);
		*targets = true;
		break;
	case LAYER_ISCSI_INITIATOR:
		setup_initiator(pl, l, iscsid);
		break;
	case LAYER_SWAP:
		setup_swap(pl, l);
		break;
	case LAYER_DM_DELAY:
		setup_dm_delay(pl, l);
		break;
	}
}

static void setup_layers(struct planner *pl)
{
	const struct topology_spec *t = pl->t;
	bool *done = xzalloc(t->nr_layers * sizeof(*done));
	bool iscsid = false, targets = false;
	int md = 0;

	/* Bottom-up: a layer goes once everything it sits on is up. */
	for (size_t left = t->nr_layers; left;) {
		size_t before = left;

		for (size_t i = 0; i < t->nr_layers; i++) {
			const struct topo_layer *l = &t->layers[i];
			bool ready = !done[i];

			for (size_t k = 0; ready && k < l->on.n; k++)
				ready = done[topology_find(t, l->on.v[k]) -
					     t->layers];
			if (!ready)
				continue;
			done[i] = true;
			left--;
			setup_layer(pl, l, &md, &iscsid, &targets);
		}
		if (left == before)
			break; /* a cycle: the loader rejects these */
	}
	free(done);
}

/* Top-down: undo what setup did, ignoring failures. */
static void teardown_layers(struct planner *pl)
{
	struct strbuf *p = pl->p;

	for (size_t i = pl->t->nr_layers; i-- > 0;) {
		const struct topo_layer *l = &pl->t->layers[i];
		const char *dev = dev_of(pl, l);

		if (!in_role(l, pl->o->role) || !dev)
			continue;
		switch (l->type) {
		case LAYER_FS:
		case LAYER_OVERLAY:
			TRY(p, l->name, "umount", dev);
			break;
		case LAYER_MD:
			TRY(p, l->name, "mdadm", "--stop", dev);
			break;
		case LAYER_SWAP:
			/* The workload has exited: little is left to read back. */
			TRY(p, l->name, "swapoff", dev);
			break;
		case LAYER_ISCSI_INITIATOR:
			TRY(p, l->name, "iscsiadm", "-m", "node",
			    "--logoutall=all");
			break;
		case LAYER_ISCSI_TARGET:
			TRY(p, l->name, "targetcli", "clearconfig",
			    "confirm=True");
			break;
		case LAYER_DM_DELAY:
			TRY(p, l->name, "dmsetup", "remove", l->name);
			break;
		case LAYER_DISK:
			break;
		}
	}
}

static void capture_topology(struct strbuf *p, const struct topology_spec *t,
			     const struct plan_opts *o, const char *mount)
{
	bool md = false, ini = false, tgt = false, swap = false, dm = false;

	for (size_t i = 0; i < t->nr_layers; i++) {
		if (!in_role(&t->layers[i], o->role))
			continue;
		md |= t->layers[i].type == LAYER_MD;
		swap |= t->layers[i].type == LAYER_SWAP;
		dm |= t->layers[i].type == LAYER_DM_DELAY;
		ini |= t->layers[i].type == LAYER_ISCSI_INITIATOR;
		tgt |= t->layers[i].type == LAYER_ISCSI_TARGET;
	}
	CAPTURE(p, "lsblk", "lsblk", "-o", "NAME,TYPE,SIZE,FSTYPE,MOUNTPOINT");
	if (md)
		CAPTURE(p, "/proc/mdstat", "cat", "/proc/mdstat");
	if (ini) {
		CAPTURE(p, "iscsiadm -m session", "iscsiadm", "-m", "session");
		CAPTURE(p, "iscsiadm -m session -P 1", "iscsiadm", "-m",
			"session", "-P", "1");
	}
	if (tgt)
		CAPTURE(p, "targetcli ls", "targetcli", "ls");
	if (swap)
		CAPTURE(p, "/proc/swaps", "cat", "/proc/swaps");
	if (dm)
		CAPTURE(p, "dmsetup table", "dmsetup", "table");
	if (mount)
		CAPTURE(p, "findmnt", "findmnt", "-T", mount);
	/* Read by the agent itself: no cat to start (agent/capfile.h). */
	plan_step(p, VERB_CAPFILE, "topology.txt", "mounts",
		  "/proc/self/mounts", NULL);
}

/*
 * A pre: command is split on spaces (no shell, no quoting) and
 * ${WBLAB_MOUNT} in it becomes the test mount. Every word is kept.
 */
static void pre_step(struct strbuf *p, const char *cmd, const char *timeout,
		     const char *mount)
{
	static const char var[] = "${WBLAB_MOUNT}";
	char *copy = xstrdup(cmd), *save, *tok;
	struct strvec argv = STRVEC_INIT;

	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *at = strstr(tok, var);

		if (at && mount)
			strvec_pushf(&argv, "%.*s%s%s", (int)(at - tok), tok,
				     mount, at + strlen(var));
		else
			strvec_push(&argv, tok);
	}
	if (argv.nr)
		plan_step_argv(p, VERB_RUN, "pre", timeout, argv.v);
	strvec_clear(&argv);
	free(copy);
}

static void workload_steps(struct planner *pl, const struct workload_spec *w,
			   const struct collectors_opts *co)
{
	struct strbuf *p = pl->p;
	const struct plan_opts *o = pl->o;

	char timeout[16], hog[32], hold[16], every[16], churn[32], churn_ms[16];
	/* Only a re-touching or churning hog gets more: old plans stay. */
	const char *const hog_argv[] = {
		"/run/wblab-agent",
		"hog",
		hog,
		hold,
		w->hog_every || w->hog_churn ? every : NULL, /* argv ends */
		w->hog_churn ? churn : NULL,
		churn_ms,
		NULL,
	};

	snprintf(timeout, sizeof(timeout), "%d", o->workload_timeout);
	snprintf(hog, sizeof(hog), "%llu",
		 (unsigned long long)(w->hog_size >> 20));
	snprintf(hold, sizeof(hold), "%lld",
		 w->hog_hold ? w->hog_hold : (long long)o->workload_timeout);
	snprintf(every, sizeof(every), "%lld", w->hog_every);
	snprintf(churn, sizeof(churn), "%llu",
		 (unsigned long long)(w->hog_churn >> 20));
	snprintf(churn_ms, sizeof(churn_ms), "%lld", w->hog_churn_ms);
	plan_phase(p, PHASE_WORKLOAD);
	collectors_plan_workload(p, co);
	plan_stall_start(p, pl->t);
	if (w->memcg_max) {
		plan_step(p, VERB_CGROUP, "wblab", w->memcg_max, NULL);
		/* Each OOM's memory.stat, read on the memcg's event (oom.c). */
		plan_step_argv(p, VERB_BG, "oomwatch", NULL,
			       (const char *const[]){
				       "/run/wblab-agent", "oomwatch", "wblab",
				       AGENT_OUT_DIR "/" OOMWATCH_FILE, NULL });
	}
	if (w->hog_size && w->fio)
		plan_step_argv(p, VERB_BG, "hog", NULL, hog_argv);
	else if (w->hog_size)
		plan_step_argv(p, VERB_RUN, "hog", timeout, hog_argv);
	if (w->fio) {
		plan_step(p, VERB_PUT, "/tmp/wblab-job.fio", w->fio, NULL);
		plan_step_argv(p, VERB_RUN, "fio", timeout,
			       (const char *const[]){
				       "fio", "--output-format=json",
				       "--output=/tmp/wblab-out/fio.json",
				       "/tmp/wblab-job.fio", NULL });
	}
	plan_failslab_disarm(p, w->failslab);
	plan_stall_end(p, pl->t, timeout);
	/* The background hog's rounds and kills (agent/hog.c), as it ran. */
	if (w->hog_size && w->fio)
		plan_step(p, VERB_GET, "hog.out", AGENT_BG_OUT("hog"), NULL);
	collectors_plan_workload_end(p);
	if (w->memcg_max)
		plan_step(p, VERB_CGROUP, "", "", NULL);
}

void plan_devs_free(struct plan_devs *d)
{
	for (size_t i = 0; d->dev && i < d->nr; i++)
		free(d->dev[i]);
	free(d->dev);
	d->dev = NULL;
	d->nr = 0;
}

/*
 * MGLRU: a workload's lru_gen: writes the knob and checks it took (a
 * kernel without CONFIG_LRU_GEN fails setup here, naming lru_gen); the
 * collectors read it back into metrics.lru_gen after the pre: steps. On
 * means the LRU_GEN_CORE bit (bit 0 of the mask) is set.
 */
static void lru_gen_steps(struct strbuf *p, const char *want)
{
	bool on;

	if (!want)
		return;
	on = !strcmp(want, "on");
	plan_step(p, VERB_PUT, LRU_GEN, on ? "y" : "n", NULL);
	RUN(p, "lru_gen", "grep", "-Eqx", on ? "0x[0-9a-f]*[13579bdf]" : "0x0+",
	    LRU_GEN);
}

int plan_compile(const struct topology_spec *t, const struct workload_spec *w,
		 const struct plan_opts *o, struct strbuf *out,
		 struct plan_devs *devs)
{
	const struct topo_layer *top = topology_mount_layer(t);
	char *mount = o->role == PLAN_MAIN && top ? plan_mount_dir(top) : NULL;
	struct planner pl = { .p = out, .t = t, .o = o, .devs = devs };
	struct collectors_opts co = { .thread_size = o->thread_size,
				      .kver = o->kver,
				      .layers = stack_layers(t, o->role),
				      .page_cache = w->trace_page_cache,
				      .system_map = o->system_map,
				      .map_complete = o->map_complete,
				      .host_ksyms = o->host_ksyms };

	devs->nr = t->nr_layers;
	devs->dev = xzalloc((t->nr_layers + 1) * sizeof(*devs->dev));
	plan_phase(out, PHASE_SETUP);
	if (mount)
		plan_step(out, VERB_ENV, "WBLAB_MOUNT", mount, NULL);
	if (o->own_ip)
		setup_network(out, o->own_ip);
	setup_layers(&pl);
	if (o->role == PLAN_MAIN) {
		char timeout[16];

		/*
		 * pre: steps prepare the workload (a file to overwrite, caches
		 * dropped): the warm-up, part of setup, outside the memcg and
		 * outside the measured window that starts at vmstat.before.
		 */
		snprintf(timeout, sizeof(timeout), "%d", o->workload_timeout);
		lru_gen_steps(out, w->lru_gen);
		plan_phase(out, PHASE_WARMUP);
		for (size_t i = 0; i < w->pre.n; i++)
			pre_step(out, w->pre.v[i], timeout, mount);
		plan_phase(out, PHASE_ARM);
		collectors_plan_arm(out, &co);
		plan_step(out, VERB_GET, "vmstat.before", "/proc/vmstat", NULL);
		plan_step(out, VERB_GET, "meminfo.before", "/proc/meminfo",
			  NULL);
		plan_failslab_arm(out, w->failslab);
		workload_steps(&pl, w, &co);
		plan_phase(out, PHASE_COLLECT);
		plan_step(out, VERB_GET, "vmstat.after", "/proc/vmstat", NULL);
		plan_step(out, VERB_GET, "meminfo.after", "/proc/meminfo",
			  NULL);
		collectors_plan_collect(out, mount, &co);
	} else {
		/*
		 * A target guest serves until the host tears the cell down, so
		 * what it built is captured and sent before it starts serving.
		 */
		capture_topology(out, t, o, NULL);
		plan_step(out, VERB_GET, "topology.txt",
			  "/tmp/wblab-out/topology.txt", NULL);
		plan_phase(out, PHASE_WORKLOAD);
		plan_step_argv(out, VERB_RUN, "serve", "86400",
			       (const char *const[]){ "sleep", "infinity",
						      NULL });
		plan_phase(out, PHASE_COLLECT);
	}
	if (o->role == PLAN_MAIN)
		capture_topology(out, t, o, mount);
	plan_phase(out, PHASE_TEARDOWN);
	teardown_layers(&pl);
	free(mount);
	return 0;
}
