// SPDX-License-Identifier: GPL-2.0
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/log.h"
#include "virt/domxml.h"
#include "virt/guest.h"
#include "spec/hosts.h"
#include "virt/probe.h"
#include "virt/virt.h"

#define PROBE_TIMEOUT 20 /* s: a TCG boot to userspace takes ~5 s */
/*
 * doctor's domain start: a working host, loaded. 11 s at load 6, over 20
 * at load 8 (2026-12-07): the cells' own boot deadline, not the KVM
 * probe's, which only has to tell a hang from a boot.
 */
#define START_TIMEOUT 120

void accel_host_identity(virConnectPtr conn, const char *uri,
			 struct strbuf *out)
{
	unsigned long hv = 0;
	struct utsname u;

	uname(&u);
	if (conn)
		virConnectGetVersion(conn, &hv);
	strbuf_addf(out, "uri=%s qemu=%lu host=%s %s", uri, hv, u.release,
		    u.version);
}

static char *verdict_path(virConnectPtr conn, const char *uri)
{
	struct strbuf id = STRBUF_INIT;
	struct hasher *h = hasher_new();
	char hex[HASH_HEX_LEN + 1], *leaf, *path;

	accel_host_identity(conn, uri, &id);
	hasher_add_str(h, "wblab-accel-probe", id.buf);
	hasher_finish(h, hex);
	leaf = xasprintf("%.16s.json", hex);
	path = cache_path("probe", leaf);
	free(leaf);
	strbuf_release(&id);
	return path;
}

static bool hello_or_stop(void *arg)
{
	struct guest *g = arg;

	return g->hello || g->stopped;
}

enum probe_end { PROBE_HELLO, PROBE_NO_START, PROBE_TIMEOUT_END };

/*
 * Boot the probe guest under type ("kvm" or "qemu", libvirt's name for
 * TCG) and say how it ended: the agent reported in, the domain would not
 * start (QEMU's complaint in why, on one line) or the time ran out. *secs
 * is how long it took.
 */
static enum probe_end probe_boots(virConnectPtr conn, const char *type,
				  const struct kernel_artifact *k,
				  const char *initrd, int timeout,
				  struct strbuf *why, double *secs)
{
	char *name = xasprintf("wblab-probe-%d", (int)getpid());
	char *stage = xasprintf("%s/%s", run_root(), name);
	char *sock = xasprintf("%s/agent.sock", stage);
	char *console = xasprintf("%s/console.log", stage);
	struct domain_config dc = {
		.name = name,
		.type = type,
		.memory_mib = 256,
		.vcpus = 1,
		.kernel = k->bzimage,
		.initrd = initrd,
		.cmdline = "console=ttyS0 panic=-1 wblab.mode=probe",
		.console_log = console,
		.channel_sock = sock,
	};
	struct strbuf xml = STRBUF_INIT, err = STRBUF_INIT;
	struct guest g;
	enum probe_end end = PROBE_NO_START;

	*secs = 0;
	rm_rf(stage);
	cache_make_dir(stage);
	chown_to_qemu(stage);
	guest_init(&g, name, sock, stage);
	if (domain_xml(&dc, &xml) || guest_start(&g, conn, xml.buf, &err)) {
		/* QEMU's complaint is the useful part, on one line. */
		const char *q = strstr(err.buf, "qemu-system");
		char *p = xstrdup(q ? q : err.buf);

		for (char *c = p; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		strbuf_addf(why, "%.180s", p);
		free(p);
		goto out;
	}
	guest_loop(g.t_create + timeout, hello_or_stop, &g);
	*secs = now_mono() - g.t_create;
	end = g.hello ? PROBE_HELLO : PROBE_TIMEOUT_END;
out:
	guest_release(&g);
	rm_rf(stage);
	strbuf_release(&xml);
	strbuf_release(&err);
	free(name);
	free(stage);
	free(sock);
	free(console);
	return end;
}

static bool kvm_boots(virConnectPtr conn, const struct kernel_artifact *k,
		      const char *initrd, struct accel_verdict *v)
{
	struct strbuf q = STRBUF_INIT;
	enum probe_end end = probe_boots(conn, "kvm", k, initrd, PROBE_TIMEOUT,
					 &q, &v->probe_s);

	if (end == PROBE_NO_START)
		snprintf(v->reason, sizeof(v->reason),
			 "/dev/kvm exists but a KVM guest would not start: %s",
			 q.buf);
	else if (end == PROBE_HELLO)
		snprintf(
			v->reason, sizeof(v->reason),
			"a probe guest booted to userspace under KVM in %.1f s",
			v->probe_s);
	else
		snprintf(
			v->reason, sizeof(v->reason),
			"/dev/kvm exists but a probe guest did not reach userspace under KVM within %d s",
			PROBE_TIMEOUT);
	strbuf_release(&q);
	return end == PROBE_HELLO;
}

bool domain_boots_now(virConnectPtr conn, const char *accel,
		      const struct kernel_artifact *k, const char *initrd,
		      struct strbuf *why)
{
	struct strbuf q = STRBUF_INIT;
	double secs;
	enum probe_end end = probe_boots(conn,
					 strcmp(accel, "kvm") ? "qemu" : "kvm",
					 k, initrd, START_TIMEOUT, &q, &secs);

	if (end == PROBE_NO_START)
		strbuf_addf(why, "a domain would not start: %s", q.buf);
	else if (end == PROBE_HELLO)
		strbuf_addf(why, "a probe guest booted to userspace in %.1f s",
			    secs);
	else
		strbuf_addf(why,
			    "a probe guest did not reach userspace within %d s",
			    START_TIMEOUT);
	strbuf_release(&q);
	return end == PROBE_HELLO;
}

/*
 * A remote host's /dev/kvm is not ours to open, and the probe guest would
 * need local paths: ask its libvirt whether it offers KVM domains.
 */
static void remote_accel(virConnectPtr conn, struct accel_verdict *v)
{
	char *caps = virConnectGetDomainCapabilities(conn, NULL, "x86_64", NULL,
						     "kvm", 0);

	/*
	 * Offered is not working (a nested /dev/kvm may fail at the first
	 * MSR write): without a probe boot there, KVM only when asked.
	 */
	snprintf(v->accel, sizeof(v->accel), "tcg");
	snprintf(
		v->reason, sizeof(v->reason), "%s",
		caps ? "a remote host is not probed: its libvirt offers KVM, --accel kvm uses it" :
		       "the remote host's libvirt offers no KVM domains");
	free(caps);
}

int accel_decide(virConnectPtr conn, const char *uri, const char *want,
		 const struct kernel_artifact *k, const char *initrd,
		 struct accel_verdict *v)
{
	char *path = verdict_path(conn, uri);
	json_object *o;

	memset(v, 0, sizeof(*v));
	if (!strcmp(want, "kvm") || !strcmp(want, "tcg")) {
		snprintf(v->accel, sizeof(v->accel), "%s", want);
		snprintf(v->reason, sizeof(v->reason), "chosen with --accel");
		free(path);
		return 0;
	}
	o = getenv("WBLAB_REPROBE") ? NULL : json_object_from_file(path);
	if (o) {
		json_object *a, *r;

		if (json_object_object_get_ex(o, "accel", &a) &&
		    json_object_object_get_ex(o, "reason", &r)) {
			snprintf(v->accel, sizeof(v->accel), "%s",
				 json_object_get_string(a));
			snprintf(v->reason, sizeof(v->reason), "%s",
				 json_object_get_string(r));
			v->cached = true;
		}
		json_object_put(o);
		if (v->cached) {
			free(path);
			return 0;
		}
	}
	if (hosts_uri_remote(uri)) {
		/* Cheap to ask again, and not a probe: never cached. */
		remote_accel(conn, v);
		free(path);
		return 0;
	}
	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		snprintf(v->accel, sizeof(v->accel), "tcg");
		snprintf(v->reason, sizeof(v->reason), "no usable /dev/kvm");
	} else if (kvm_boots(conn, k, initrd, v)) {
		snprintf(v->accel, sizeof(v->accel), "kvm");
	} else {
		snprintf(v->accel, sizeof(v->accel), "tcg");
	}
	o = json_object_new_object();
	json_object_object_add(o, "accel", json_object_new_string(v->accel));
	json_object_object_add(o, "reason", json_object_new_string(v->reason));
	json_object_object_add(o, "probe_s",
			       json_object_new_double(v->probe_s));
	{
		char *dir = cache_path("probe", "");

		cache_make_dir(dir);
		free(dir);
	}
	if (json_write_atomic(path, o))
		warn("cannot cache the acceleration verdict in %s", path);
	json_object_put(o);
	free(path);
	return 0;
}
