// SPDX-License-Identifier: GPL-2.0
/*
 * The hosts a matrix runs on: connect, reap what dead wblabs left there,
 * learn what each may hold, and place cells so that guest memory and
 * vCPUs are never overcommitted. A host whose connection is gone is
 * dropped; its cells go to the others.
 */
#include <sys/utsname.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cell/cell.h"
#include "cell/results.h"
#include "matrix/engine.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "virt/owner.h"
#include "virt/virt.h"
#include "spec/hosts.h"
#include "virt/probe.h"

/* Connect, reap what dead wblabs left, learn the capacity, decide accel. */
void host_up(struct engine *e, struct engine_host *h)
{
	struct strbuf err = STRBUF_INIT;
	const struct engine_kernel *k = first_kernel(e);
	virNodeInfo ni;
	unsigned long long free_b;
	long long total_mib = 0, cap;

	h->conn = virt_connect(h->spec->uri, &err);
	if (!h->conn) {
		h->down_reason = strbuf_detach(&err, NULL);
		warn("host %s: %s", h->spec->name, h->down_reason);
		return;
	}
	strbuf_release(&err);
	/* The host's staging dir, for the reaper; the user's own comes back. */
	if (h->spec->run_dir) {
		char *saved = getenv("WBLAB_RUNDIR") ?
				      xstrdup(getenv("WBLAB_RUNDIR")) :
				      NULL;

		setenv("WBLAB_RUNDIR", h->spec->run_dir, 1);
		owner_reap(h->conn);
		if (saved)
			setenv("WBLAB_RUNDIR", saved, 1);
		else
			unsetenv("WBLAB_RUNDIR");
		free(saved);
	} else {
		owner_reap(h->conn);
	}
	if (virNodeGetInfo(h->conn, &ni) == 0) {
		h->cpus = (int)ni.cpus;
		total_mib = (long long)(ni.memory >> 10);
	}
	if (h->spec->cpus)
		h->cpus = (int)h->spec->cpus;
	if (h->cpus < 1)
		h->cpus = 1;
	free_b = virNodeGetFreeMemory(h->conn);
	cap = (long long)(free_b >> 20) - HOST_RESERVE_MIB;
	if (total_mib && cap > total_mib * 3 / 4)
		cap = total_mib * 3 / 4;
	h->mem_mib = h->spec->memory ? h->spec->memory :
				       (cap > 512 ? cap : 512);
	if (k)
		accel_decide(h->conn, h->spec->uri, e->o.accel, &k->art,
			     k->initrd, &h->accel);
	else
		snprintf(h->accel.accel, sizeof(h->accel.accel), "%s",
			 strcmp(e->o.accel, "kvm") ? "tcg" : "kvm");
	if (!strcmp(h->accel.accel, "tcg") && strcmp(e->o.accel, "tcg"))
		warn("host %s: using TCG (software emulation), not KVM: %s%s",
		     h->spec->name, h->accel.reason,
		     h->accel.cached ?
			     " (cached verdict; wblab doctor --reprobe re-checks)" :
			     "");
	h->slots = xzalloc((size_t)h->cpus * sizeof(*h->slots));
	h->up = true;
	if (h->spec->pool_path && engine_upload(e, h))
		host_down(e, h, "cannot upload the artifacts to its pool");
}

void host_down(struct engine *e, struct engine_host *h, const char *why)
{
	if (!h->up)
		return;
	h->up = false;
	free(h->down_reason);
	h->down_reason = xstrdup(why);
	progress_note(&e->prog,
		      "host %s is gone (%s): its cells move to the other hosts",
		      h->spec->name, why);
}

void hosts_up(struct engine *e)
{
	e->nh = e->hs.n;
	e->hosts = xzalloc(e->nh * sizeof(*e->hosts));
	for (size_t i = 0; i < e->nh; i++) {
		e->hosts[i].spec = &e->hs.hosts[i];
		e->hosts[i].index = (int)i;
		if (!e->hs.hosts[i].disabled)
			host_up(e, &e->hosts[i]);
	}
}

void host_json(const struct engine *e, json_object *host)
{
	const struct engine_host *h0 = &e->hosts[0];
	struct utsname u;
	unsigned long lv = 0, hv = 0;
	char line[256], model[200] = "";
	FILE *f = fopen("/proc/cpuinfo", "r");

	uname(&u);
	virGetVersion(&lv, NULL, NULL);
	if (h0->conn)
		virConnectGetVersion(h0->conn, &hv);
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "model name : %199[^\n]", model) == 1)
			break;
	if (f)
		fclose(f);
	json_object_object_add(host, "hostname",
			       json_object_new_string(u.nodename));
	json_object_object_add(host, "kernel",
			       json_object_new_string(u.release));
	json_object_object_add(host, "libvirt_uri",
			       json_object_new_string(h0->spec->uri));
	json_object_object_add(host, "libvirt_version",
			       json_object_new_int64(lv));
	json_object_object_add(host, "qemu_version", json_object_new_int64(hv));
	json_object_object_add(host, "accel",
			       json_object_new_string(h0->accel.accel));
	json_object_object_add(host, "accel_reason",
			       json_object_new_string(h0->accel.reason));
	json_object_object_add(
		host, "image",
		json_object_new_string(e->image.path ? e->image.path : ""));
	/* The host's CPU model and size, for reports' header. */
	json_object_object_add(host, "cpu", json_object_new_string(model));
	json_object_object_add(
		host, "cpus",
		json_object_new_int(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_object_add(
		host, "memory_mib",
		json_object_new_int64((long long)sysconf(_SC_PHYS_PAGES) *
					      sysconf(_SC_PAGESIZE) >>
				      20));
}

json_object *hosts_json(const struct engine *e)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < e->nh; i++) {
		const struct engine_host *h = &e->hosts[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name",
				       json_object_new_string(h->spec->name));
		json_object_object_add(o, "uri",
				       json_object_new_string(h->spec->uri));
		json_object_object_add(o, "cpus", json_object_new_int(h->cpus));
		json_object_object_add(o, "memory_mib",
				       json_object_new_int64(h->mem_mib));
		json_object_object_add(o, "accel",
				       json_object_new_string(h->accel.accel));
		json_object_object_add(o, "up", json_object_new_boolean(h->up));
		if (h->down_reason)
			json_object_object_add(
				o, "down_reason",
				json_object_new_string(h->down_reason));
		json_object_array_add(a, o);
	}
	return a;
}

int free_slot(const struct engine_host *h)
{
	for (int s = 0; s < h->cpus; s++)
		if (!h->slots[s])
			return s;
	return -1;
}

/* Could this host take the cell now? */
bool host_fits(const struct engine *e, const struct engine_host *h, size_t ci)
{
	long long mib = cell_footprint(e, ci);
	int vcpus = (int)e->r->cells[ci].cell.vcpus;

	if (!h->up || free_slot(h) < 0)
		return false;
	/* A cell bigger than the host runs alone, never beside another. */
	if (!h->running)
		return true;
	return h->used_cpus + vcpus <= h->cpus &&
	       h->used_mib + mib <= h->mem_mib;
}

/* Is there a host this cell could ever run on? */
bool any_host_up(const struct engine *e)
{
	for (size_t i = 0; i < e->nh; i++)
		if (e->hosts[i].up)
			return true;
	return false;
}

struct engine_host *pick_host(struct engine *e, size_t ci)
{
	struct engine_host *best = NULL;
	int avoid = e->st[ci].last_host;

	for (size_t i = 0; i < e->nh; i++) {
		struct engine_host *h = &e->hosts[i];

		if (!host_fits(e, h, ci))
			continue;
		/* A retry goes elsewhere when it can. */
		if ((int)i == avoid && best == NULL) {
			best = h;
			continue;
		}
		if (!best || (int)(best - e->hosts) == avoid ||
		    h->running < best->running)
			best = h;
	}
	return best;
}

/* Is the host still there? A dead connection is tried once more. */
void check_host(struct engine *e, struct engine_host *h)
{
	struct strbuf err = STRBUF_INIT;
	virConnectPtr c;

	if (!h->up || (h->conn && virConnectIsAlive(h->conn) == 1))
		return;
	c = virt_connect(h->spec->uri, &err);
	if (c) {
		if (h->conn)
			virConnectClose(h->conn);
		h->conn = c;
	} else {
		host_down(e, h, err.buf);
	}
	strbuf_release(&err);
}

/*
 * --uri's value, or $WBLAB_URI's (virt_default_uri() hands out getenv()'s
 * own string): the name an error gives.
 */
static const char *uri_origin(const char *uri)
{
	return uri == getenv("WBLAB_URI") ? "$WBLAB_URI" : "--uri";
}

int load_hosts(struct engine *e)
{
	const char *uri = e->o.uri ? e->o.uri : virt_default_uri();
	struct strbuf why = STRBUF_INIT;

	if (!e->o.hosts) {
		int bad = hosts_uri_check(uri, &why);

		if (bad)
			error("%s %s: %s", uri_origin(uri), uri, why.buf);
		else
			hosts_spec_single(&e->hs, uri);
		strbuf_release(&why);
		return bad;
	}
	return hosts_spec_load(e->o.hosts, &e->hs, NULL) ? -1 : 0;
}
