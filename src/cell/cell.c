// SPDX-License-Identifier: GPL-2.0
/*
 * One cell's lifecycle: prepare (overlay, disks, plan, XML), boot, watch
 * (boot, phase and grace timers), collect (console, files) and classify.
 * Topologies with a target: section get a second guest, the iSCSI target,
 * on an isolated libvirt network; it boots first and must be serving
 * before the cell's own guest starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/proto.h"
#include "artifact/cache.h"
#include "cell/cell.h"
#include "cell/disks.h"
#include "cell/plan.h"
#include "cell/results.h"
#include "cell/tune.h"
#include "collect/console.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/num.h"
#include "util/run.h"
#include "virt/domxml.h"
#include "virt/guest.h"
#include "virt/owner.h"
#include "virt/virt.h"
#include "virt/vols.h"

#define POWEROFF_GRACE 15 /* s: late console output after the exit */
#define MAIN_IP "10.77.0.1"
#define TARGET_IP "10.77.0.2"

/* sun_path of struct sockaddr_un, with its NUL. */
#define SUN_PATH_MAX 108
#define NAME_HASH_LEN 10

char *cell_domain_name(const char *run_id, const char *cell_id)
{
	/* The longest path under a name: <root>/<name>-target/agent.sock */
	size_t fixed = strlen(run_root()) + strlen("/-target/agent.sock") + 1;
	size_t budget = fixed < SUN_PATH_MAX ? SUN_PATH_MAX - fixed : 0;
	char *name = xasprintf("wblab-%s-%s", run_id, cell_id);
	char hex[HASH_HEX_LEN + 1];
	struct hasher *h;
	long keep;

	if (strlen(name) <= budget)
		return name;
	free(name);
	h = hasher_new();
	hasher_add_str(h, "cell", cell_id);
	hasher_finish(h, hex);
	keep = (long)budget - (long)strlen(run_id) - 7 - 1 - NAME_HASH_LEN;
	if (keep > 0)
		return xasprintf("wblab-%s-%.*s-%.*s", run_id, (int)keep,
				 cell_id, NAME_HASH_LEN, hex);
	if ((long)budget >= (long)strlen(run_id) + 7 + NAME_HASH_LEN)
		return xasprintf("wblab-%s-%.*s", run_id, NAME_HASH_LEN, hex);
	/* run_root itself is too long for anything readable. */
	return xasprintf("wblab-%.*s", NAME_HASH_LEN, hex);
}

int cell_default_deadline(const struct cell_spec *c)
{
	int boot = c->boot_timeout * (topology_has_target(c->topo) ? 2 : 1);
	int setup = SETUP_TIMEOUT * (topology_has_target(c->topo) ? 2 : 1);

	return boot + setup + c->workload_timeout + 60 + COLLECT_TIMEOUT +
	       POWEROFF_GRACE + 60;
}

/* One guest of the cell: the main one, or the iSCSI target. */
struct vm {
	enum plan_role role;
	char *stage; /* run_root()/<domain> */
	struct guest g;
	struct domain_config dc;
	struct strbuf plan, xml;
	struct plan_devs devs; /* the layers' guest devices, from the planner */
};

struct cell_ctx {
	const struct cell_spec *c;
	virConnectPtr conn;
	double deadline; /* monotonic: the cell's overall deadline */
	struct owner owner;
	struct vm main, target;
	bool has_target;
	virNetworkPtr net;
	char *net_name;
	virStoragePoolPtr pool; /* a remote host's: every disk is a volume */
	struct strbuf err;
	struct cell_facts facts;
};

/*
 * Under TCG a vCPU thread can lose the host CPU for seconds; the soft
 * lockup, RCU stall and hung task watchdogs would report the emulator,
 * not the kernel. Their thresholds are raised there (and recorded), and
 * the boot-time IO-APIC timer check is skipped: on a loaded host it
 * panics ("IO-APIC + timer doesn't work") for the emulator's slowness.
 * SysRq is always on: a hung guest's SysRq-w and SysRq-l (cell.c) need it,
 * and Debian's default kernel.sysrq=438 refuses both.
 * Under TCG, acpi=noirq too: enabling each PCI device's ACPI interrupt
 * link (LNKA-D, AML run under emulation) took 0.3-0.4 s of every boot; the
 * BIOS's MP table routes the same INTx lines through the same IO-APIC, and
 * virtio's queues use MSI-X either way (a bare boot of the lab 6.1 reached
 * the agent at 1.09-1.24 s instead of 1.39-1.56 s, bench/cell-overhead's
 * qemu line, load 3.3-3.8).
 */
char *cell_cmdline(const struct cell_spec *c)
{
	return xasprintf(
		"console=ttyS0,115200 panic=-1 sysrq_always_enabled wblab.mode=cell%s%s%s",
		strcmp(c->accel, "kvm") ?
			" watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=300"
			" sysctl.kernel.hung_task_timeout_secs=600 no_timer_check"
			" acpi=noirq" :
			"",
		c->cmdline_extra ? " " : "",
		c->cmdline_extra ? c->cmdline_extra : "");
}

/*
 * The plan from the cell's specs. The main guest's probed symbols come
 * from the kernel's System.map when the host has it (stack_kallsyms.txt
 * written here), else the guest reads /proc/kallsyms.
 */
static void vm_plan(const struct cell_spec *c, struct vm *vm,
		    struct plan_opts *po)
{
	struct strbuf map = STRBUF_INIT, ksyms = STRBUF_INIT;

	if (po->role == PLAN_MAIN && c->kernel->system_map &&
	    strbuf_read_file(&map, c->kernel->system_map) >= 0) {
		po->system_map = map.buf;
		po->map_complete = !c->kernel->modules_img;
		po->host_ksyms = &ksyms;
	}
	plan_compile(c->topo, c->wl, po, &vm->plan, &vm->devs);
	if (ksyms.len) {
		char *p = xasprintf("%s/stack_kallsyms.txt", c->cell_dir);

		if (write_file_atomic(p, ksyms.buf, ksyms.len, 0644))
			warn("cannot write %s: %s", p, strerror(errno));
		free(p);
	}
	strbuf_release(&map);
	strbuf_release(&ksyms);
}

static int vm_prepare(struct cell_ctx *x, struct vm *vm, const char *name,
		      const char *out_dir)
{
	const struct cell_spec *c = x->c;
	bool tgt = vm->role == PLAN_TARGET;
	const struct topo_disks *disks = tgt ? &c->topo->target_disks :
					       &c->topo->disks;
	struct cell_disks cd = { .name = name,
				 .image = c->image,
				 .modules_img = c->kernel->modules_img,
				 .ndisks = disks->count,
				 .size = disks->size,
				 .topo = c->topo,
				 .role = tgt ? "target" : "main",
				 .pool = x->pool };
	char *sock, *console;
	struct plan_opts po = {
		.role = vm->role,
		.workload_timeout = c->workload_timeout,
		.target_ip = TARGET_IP,
		.thread_size = c->kernel->thread_size,
		.kver = kver_parse(c->kernel->version),
		.warmup = lever_is(&c->levers, LEVER_WARMUP, "on"),
		.own_ip = x->has_target ? (tgt ? TARGET_IP : MAIN_IP) : NULL
	};
	int ret = -1;

	/* On a remote host only the console capture is here. */
	vm->stage = xasprintf("%s/%s", run_root(), name);
	cd.stage = vm->stage;
	sock = xasprintf("%s/agent.sock", vm->stage);
	console = xasprintf("%s/console.log", vm->stage);
	guest_init(&vm->g, name, sock, out_dir);
	strbuf_init(&vm->plan, 0);
	strbuf_init(&vm->xml, 0);
	rm_rf(vm->stage);
	if (cache_make_dir(vm->stage) ||
	    cache_check_space(vm->stage,
			      (x->pool ? 0 :
					 (int64_t)(cd.size * cd.ndisks / 4)) +
				      (256 << 20))) {
		strbuf_addf(&x->err, "cannot prepare %s (disk full?)",
			    vm->stage);
		goto out;
	}
	chown_to_qemu(vm->stage);
	vm->dc = (struct domain_config){
		.name = vm->g.name,
		.type = !strcmp(c->accel, "kvm") ? "kvm" : "qemu",
		.memory_mib = tgt ? (c->topo->target_memory ?
					     c->topo->target_memory :
					     512) :
				    c->memory_mib,
		.vcpus = tgt ? 1 : c->vcpus,
		.kernel = c->kernel->bzimage,
		.initrd = c->initrd,
		.console_log = x->pool ? NULL : xstrdup(console),
		.console_sock = x->pool ? NULL :
					  xasprintf("%s/con.sock", vm->stage),
		.channel_sock = x->pool ? NULL : vm->g.sock_path,
		.network = x->net_name,
		.cmdline = cell_cmdline(c),
		.owner = &x->owner,
		.owner_cell = c->cell_id,
	};
	if (x->pool)
		guest_set_remote(&vm->g, console);
	else
		guest_set_console(&vm->g, vm->dc.console_sock, console);
	if (cell_disks_make(&cd, &vm->dc, &x->err) ||
	    cell_tune(c, x->conn, &vm->dc, &x->err))
		goto out;
	vm_plan(c, vm, &po);
	{
		char *pp = xasprintf("%s/plan%s.txt", c->cell_dir,
				     tgt ? "-target" : "");

		write_file_atomic(pp, vm->plan.buf, vm->plan.len, 0644);
		free(pp);
	}
	vm->g.plan = vm->plan.buf;
	vm->g.plan_len = vm->plan.len;
	frame_plan_outputs(vm->plan.buf, vm->plan.len, &vm->g.expect);
	if (domain_xml(&vm->dc, &vm->xml)) {
		strbuf_addstr(&x->err, "cannot write the domain XML");
		goto out;
	}
	/* What libvirt was given, for a reproducer (wblab repro). */
	{
		char *xp = xasprintf("%s/domain%s.xml", c->cell_dir,
				     tgt ? "-target" : "");

		if (write_file_atomic(xp, vm->xml.buf, vm->xml.len, 0644))
			warn("cannot write %s: %s", xp, strerror(errno));
		free(xp);
	}
	ret = 0;
out:
	free(sock);
	free(console);
	return ret;
}

static void vm_free(struct vm *vm, bool keep)
{
	guest_release(&vm->g);
	for (int i = 0; i < vm->dc.nr_disks; i++) {
		free((char *)vm->dc.disks[i].path);
		free((char *)vm->dc.disks[i].serial);
	}
	free((char *)vm->dc.console_log);
	free((char *)vm->dc.console_sock);
	free((char *)vm->dc.cmdline);
	strbuf_release(&vm->plan);
	strbuf_release(&vm->xml);
	plan_devs_free(&vm->devs);
	if (vm->stage && !keep)
		rm_rf(vm->stage);
	free(vm->stage);
	memset(vm, 0, sizeof(*vm));
}

/* An isolated network: a bridge with no forward and no host address. */
static int net_start(struct cell_ctx *x, virConnectPtr conn, const char *dom)
{
	struct hasher *h = hasher_new();
	char hex[HASH_HEX_LEN + 1], bridge[16];
	struct strbuf xml = STRBUF_INIT;

	hasher_add_str(h, "wblab-net", dom);
	hasher_finish(h, hex);
	snprintf(bridge, sizeof(bridge), "wbl%.11s", hex);
	x->net_name = xasprintf("%s-net", dom);
	network_xml(x->net_name, bridge, NULL, NULL, &xml);
	x->net = virNetworkCreateXML(conn, xml.buf);
	strbuf_release(&xml);
	if (!x->net) {
		strbuf_addf(&x->err, "libvirt cannot create network %s: %s",
			    x->net_name, virt_last_error());
		return -1;
	}
	return 0;
}

/*
 * guest_loop() bounded by the cell's overall deadline too; 3 when that
 * is what ended it.
 */
static int cell_loop(struct cell_ctx *x, double deadline, bool (*done)(void *),
		     void *arg)
{
	int ret = guest_loop(deadline < x->deadline ? deadline : x->deadline,
			     done, arg);

	return ret == 1 && now_mono() >= x->deadline ? 3 : ret;
}

static bool agent_hello(void *arg)
{
	struct guest *g = arg;

	return g->hello || g->stopped;
}

struct phase_watch {
	struct guest *g;
	char seen[32];
};

static bool phase_changed_or_done(void *arg)
{
	struct phase_watch *w = arg;

	if (strcmp(w->seen, w->g->phase))
		return true;
	return w->g->exited || w->g->stopped;
}

static bool domain_stopped(void *arg)
{
	return ((struct guest *)arg)->stopped;
}

static bool target_serving(void *arg)
{
	struct guest *g = arg;

	return proto_phase(g->phase) == PHASE_WORKLOAD || g->exited ||
	       g->stopped;
}

/* Boot the target guest and wait until its stack serves; 0 if it does. */
static int start_target(struct cell_ctx *x, virConnectPtr conn)
{
	struct guest *g = &x->target.g;
	int ret;

	if (guest_start(g, conn, x->target.xml.buf, &x->err))
		return -1;
	ret = cell_loop(x, g->t_create + x->c->boot_timeout, agent_hello, g);
	if (ret == 0 && g->hello)
		ret = cell_loop(x, now_mono() + SETUP_TIMEOUT, target_serving,
				g);
	if (ret == 2 || ret == 3) {
		strbuf_addf(&x->err, "target guest: %s",
			    ret == 3 ? "the cell's overall deadline passed" :
				       guest_host_fault(g));
		return -1;
	}
	if (ret < 0) {
		strbuf_addstr(
			&x->err,
			"interrupted (SIGINT/SIGTERM): domains destroyed");
		return -1;
	}
	if (proto_phase(g->phase) == PHASE_WORKLOAD && !g->exited &&
	    !g->stopped)
		return 0;
	strbuf_addf(
		&x->err, "target guest did not serve: %s",
		!g->hello ? "no agent hello (boot failed)" :
		g->exited ? "its topology setup failed (see target/agent.log)" :
		g->stopped ? "it stopped" :
			     "setup timed out");
	if (g->exited && g->exit_body.len) {
		const char *label = strstr(g->exit_body.buf, "label=");

		if (label)
			strbuf_addf(&x->err, " at layer %.*s",
				    (int)strcspn(label + 6, "\n"), label + 6);
	}
	return -1;
}

/*
 * Before a hung guest is destroyed, ask its kernel what it is doing:
 * SysRq-w (blocked tasks) and SysRq-l (backtraces of all CPUs) go to the
 * console, so console.log says where it hung.
 */
static void dump_blocked_tasks(struct guest *g)
{
	static const unsigned int keys[][3] = {
		{ 56, 99, 17 }, /* KEY_LEFTALT, KEY_SYSRQ, KEY_W */
		{ 56, 99, 38 }, /* KEY_LEFTALT, KEY_SYSRQ, KEY_L */
	};

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (virDomainSendKey(g->dom, VIR_KEYCODE_SET_LINUX, 100,
				     (unsigned int *)keys[i], 3, 0) < 0)
			return;
	guest_loop(now_mono() + 5, domain_stopped, g);
}

/* Did the main guest's console grow in the last secs seconds? */
static bool console_recent(struct cell_ctx *x, int secs)
{
	struct stat st;

	return x->main.g.console_path &&
	       stat(x->main.g.console_path, &st) == 0 && st.st_size > 0 &&
	       time(NULL) - st.st_mtime <= secs;
}

/* Watch the main guest through its phases, each with its own timer. */
static void watch(struct cell_ctx *x)
{
	struct guest *g = &x->main.g;
	struct cell_facts *f = &x->facts;
	const struct cell_spec *c = x->c;
	int ret;

	ret = cell_loop(x, g->t_create + c->boot_timeout, agent_hello, g);
	if (ret < 0)
		goto interrupted;
	if (ret == 2)
		return; /* classify() takes the host fault from the guest */
	if (!g->hello) {
		f->boot_timeout = ret == 1;
		f->deadline = ret == 3;
		f->boot_progressing = ret == 1 && console_recent(x, 15);
		return;
	}
	while (!g->exited && !g->stopped) {
		struct phase_watch pw = { .g = g };
		int ph = proto_phase(g->phase);
		int limit = ph == PHASE_WORKLOAD ?
				    c->workload_timeout + WORKLOAD_GRACE :
			    ph == PHASE_COLLECT || ph == PHASE_TEARDOWN ?
				    COLLECT_TIMEOUT :
				    SETUP_TIMEOUT;

		snprintf(pw.seen, sizeof(pw.seen), "%s", g->phase);
		ret = cell_loop(x, now_mono() + limit, phase_changed_or_done,
				&pw);
		if (ret < 0)
			goto interrupted;
		if (ret == 2)
			return;
		if (ret == 1 || ret == 3) {
			f->run_timeout = ret == 1;
			f->deadline = ret == 3;
			f->timeout_phase =
				g->phase[0] ? g->phase :
					      proto_phase_names[PHASE_SETUP];
			dump_blocked_tasks(g);
			return;
		}
	}
	if (g->exited && !g->stopped)
		cell_loop(x, now_mono() + POWEROFF_GRACE, domain_stopped, g);
	return;
interrupted:
	f->infra_error = true;
	f->infra_detail = "interrupted (SIGINT/SIGTERM): domain destroyed";
}

static const char *exit_field(struct guest *g, const char *key, char *buf,
			      size_t len)
{
	size_t klen = strlen(key);

	for (const char *p = g->exit_body.buf; *p && *p != '\n';) {
		const char *nl = strchr(p, '\n');

		if (!strncmp(p, key, klen) && p[klen] == '=') {
			snprintf(buf, len, "%.*s",
				 (int)strcspn(p + klen + 1, "\n"),
				 p + klen + 1);
			return buf;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return NULL;
}

static void classify(struct cell_ctx *x, struct cell_run_result *r,
		     struct console_report *con)
{
	struct cell_facts *f = &x->facts;
	struct guest *g = &x->main.g;
	struct strbuf reason = STRBUF_INIT;
	char phase[32], label[128], rc[16];

	f->hello = g->hello;
	f->exited = g->exited;
	f->agent_status = g->agent_status;
	f->fail_phase = exit_field(g, "phase", phase, sizeof(phase));
	f->fail_label = exit_field(g, "label", label, sizeof(label));
	f->fail_rc = exit_field(g, "rc", rc, sizeof(rc));
	f->stopped_early = g->stopped && !g->exited;
	/* A frame cut off by the guest's own poweroff is the agent's fault. */
	f->proto_error = g->proto_error ||
			 (guest_channel_cut(g) && g->powered_off);
	f->proto_detail = g->proto_why;
	if (g->write_error[0] && !f->infra_error) {
		f->infra_error = true;
		f->infra_detail = g->write_error;
	}
	cell_facts_console(f, con);
	f->host_fault = guest_host_fault(g);
	if (!f->host_fault && x->has_target && x->target.g.name)
		f->host_fault = guest_host_fault(&x->target.g);
	r->outcome = cell_outcome(f, &reason);
	snprintf(r->reason, sizeof(r->reason), "%s", reason.buf);
	strbuf_release(&reason);
}

static void write_empty(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);

	write_string_atomic(p, "");
	free(p);
}

/* Keep a guest's console (never filtered) in the cell dir as name. */
static void keep_console(struct vm *vm, const char *cell_dir, const char *name,
			 struct console_report *con)
{
	char *src = xasprintf("%s/console.log", vm->stage);
	char *dst = xasprintf("%s/%s", cell_dir, name);

	if (path_exists(src)) {
		if (copy_file(src, dst, 0644) < 0)
			warn("cannot copy %s: %s", src, strerror(errno));
		else if (con && console_parse_file(dst, con) < 0)
			warn("cannot parse %s", dst);
	} else {
		write_string_atomic(dst, "");
	}
	free(src);
	free(dst);
}

/* topology.txt holds both sides: the target guest's part is appended. */
static void merge_target_topology(const char *cell_dir)
{
	char *tp = xasprintf("%s/target/topology.txt", cell_dir);
	char *mp = xasprintf("%s/topology.txt", cell_dir);
	struct strbuf all = STRBUF_INIT, t = STRBUF_INIT;

	if (strbuf_read_file(&t, tp) == 0) {
		strbuf_read_file(&all, mp);
		strbuf_addstr(&all, "\n## target guest\n\n");
		strbuf_add(&all, t.buf, t.len);
		write_file_atomic(mp, all.buf, all.len, 0644);
	}
	strbuf_release(&all);
	strbuf_release(&t);
	free(tp);
	free(mp);
}

/*
 * A remote host's pool takes every disk of the cell; a volume tagged with
 * the owner goes first, so a later wblab can tell whose they are.
 */
static int remote_owner(struct cell_ctx *x, virConnectPtr conn,
			const char *name)
{
	char *tag = xasprintf("%s" VOLS_OWNER, name);
	char *text = owner_text(&x->owner, x->c->cell_id);
	int ret;

	x->pool = vols_pool(conn, &x->err);
	ret = x->pool ? vols_put(x->pool, tag, text, &x->err) : -1;
	free(tag);
	free(text);
	return ret;
}

int cell_run(virConnectPtr conn, const struct cell_spec *c,
	     struct cell_run_result *r)
{
	struct cell_ctx x = { .c = c, .conn = conn };
	struct console_report con;
	char started[32], *name, *tname, *tdir;
	bool lost;
	int ret;

	memset(r, 0, sizeof(*r));
	strbuf_init(&x.err, 0);
	now_iso8601(started, sizeof(started));
	name = cell_domain_name(c->run_id, c->cell_id);
	tname = xasprintf("%s-target", name);
	tdir = xasprintf("%s/target", c->cell_dir);
	mkdir_p(c->cell_dir, 0755);
	x.main.role = PLAN_MAIN;
	x.target.role = PLAN_TARGET;
	x.has_target = topology_has_target(c->topo);
	x.deadline = now_mono() +
		     (c->deadline ? c->deadline : cell_default_deadline(c));
	owner_self(&x.owner, c->run_id);

	if (c->infra_error || !c->kernel) {
		strbuf_addstr(&x.err,
			      c->infra_error ? c->infra_error : "no kernel");
		goto infra;
	}
	/* Before anything named name exists, so a reaper knows whose it is. */
	if (owner_file_write(name, &x.owner, c->cell_id)) {
		strbuf_addf(&x.err, "cannot write the owner file under %s: %s",
			    run_root(), strerror(errno));
		goto infra;
	}
	if (c->remote && remote_owner(&x, conn, name))
		goto infra;
	if (x.has_target) {
		mkdir_p(tdir, 0755);
		if (net_start(&x, conn, name) ||
		    vm_prepare(&x, &x.target, tname, tdir) ||
		    start_target(&x, conn))
			goto infra;
	}
	if (vm_prepare(&x, &x.main, name, c->cell_dir) ||
	    guest_start(&x.main.g, conn, x.main.xml.buf, &x.err))
		goto infra;
	watch(&x);
	goto collect;
infra:
	x.facts.infra_error = true;
	x.facts.infra_detail = x.err.buf;
collect:
	/* A cell that never got as far as its guest still gets a cell.json. */
	if (!x.main.g.name)
		guest_init(&x.main.g, name, "", c->cell_dir);
	guest_destroy(&x.main.g);
	console_report_init(&con);
	if (x.main.stage)
		keep_console(&x.main, c->cell_dir, "console.log", &con);
	else
		write_empty(c->cell_dir, "console.log");
	if (x.has_target && x.target.stage) {
		guest_destroy(&x.target.g);
		keep_console(&x.target, c->cell_dir, "console-target.log",
			     NULL);
		merge_target_topology(c->cell_dir);
	}
	if (x.net) {
		if (x.main.g.conn_lost || x.target.g.conn_lost)
			virt_destroy_by_name(x.target.g.conn_uri, x.net_name);
		else
			virNetworkDestroy(x.net);
		virNetworkFree(x.net);
	}
	lost = x.main.g.conn_lost || x.target.g.conn_lost;
	classify(&x, r, &con);
	r->total_s = x.main.g.t_stop > x.main.g.t_create ?
			     x.main.g.t_stop - x.main.g.t_create :
			     0;
	r->boot_s = x.main.g.hello ? x.main.g.t_hello - x.main.g.t_create : 0;
	snprintf(r->release, sizeof(r->release), "%s", x.main.g.release);
	{
		/* Only a cell that got as far as a host has a command line. */
		char *cmdline = c->accel ? cell_cmdline(c) : NULL;

		ret = results_write_cell(c, r, &x.main.g, &con, started,
					 cmdline, &x.main.devs);
		free(cmdline);
	}
	console_report_free(&con);
	vm_free(&x.main, c->keep);
	if (x.has_target)
		vm_free(&x.target, c->keep);
	if (x.pool && !c->keep)
		cell_disks_cleanup(x.pool, c->uri, lost, name);
	if (x.pool)
		virStoragePoolFree(x.pool);
	owner_file_remove(name);
	strbuf_release(&x.err);
	free(x.net_name);
	free(name);
	free(tname);
	free(tdir);
	return ret;
}
