// SPDX-License-Identifier: GPL-2.0
/*
 * The planner: turns a topology and a workload into the ordered steps the
 * guest agent runs. Pure: no I/O, so it is unit-tested on the shipped specs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/proto.h"
#include "cell/collectors-plan.h"
#include "cell/plan.h"
#include "cell/step.h"
#include "util/log.h"

#define STEP_TIMEOUT "120"

#define RUN(p, label, ...)                            \
	plan_step_argv(p, "run", label, STEP_TIMEOUT, \
		       (const char *const[]){ __VA_ARGS__, NULL })
#define TRY(p, label, ...)                            \
	plan_step_argv(p, "try", label, STEP_TIMEOUT, \
		       (const char *const[]){ __VA_ARGS__, NULL })
#define CAPTURE(p, label, ...)                              \
	plan_step_argv(p, "capture", "topology.txt", label, \
		       (const char *const[]){ __VA_ARGS__, NULL })

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

static const char *lower_dev(const struct topology_spec *t,
			     const struct topo_layer *l, size_t i)
{
	return topology_find(t, l->on.v[i])->dev;
}

static void setup_md(struct strbuf *p, const struct topology_spec *t,
		     struct topo_layer *l, int nr)
{
	struct strbuf argv = STRBUF_INIT;
	const char **a = xzalloc((l->on.n + 16) * sizeof(*a));
	char level[32], count[32], chunk[32] = "";
	int n = 0;

	l->dev = xasprintf("/dev/md%d", nr);
	snprintf(level, sizeof(level), "--level=%lld", l->level);
	snprintf(count, sizeof(count), "--raid-devices=%zu", l->on.n);
	TRY(p, "md:modprobe", "modprobe", "-a", "md_mod", "raid0", "raid1",
	    "raid456", "raid10");
	a[n++] = "mdadm";
	a[n++] = "--create";
	a[n++] = l->dev;
	a[n++] = "--run";
	a[n++] = "--metadata=1.2";
	a[n++] = level;
	a[n++] = count;
	/* No initial resync: it would compete with the workload's I/O. */
	if (l->level)
		a[n++] = "--assume-clean";
	if (l->chunk && l->level != 1) {
		uint64_t c = 0;

		spec_parse_size(l->chunk, &c);
		snprintf(chunk, sizeof(chunk), "--chunk=%lluK",
			 (unsigned long long)(c >> 10));
		a[n++] = chunk;
	}
	for (size_t i = 0; i < l->on.n; i++)
		a[n++] = lower_dev(t, l, i);
	a[n] = NULL;
	plan_step_argv(p, "run", l->name, STEP_TIMEOUT, a);
	free(a);
	strbuf_release(&argv);
}

static void setup_fs(struct strbuf *p, const struct topology_spec *t,
		     struct topo_layer *l)
{
	const char *dev = lower_dev(t, l, 0);
	const char **a = xzalloc((l->mkfs.n + 8) * sizeof(*a));
	char *mkfs = xasprintf("mkfs.%s", l->fstype);
	char *label = xasprintf("%s:mkfs", l->name);
	int n = 0;

	l->dev = plan_mount_dir(l);
	a[n++] = mkfs;
	/* Overwrite what is there, quietly: mkfs.ext4 -F, the others -f. */
	a[n++] = !strcmp(l->fstype, "ext4") ? "-F" : "-f";
	if (strcmp(l->fstype, "xfs"))
		a[n++] = "-q";
	for (size_t i = 0; i < l->mkfs.n; i++)
		a[n++] = l->mkfs.v[i];
	a[n++] = dev;
	a[n] = NULL;
	plan_step_argv(p, "run", label, "600", a);
	free(label);
	label = xasprintf("%s:mount", l->name);
	RUN(p, label, "mkdir", "-p", l->dev);
	if (l->mount_opts)
		RUN(p, label, "mount", "-t", l->fstype, "-o", l->mount_opts,
		    dev, l->dev);
	else
		RUN(p, label, "mount", "-t", l->fstype, dev, l->dev);
	free(label);
	free(mkfs);
	free(a);
}

/*
 * Swap on a block device of the stack: anonymous reclaim then writes
 * through every layer below it (md, iSCSI, the target's disk).
 */
static void setup_swap(struct strbuf *p, const struct topology_spec *t,
		       struct topo_layer *l)
{
	const char *dev = lower_dev(t, l, 0);
	char *label = xasprintf("%s:mkswap", l->name);
	char prio[24];

	l->dev = xstrdup(dev);
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

static void setup_overlay(struct strbuf *p, const struct topology_spec *t,
			  struct topo_layer *l)
{
	const char *lo = topology_find(t, l->lower)->dev;
	const char *up = topology_find(t, l->upper)->dev;
	char *lower = xasprintf("%s/ovl-lower", lo);
	char *upper = xasprintf("%s/ovl-upper", up);
	char *work = xasprintf("%s/ovl-work", up);
	char *opts = xasprintf("lowerdir=%s,upperdir=%s,workdir=%s", lower,
			       upper, work);

	l->dev = plan_mount_dir(l);
	TRY(p, "overlay:modprobe", "modprobe", "overlay");
	RUN(p, l->name, "mkdir", "-p", lower, upper, work, l->dev);
	RUN(p, l->name, "mount", "-t", "overlay", "overlay", "-o", opts,
	    l->dev);
	free(lower);
	free(upper);
	free(work);
	free(opts);
}

static void setup_target(struct strbuf *p, const struct topology_spec *t,
			 struct topo_layer *l, bool first)
{
	const char *dev = lower_dev(t, l, 0);
	bool fileio = l->backstore && !strcmp(l->backstore, "fileio");
	char *bs = xasprintf("/backstores/%s/%s", fileio ? "fileio" : "block",
			     l->name);
	char *bsdir = xasprintf("/backstores/%s", fileio ? "fileio" : "block");
	char *name = xasprintf("name=%s", l->name);
	char *devarg = xasprintf("%s=%s", fileio ? "file_or_dev" : "dev", dev);
	char *tpg = xasprintf("/iscsi/%s/tpg1", l->iqn);
	char *luns = xasprintf("%s/luns", tpg);
	char *lun = xasprintf("lun=%lld", l->lun);

	l->dev = xasprintf("%s:%lld", l->iqn, l->lun);
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

static void setup_initiator(struct strbuf *p, const struct topology_spec *t,
			    struct topo_layer *l, const struct plan_opts *o,
			    bool *iscsid_started)
{
	const struct topo_layer *tg = topology_find(t, l->on.v[0]);
	const char *portal = strcmp(tg->guest, l->guest) && o->target_ip ?
				     o->target_ip :
				     "127.0.0.1";
	char *name = xasprintf("InitiatorName=%s\n", initiator_iqn(o->role));

	l->dev = xasprintf("@iscsi:%s:%lld", tg->iqn, tg->lun);
	if (!*iscsid_started) {
		TRY(p, "iscsi:modprobe", "modprobe", "-a", "iscsi_tcp",
		    "sd_mod");
		plan_step(p, "put", "/etc/iscsi/initiatorname.iscsi", name,
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

static void setup_layers(struct strbuf *p, const struct topology_spec *tc,
			 const struct plan_opts *o)
{
	/* dev fields are the planner's scratch space. */
	struct topology_spec *t = (struct topology_spec *)tc;
	bool *done = xzalloc(t->nr_layers * sizeof(*done));
	bool iscsid = false, targets = false;
	int md = 0;

	/* Bottom-up: a layer goes once everything it sits on is up. */
	for (size_t left = t->nr_layers; left;) {
		size_t before = left;

		for (size_t i = 0; i < t->nr_layers; i++) {
			struct topo_layer *l = &t->layers[i];
			bool ready = !done[i];

			for (size_t k = 0; ready && k < l->on.n; k++)
				ready = done[topology_find(t, l->on.v[k]) -
					     t->layers];
			if (!ready)
				continue;
			done[i] = true;
			left--;
			free(l->dev);
			l->dev = NULL;
			if (l->type == LAYER_ISCSI_TARGET &&
			    in_role(l, o->role)) {
				/* lower_dev below needs the disk's dev. */
			}
			if (!in_role(l, o->role)) {
				if (l->type == LAYER_ISCSI_TARGET)
					l->dev = xasprintf("%s:%lld", l->iqn,
							   l->lun);
				continue;
			}
			switch (l->type) {
			case LAYER_DISK:
				l->dev = xasprintf("@disk:wblab-disk%lld",
						   l->index);
				break;
			case LAYER_MD:
				setup_md(p, t, l, md++);
				break;
			case LAYER_FS:
				setup_fs(p, t, l);
				break;
			case LAYER_OVERLAY:
				setup_overlay(p, t, l);
				break;
			case LAYER_ISCSI_TARGET:
				setup_target(p, t, l, !targets);
				targets = true;
				break;
			case LAYER_ISCSI_INITIATOR:
				setup_initiator(p, t, l, o, &iscsid);
				break;
			case LAYER_SWAP:
				setup_swap(p, t, l);
				break;
			}
		}
		if (left == before)
			break; /* a cycle: the loader rejects these */
	}
	free(done);
}

/* Top-down: undo what setup did, ignoring failures. */
static void teardown_layers(struct strbuf *p, const struct topology_spec *t,
			    const struct plan_opts *o)
{
	for (size_t i = t->nr_layers; i-- > 0;) {
		const struct topo_layer *l = &t->layers[i];

		if (!in_role(l, o->role) || !l->dev)
			continue;
		switch (l->type) {
		case LAYER_FS:
		case LAYER_OVERLAY:
			TRY(p, l->name, "umount", l->dev);
			break;
		case LAYER_MD:
			TRY(p, l->name, "mdadm", "--stop", l->dev);
			break;
		case LAYER_SWAP:
			/* The workload has exited: little is left to read back. */
			TRY(p, l->name, "swapoff", l->dev);
			break;
		case LAYER_ISCSI_INITIATOR:
			TRY(p, l->name, "iscsiadm", "-m", "node",
			    "--logoutall=all");
			break;
		case LAYER_ISCSI_TARGET:
			TRY(p, l->name, "targetcli", "clearconfig",
			    "confirm=True");
			break;
		case LAYER_DISK:
			break;
		}
	}
}

static void capture_topology(struct strbuf *p, const struct topology_spec *t,
			     const struct plan_opts *o, const char *mount)
{
	bool md = false, ini = false, tgt = false, swap = false;

	for (size_t i = 0; i < t->nr_layers; i++) {
		if (!in_role(&t->layers[i], o->role))
			continue;
		md |= t->layers[i].type == LAYER_MD;
		swap |= t->layers[i].type == LAYER_SWAP;
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
	if (mount)
		CAPTURE(p, "findmnt", "findmnt", "-T", mount);
	CAPTURE(p, "mounts", "cat", "/proc/self/mounts");
}

/*
 * A pre: command is split on spaces (no shell, no quoting) and
 * ${WBLAB_MOUNT} in it becomes the test mount.
 */
static void pre_step(struct strbuf *p, const char *cmd, const char *timeout,
		     const char *mount)
{
	char *copy = xstrdup(cmd), *save, *tok;
	char *argv[64];
	int n = 0;

	for (tok = strtok_r(copy, " ", &save); tok && n < 63;
	     tok = strtok_r(NULL, " ", &save)) {
		char *at = strstr(tok, "${WBLAB_MOUNT}");

		argv[n++] = at && mount ?
				    xasprintf("%.*s%s%s", (int)(at - tok), tok,
					      mount,
					      at + strlen("${WBLAB_MOUNT}")) :
				    xstrdup(tok);
	}
	argv[n] = NULL;
	if (n)
		plan_step_argv(p, "run", "pre", timeout,
			       (const char *const *)argv);
	while (n--)
		free(argv[n]);
	free(copy);
}

static void workload_steps(struct strbuf *p, const struct workload_spec *w,
			   const struct plan_opts *o)
{
	char timeout[16], hog[32], hold[16];

	snprintf(timeout, sizeof(timeout), "%d", o->workload_timeout);
	snprintf(hog, sizeof(hog), "%llu",
		 (unsigned long long)(w->hog_size >> 20));
	snprintf(hold, sizeof(hold), "%lld",
		 w->hog_hold ? w->hog_hold : (long long)o->workload_timeout);
	plan_step(p, "phase", "workload", NULL);
	collectors_plan_workload(p);
	if (w->memcg_max)
		plan_step(p, "cgroup", "wblab", w->memcg_max, NULL);
	if (w->hog_size && w->fio)
		plan_step_argv(p, "bg", "hog", NULL,
			       (const char *const[]){ "/run/wblab-agent", "hog",
						      hog, hold, NULL });
	else if (w->hog_size)
		plan_step_argv(p, "run", "hog", timeout,
			       (const char *const[]){ "/run/wblab-agent", "hog",
						      hog, hold, NULL });
	if (w->fio) {
		plan_step(p, "put", "/tmp/wblab-job.fio", w->fio, NULL);
		plan_step_argv(p, "run", "fio", timeout,
			       (const char *const[]){
				       "fio", "--output-format=json",
				       "--output=/tmp/wblab-out/fio.json",
				       "/tmp/wblab-job.fio", NULL });
	}
	collectors_plan_workload_end(p);
	if (w->memcg_max)
		plan_step(p, "cgroup", "", "", NULL);
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
	plan_step(p, "put", LRU_GEN, on ? "y" : "n", NULL);
	RUN(p, "lru_gen", "grep", "-Eqx", on ? "0x[0-9a-f]*[13579bdf]" : "0x0+",
	    LRU_GEN);
}

int plan_compile(const struct topology_spec *t, const struct workload_spec *w,
		 const struct plan_opts *o, struct strbuf *out)
{
	const struct topo_layer *top = topology_mount_layer(t);
	char *mount = o->role == PLAN_MAIN && top ? plan_mount_dir(top) : NULL;

	plan_step(out, "phase", "setup", NULL);
	if (mount)
		plan_step(out, "env", "WBLAB_MOUNT", mount, NULL);
	if (o->own_ip)
		setup_network(out, o->own_ip);
	setup_layers(out, t, o);
	if (o->role == PLAN_MAIN) {
		char timeout[16];

		/*
		 * pre: steps prepare the workload (a file to overwrite, caches
		 * dropped): part of setup, outside the memcg and outside the
		 * measured window that starts at vmstat.before.
		 */
		snprintf(timeout, sizeof(timeout), "%d", o->workload_timeout);
		lru_gen_steps(out, w->lru_gen);
		for (size_t i = 0; i < w->pre.n; i++)
			pre_step(out, w->pre.v[i], timeout, mount);
		collectors_plan_arm(out);
		plan_step(out, "get", "vmstat.before", "/proc/vmstat", NULL);
		plan_step(out, "get", "meminfo.before", "/proc/meminfo", NULL);
		workload_steps(out, w, o);
		plan_step(out, "phase", "collect", NULL);
		plan_step(out, "get", "vmstat.after", "/proc/vmstat", NULL);
		plan_step(out, "get", "meminfo.after", "/proc/meminfo", NULL);
		collectors_plan_collect(out, mount);
	} else {
		/*
		 * A target guest serves until the host tears the cell down, so
		 * what it built is captured and sent before it starts serving.
		 */
		capture_topology(out, t, o, NULL);
		plan_step(out, "get", "topology.txt",
			  "/tmp/wblab-out/topology.txt", NULL);
		plan_step(out, "phase", "workload", NULL);
		plan_step_argv(out, "run", "serve", "86400",
			       (const char *const[]){ "sleep", "infinity",
						      NULL });
		plan_step(out, "phase", "collect", NULL);
	}
	if (o->role == PLAN_MAIN)
		capture_topology(out, t, o, mount);
	plan_step(out, "phase", "teardown", NULL);
	teardown_layers(out, t, o);
	free(mount);
	return 0;
}
