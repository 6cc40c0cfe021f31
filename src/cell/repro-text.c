// SPDX-License-Identifier: GPL-2.0
/*
 * The bundle's own files (repro.h): the kernel's identity, the QEMU
 * command lines, the signature, bundle.json and the README. Everything
 * from cell.json or run.json is guest or foreign text: every value in a
 * script is single-quoted by sh_quote() (util/run.h), and nothing is run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact/cache.h"
#include "artifact/kernel.h"
#include "cell/plan.h"
#include "cell/repro-int.h"
#include "cell/repro.h"
#include "cell/reprosh.h"
#include "results/reader.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/run.h"

static bool hex_hash(const char *s)
{
	size_t n = s ? strspn(s, "0123456789abcdef") : 0;

	return s && n >= 12 && n <= 64 && !s[n];
}

/* The cache entry's bzImage SHA-256 (its seal) and .config, if here. */
static void kernel_cache(struct repro_ctx *x, json_object *k, const char *name,
			 const char *hash, struct strbuf *txt)
{
	char *dir = kernel_cache_dir_of(name, hash);
	char *seal = xasprintf("%s/seal.json", dir);
	char *config = xasprintf("%s/config", dir);
	struct strbuf why = STRBUF_INIT, sb = STRBUF_INIT;
	json_object *s = path_exists(seal) ? results_read_json(seal, &why) :
					     NULL;
	const char *sha = s ? json_str_at(s, "files.bzImage.sha256") : NULL;

	if (sha) {
		json_put_str(k, "bzimage_sha256", sha);
		strbuf_addf(txt, "bzImage SHA-256: %s\n", sha);
	} else {
		strbuf_addf(
			txt,
			"bzImage SHA-256: unknown (no sealed entry %s on the host that made this bundle)\n",
			dir);
	}
	if (!read_file_capped(&sb, config, REPRO_CONFIG_MAX) &&
	    !repro_write(x->out, "config", &sb, 0644, &why)) {
		x->has_config = true;
		strbuf_addstr(txt, ".config: config (from the lab's cache)\n");
	} else {
		strbuf_addstr(txt, ".config: not in the lab's cache\n");
	}
	json_put(k, "config", json_object_new_boolean(x->has_config));
	json_object_put(s);
	strbuf_release(&why);
	strbuf_release(&sb);
	free(dir);
	free(seal);
	free(config);
}

int repro_kernel(struct repro_ctx *x)
{
	const struct cell_kernel *ck = &x->cell->kernel;
	const struct {
		const char *key, *v;
	} keys[] = {
		{ "name", ck->name },	    { "hash", ck->hash },
		{ "version", ck->version }, { "origin", ck->origin },
		{ "source", ck->source },   { "patches", ck->patches },
		{ "cmdline", ck->cmdline }, { "guest_release", ck->release },
	};
	json_object *k = json_object_new_object();
	struct strbuf txt = STRBUF_INIT;
	const char *name = ck->name;
	const char *hash = ck->hash;
	int ret;

	x->bundle = json_object_new_object();
	json_put(x->bundle, "kernel", k);
	if (!hex_hash(hash)) {
		strbuf_addf(x->err, "%s/cell.json: kernel.hash: not a hash",
			    x->cell_dir);
		return -1;
	}
	strbuf_addstr(&txt, "The kernel this cell booted\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = keys[i].v;

		json_put_str(k, keys[i].key, v ? v : "");
		strbuf_addf(&txt, "%-14s %s\n", keys[i].key, v && *v ? v : "-");
	}
	kernel_cache(x, k, name, hash, &txt);
	strbuf_addf(
		&txt,
		"\nA prebuilt kernel is the Debian package named in source; a built one is\n"
		"the tree in source with the patches listed, in order (copied into this\n"
		"bundle), and the .config. A module variant (\"modules rebuilt from\") is\n"
		"the package's bzImage with only the modules its patches change rebuilt\n"
		"against the package's linux-headers (docs/kernels.md). `wblab kernel\n"
		"build %s` fetches or builds it in the lab;\n"
		"wblab run --repro refuses a kernel whose cache key is not %.12s.\n",
		name, hash);
	ret = repro_write(x->out, "kernel.txt", &txt, 0644, x->err);
	strbuf_release(&txt);
	return ret;
}

/*
 * An option of wblab's own (a literal here, never a value) starts a line
 * of the command. What it is decides nothing about quoting: word() quotes
 * every value, so a kernel command line of "-x $(touch M)" stays one word.
 */
static void opt(struct strbuf *sh, const char *flag)
{
	if (flag[0] != '-' || flag[strspn(flag, "-abcdefghijklmnopqrstuvwxyz")])
		die("BUG: qemu.sh: '%s' is no option", flag);
	strbuf_addf(sh, " \\\n\t%s", flag);
}

/* A value, from cell.json or made here: one single-quoted word. */
static void word(struct strbuf *sh, const char *w)
{
	strbuf_addch(sh, ' ');
	sh_quote(sh, w);
}

static void wordf(struct strbuf *sh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void wordf(struct strbuf *sh, const char *fmt, ...)
{
	va_list ap;
	char *w;

	va_start(ap, fmt);
	if (vasprintf(&w, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	word(sh, w);
	free(w);
}

/* What NET_PORT is to this guest's script, if the cell has a network. */
static const char *net_note(const struct repro_ctx *x, bool tgt)
{
	if (!x->has_target)
		return "";
	if (tgt)
		return "# The network to the main guest is UDP on loopback: this guest\n"
		       "# at NET_PORT + 1 (10771), the main guest at NET_PORT (10770).\n";
	return "# The network to the target guest is UDP on loopback: this guest at\n"
	       "# NET_PORT (10770), the target at NET_PORT + 1 (10771).\n";
}

/* One guest's QEMU command, its disks made first. */
static int qemu_script(struct repro_ctx *x, bool tgt)
{
	const struct topology_spec *t = &x->topo;
	const struct topo_disks *d = tgt ? &t->target_disks : &t->disks;
	long long disks = d->count;
	unsigned long long size = d->size;
	long long mem = tgt ? (t->target_memory ? t->target_memory : 512) :
			      x->cell->memory_mib;
	long long cpus = tgt ? 1 : x->cell->vcpus;
	const char *accel = x->cell->accel;
	const char *cmdline = x->cell->kernel.cmdline;
	const char *sfx = tgt ? "-target" : "";
	struct strbuf sh = STRBUF_INIT;
	char *name;
	int ret;

	strbuf_addf(
		&sh,
		"#!/bin/sh\n"
		"# The %s guest of this cell as plain QEMU: what %s gave libvirt.\n"
		"# KERNEL is the bzImage (kernel.txt), INITRD wblab's initramfs (its agent\n"
		"# reads the plan on the channel agent%s.sock: README), ROOT_IMAGE the raw\n"
		"# root image (wblab image build debian-12), MODULES the kernel's modules.img.\n"
		"%s"
		"set -eu\n"
		": \"${KERNEL:=bzImage}\" \"${INITRD:?set INITRD}\" \"${ROOT_IMAGE:?set ROOT_IMAGE}\" \"${NET_PORT:=10770}\"\n"
		"qemu-img create -q -f qcow2 -F raw -b \"$ROOT_IMAGE\" -- root%s.qcow2\n",
		tgt ? "iSCSI target" : "main",
		x->has_domain_xml ? "domain.xml shows" : "the cell", sfx,
		net_note(x, tgt), sfx);
	for (long long i = 0; i < disks; i++)
		strbuf_addf(
			&sh,
			"rm -f -- disk%s%lld.img; truncate -s %llu -- disk%s%lld.img\n",
			sfx, i, size, sfx, i);
	strbuf_addstr(&sh, "exec qemu-system-x86_64");
	opt(&sh, "-machine");
	wordf(&sh, "pc,accel=%s",
	      accel && !strcmp(accel, "kvm") ? "kvm" : "tcg");
	if (accel && !strcmp(accel, "kvm")) {
		opt(&sh, "-cpu");
		word(&sh, "host");
	}
	opt(&sh, "-m");
	wordf(&sh, "%lld", mem);
	opt(&sh, "-smp");
	wordf(&sh, "%lld", cpus);
	opt(&sh, "-nodefaults");
	opt(&sh, "-display");
	word(&sh, "none");
	opt(&sh, "-no-reboot");
	strbuf_addstr(&sh, " \\\n\t-kernel \"$KERNEL\" -initrd \"$INITRD\"");
	opt(&sh, "-append");
	word(&sh, cmdline ? cmdline : "");
	opt(&sh, "-serial");
	wordf(&sh, "file:console%s.log", sfx);
	opt(&sh, "-drive");
	wordf(&sh,
	      "file=root%s.qcow2,format=qcow2,if=none,id=root,cache=none,aio=native",
	      sfx);
	opt(&sh, "-device");
	word(&sh, "virtio-blk-pci,drive=root,serial=wblab-root");
	strbuf_addstr(
		&sh,
		" \\\n\t${MODULES:+-drive file=\"$MODULES\",format=raw,if=none,id=mods,readonly=on"
		" -device virtio-blk-pci,drive=mods,serial=wblab-modules}");
	for (long long i = 0; i < disks; i++) {
		opt(&sh, "-drive");
		wordf(&sh,
		      "file=disk%s%lld.img,format=raw,if=none,id=d%lld,cache=none,aio=native",
		      sfx, i, i);
		opt(&sh, "-device");
		wordf(&sh, "virtio-blk-pci,drive=d%lld,serial=wblab-disk%lld",
		      i, i);
	}
	opt(&sh, "-chardev");
	wordf(&sh, "socket,id=agent,path=agent%s.sock,server=on,wait=off", sfx);
	opt(&sh, "-device");
	word(&sh, "virtio-serial-pci");
	opt(&sh, "-device");
	word(&sh, "virtserialport,chardev=agent,name=org.wblab.agent");
	/* Where run-by-hand.sh sends SysRq keys, as wblab does by libvirt. */
	opt(&sh, "-monitor");
	wordf(&sh, "unix:monitor%s.sock,server=on,wait=off", sfx);
	if (x->has_target) {
		/*
		 * The cell's isolated network: the two guests and nothing
		 * else, UDP on loopback, main at NET_PORT, the target at
		 * NET_PORT + 1. Not multicast, which leaves the host by the
		 * default route and which two bundles run at once would share;
		 * not a TCP stream, over which a swap-direct bundle ran twice
		 * as slowly as its cell (plan done at 174-189 s, the hog's
		 * step timed out; over UDP at 96 s, in the lab's cells at
		 * 88-104 s: docs/repro.md).
		 */
		strbuf_addf(
			&sh,
			" \\\n\t-netdev \"socket,id=net0,udp=127.0.0.1:%s,localaddr=127.0.0.1:%s\"",
			tgt ? "$NET_PORT" : "$((NET_PORT + 1))",
			tgt ? "$((NET_PORT + 1))" : "$NET_PORT");
		opt(&sh, "-device");
		wordf(&sh, "virtio-net-pci,netdev=net0,mac=52:54:00:77:00:0%d",
		      tgt ? 2 : 1);
	}
	strbuf_addch(&sh, '\n');
	name = xasprintf("qemu%s.sh", sfx);
	ret = repro_write(x->out, name, &sh, 0755, x->err);
	free(name);
	strbuf_release(&sh);
	return ret;
}

int repro_qemu(struct repro_ctx *x)
{
	return qemu_script(x, false) || (x->has_target && qemu_script(x, true));
}

/* The blocked tasks, one line each: comm, pid, work, where it waits. */
static void blocked_lines(const struct cell_result *cell, struct strbuf *out)
{
	strbuf_addf(out, "\nTasks in D state (%s): %lld\n",
		    cell->blocked_when ? cell->blocked_when : "no SysRq-t dump",
		    cell->blocked_count);
	for (size_t i = 0; i < cell->nr_blocked; i++) {
		const struct cell_blocked *t = &cell->blocked[i];
		const char *work = t->work;

		strbuf_addf(out, "  %-16s pid %-6lld %s%s%swaits in %s\n",
			    t->comm ? t->comm : "?", t->pid, work ? "(" : "",
			    work ? work : "", work ? ") " : "",
			    t->wait ? t->wait : "?");
	}
}

static void signature_text(struct repro_ctx *x, json_object *sig,
			   struct strbuf *out)
{
	const struct cell_result *c = x->cell;

	strbuf_addf(out, "Cell %s of run %s\n\noutcome: %s\nreason:  %s\n",
		    c->id, c->run, c->outcome_name, c->reason ? c->reason : "");
	strbuf_addf(out, "\nConsole events: %zu\n", c->nr_events);
	for (size_t i = 0; i < c->nr_events; i++) {
		const struct cell_event *e = &c->events[i];

		strbuf_addf(out, "  %s: %s (console.log line %lld)\n",
			    e->kind ? e->kind : "?", e->title ? e->title : "",
			    e->line);
	}
	blocked_lines(x->cell, out);
	strbuf_addstr(out, "\nThe signature a rerun is checked for: ");
	repro_signature_line(sig, out);
	strbuf_addch(out, '\n');
}

static const char readme[] =
	"Reproducer for wblab cell %s (run %s)\n"
	"\n"
	"What it saw: %s\n"
	"Kernel %s (%s), topology %s, workload %s, %lld MiB, %lld vCPUs, %s.\n"
	"The details: signature.txt (outcome, events, blocked tasks), kernel.txt.\n"
	"\n"
	"1. With wblab (the lab that made this bundle, or a checkout of it):\n"
	"\n"
	"     wblab run --repro DIR -n 10\n"
	"\n"
	"   runs the same kernel (refused if its cache key differs), topology,\n"
	"   workload, guest size and command line N times and prints how many of\n"
	"   the cells show the signature again.\n"
	"\n"
	"2. By hand, without wblab:\n"
	"\n"
	"   a. Get the kernel in kernel.txt (check the bzImage SHA-256), a root\n"
	"      image with the packages of the lab's guest image (%s), the\n"
	"      wblab initramfs, and the kernel's modules image. In the lab that\n"
	"      made the bundle: bzImage and modules.img in\n"
	"      %s/,\n"
	"      the initramfs domain.xml names, and\n"
	"      %s/images/%s-*/root.img.\n"
	"   b. KERNEL=bzImage INITRD=initrd.img ROOT_IMAGE=root.img MODULES=modules.img \\\n"
	"        ./run-by-hand.sh\n"
	"      runs the cell once with QEMU and socat (Debian: qemu-system-x86,\n"
	"      qemu-utils, socat) and prints done, hung (a phase outlived wblab's\n"
	"      limit for it) or exited. What it does, step by step: %s./qemu.sh\n"
	"      boots the guest as the cell did (domain.xml is what libvirt got).\n"
	"      Its agent says hello on agent.sock and waits for the plan:\n"
	"        { printf 'WBL1 P %%s plan\\n' \"$(wc -c < plan.txt)\"; cat plan.txt; sleep 86400; } |\n"
	"          socat - UNIX-CONNECT:agent.sock > channel.out\n"
	"      console.log gets the kernel's messages; channel.out the agent's frames.\n"
	"   c. Or boot the kernel in any guest with the disks qemu.sh makes and run\n"
	"      plan.sh as root: the same steps as shell (/run/wblab-agent is wblab's\n"
	"      static agent, build/wblab-agent, for the hog and the sampler).\n"
	"%s"
	"\n"
	"Look for: %s\n";

int repro_texts(struct repro_ctx *x)
{
	json_object *sig = repro_signature(x->cell);
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT;
	const struct cell_result *c = x->cell;
	const char *spec_image = x->run->image;
	const char *image = spec_image ? spec_image : SPEC_DEFAULT_IMAGE;
	const char *extra = x->run->cmdline_extra;
	char *kdir = kernel_cache_dir_of(c->kernel.name, c->kernel.hash);
	char *path;
	int ret;

	repro_signature_line(sig, &line);
	signature_text(x, sig, &sb);
	ret = repro_write(x->out, "signature.txt", &sb, 0644, x->err);
	json_put_int(x->bundle, "format", 1);
	json_put_str(x->bundle, "run", c->run);
	json_put_str(x->bundle, "cell", c->id);
	json_put_str(x->bundle, "topology", x->topo.name);
	json_put_str(x->bundle, "workload", c->workload);
	json_put_str(x->bundle, "image", image);
	json_put_str(x->bundle, "cmdline_extra", extra ? extra : "");
	/* How the guest ran on its host: a rerun runs it so. */
	json_put_str(x->bundle, "levers", c->levers);
	json_put_int(x->bundle, "memory_mib", c->memory_mib);
	json_put_int(x->bundle, "vcpus", c->vcpus);
	json_put_str(x->bundle, "accel", c->accel);
	json_put(x->bundle, "signature", json_object_get(sig));
	json_make_strict(x->bundle);
	path = xasprintf("%s/bundle.json", x->out);
	if (!ret && json_write_atomic(path, x->bundle)) {
		strbuf_addf(x->err, "cannot write %s: %s", path,
			    strerror(errno));
		ret = -1;
	}
	strbuf_reset(&sb);
	strbuf_addf(
		&sb, readme, c->id, c->run, line.buf, c->kernel.name,
		c->kernel.version, x->topo.name, c->workload, c->memory_mib,
		c->vcpus, c->accel, image, kdir, cache_root(), image,
		x->has_target ?
			"first the iSCSI\n"
			"      target: qemu-target.sh with plan-target.txt on agent-target.sock,\n"
			"      until console-target.log says 'wblab-agent: run serve' (the\n"
			"      target serves its LUNs). The two guests' network is UDP on\n"
			"      127.0.0.1, ports NET_PORT (10770) and NET_PORT + 1: run one\n"
			"      bundle per pair of ports. Then " :
			"",
		x->has_target ?
			"   The target guest's steps are plan-target.sh.\n" :
			"",
		line.buf);
	if (!ret)
		ret = repro_write(x->out, "README", &sb, 0644, x->err);
	json_object_put(sig);
	strbuf_release(&sb);
	strbuf_release(&line);
	free(kdir);
	free(path);
	return ret;
}
