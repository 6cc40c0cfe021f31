// SPDX-License-Identifier: GPL-2.0
/*
 * Domain XML via libxml2's xmlTextWriter, so names and paths with <>&'"
 * come out escaped, never pasted into a template.
 */
#include <libxml/xmlwriter.h>
#include <stdio.h>
#include <string.h>

#include "util/log.h"
#include "virt/domxml.h"

#define X(s) ((const xmlChar *)(s))
#define QEMU_XMLNS "http://libvirt.org/schemas/domain/qemu/1.0"

struct xw {
	xmlTextWriterPtr w;
	int err;
};

static void el_start(struct xw *x, const char *name)
{
	if (xmlTextWriterStartElement(x->w, X(name)) < 0)
		x->err = 1;
}

static void el_end(struct xw *x)
{
	if (xmlTextWriterEndElement(x->w) < 0)
		x->err = 1;
}

static void attr(struct xw *x, const char *name, const char *value)
{
	if (xmlTextWriterWriteAttribute(x->w, X(name), X(value)) < 0)
		x->err = 1;
}

static void el_text(struct xw *x, const char *name, const char *text)
{
	if (xmlTextWriterWriteElement(x->w, X(name), X(text)) < 0)
		x->err = 1;
}

/* <name a1='v1' a2='v2'/> from a NULL-terminated attribute list. */
static void el_empty(struct xw *x, const char *name, ...)
{
	va_list ap;
	const char *k;

	el_start(x, name);
	va_start(ap, name);
	while ((k = va_arg(ap, const char *))) {
		const char *v = va_arg(ap, const char *);

		attr(x, k, v);
	}
	va_end(ap);
	el_end(x);
}

static struct xw xw_open(xmlBufferPtr buf)
{
	struct xw x = { xmlNewTextWriterMemory(buf, 0), 0 };

	if (!x.w)
		die("cannot create an XML writer");
	xmlTextWriterSetIndent(x.w, 1);
	xmlTextWriterSetIndentString(x.w, X("  "));
	return x;
}

static int xw_close(struct xw *x, xmlBufferPtr buf, struct strbuf *out)
{
	xmlFreeTextWriter(x->w);
	if (!x->err)
		strbuf_add(out, xmlBufferContent(buf), xmlBufferLength(buf));
	xmlBufferFree(buf);
	return x->err ? -1 : 0;
}

/* QEMU's throttle on the disk: what a rate-limited topology disk costs. */
static void write_iotune(struct xw *x, const struct domain_disk *d)
{
	char v[24];

	if (!d->iops_sec && !d->bytes_sec)
		return;
	el_start(x, "iotune");
	if (d->bytes_sec) {
		snprintf(v, sizeof(v), "%llu", d->bytes_sec);
		el_text(x, "total_bytes_sec", v);
	}
	if (d->iops_sec) {
		snprintf(v, sizeof(v), "%llu", d->iops_sec);
		el_text(x, "total_iops_sec", v);
	}
	el_end(x);
}

static void write_disk(struct xw *x, const struct domain_config *c, int i)
{
	const struct domain_disk *d = &c->disks[i];
	char dev[8], qs[16];

	snprintf(dev, sizeof(dev), "vd%c", 'a' + i);
	snprintf(qs, sizeof(qs), "%u", d->queue_size);
	el_start(x, "disk");
	attr(x, "type", "file");
	attr(x, "device", "disk");
	el_start(x, "driver");
	attr(x, "name", "qemu");
	attr(x, "type", d->format);
	attr(x, "cache", c->disk_cache ? c->disk_cache : "none");
	attr(x, "io", c->disk_io ? c->disk_io : "native");
	if (c->iothread)
		attr(x, "iothread", "1");
	if (d->queue_size)
		attr(x, "queue_size", qs);
	el_end(x);
	el_empty(x, "source", "file", d->path, NULL);
	el_empty(x, "target", "dev", dev, "bus", "virtio", NULL);
	el_text(x, "serial", d->serial);
	write_iotune(x, d);
	if (d->readonly)
		el_empty(x, "readonly", NULL);
	el_end(x);
}

static void write_owner(struct xw *x, const struct owner *o, const char *cell)
{
	char pid[16], start[24];

	snprintf(pid, sizeof(pid), "%d", (int)o->pid);
	snprintf(start, sizeof(start), "%llu", o->start);
	el_start(x, "metadata");
	if (xmlTextWriterStartElementNS(x->w, X("wblab"), X("owner"),
					X(OWNER_XMLNS)) < 0)
		x->err = 1;
	attr(x, "run", o->run_id);
	attr(x, "cell", cell ? cell : "");
	attr(x, "pid", pid);
	attr(x, "start", start);
	attr(x, "boot", o->boot_id);
	attr(x, "host", o->host);
	el_end(x);
	el_end(x);
}

/* The noise levers' placement of the guest's threads on host CPUs. */
static void write_cputune(struct xw *x, const struct domain_config *c)
{
	char v[16];

	if (c->iothread)
		el_text(x, "iothreads", "1");
	if (!c->pinned)
		return;
	el_start(x, "cputune");
	for (unsigned int i = 0; i < c->vcpus && i < DOMAIN_MAX_VCPUS; i++) {
		snprintf(v, sizeof(v), "%u", i);
		el_empty(x, "vcpupin", "vcpu", v, "cpuset", c->vcpupin[i],
			 NULL);
	}
	el_empty(x, "emulatorpin", "cpuset", c->emulatorpin, NULL);
	if (c->iothread)
		el_empty(x, "iothreadpin", "iothread", "1", "cpuset",
			 c->emulatorpin, NULL);
	el_end(x);
}

static void write_qemu_args(struct xw *x, const char *const *args)
{
	if (!args || !*args)
		return;
	if (xmlTextWriterStartElementNS(x->w, X("qemu"), X("commandline"),
					NULL) < 0)
		x->err = 1;
	for (; *args; args++) {
		if (xmlTextWriterStartElementNS(x->w, X("qemu"), X("arg"),
						NULL) < 0)
			x->err = 1;
		attr(x, "value", *args);
		el_end(x);
	}
	el_end(x);
}

int domain_xml(const struct domain_config *c, struct strbuf *out)
{
	xmlBufferPtr buf = xmlBufferCreate();
	struct xw x = xw_open(buf);
	char mem[32], cpus[16];

	snprintf(mem, sizeof(mem), "%u", c->memory_mib);
	snprintf(cpus, sizeof(cpus), "%u", c->vcpus);
	xmlTextWriterStartDocument(x.w, NULL, NULL, NULL);
	el_start(&x, "domain");
	attr(&x, "type", c->type);
	if (c->qemu_args && *c->qemu_args)
		attr(&x, "xmlns:qemu", QEMU_XMLNS);
	el_text(&x, "name", c->name);
	el_start(&x, "memory");
	attr(&x, "unit", "MiB");
	xmlTextWriterWriteString(x.w, X(mem));
	el_end(&x);
	el_text(&x, "vcpu", cpus);
	write_cputune(&x, c);
	if (c->owner)
		write_owner(&x, c->owner, c->owner_cell);
	el_start(&x, "os");
	el_start(&x, "type");
	attr(&x, "arch", "x86_64");
	attr(&x, "machine", "pc");
	xmlTextWriterWriteString(x.w, X("hvm"));
	el_end(&x);
	el_text(&x, "kernel", c->kernel);
	if (c->initrd)
		el_text(&x, "initrd", c->initrd);
	el_text(&x, "cmdline", c->cmdline);
	el_end(&x);
	/* ACPI so the guest's poweroff ends the domain. */
	el_start(&x, "features");
	el_empty(&x, "acpi", NULL);
	el_end(&x);
	if (!strcmp(c->type, "kvm"))
		el_empty(&x, "cpu", "mode", "host-passthrough", NULL);
	el_text(&x, "on_poweroff", "destroy");
	el_text(&x, "on_reboot",
		"destroy"); /* panic=-1 reboots: end the cell */
	el_text(&x, "on_crash", "destroy");
	el_start(&x, "devices");
	for (int i = 0; i < c->nr_disks; i++)
		write_disk(&x, c, i);
	if (c->network) {
		el_start(&x, "interface");
		attr(&x, "type", "network");
		el_empty(&x, "source", "network", c->network, NULL);
		if (c->mac)
			el_empty(&x, "mac", "address", c->mac, NULL);
		el_empty(&x, "model", "type", "virtio", NULL);
		el_end(&x);
	}
	/*
	 * virtlogd rotates a file console at its max_size (2 MiB by default)
	 * and keeps few pieces: a cell's console goes to a socket wblab reads
	 * into a capped capture instead (virt/capture.h).
	 */
	el_start(&x, "serial");
	if (!c->console_sock && !c->console_log) {
		/* A remote host: a pty there, read with virDomainOpenConsole. */
		attr(&x, "type", "pty");
	} else if (c->console_sock) {
		attr(&x, "type", "unix");
		el_empty(&x, "source", "mode", "bind", "path", c->console_sock,
			 NULL);
	} else {
		attr(&x, "type", "file");
		el_empty(&x, "source", "path", c->console_log, "append", "off",
			 NULL);
	}
	el_empty(&x, "target", "port", "0", NULL);
	el_end(&x);
	el_start(&x, "channel");
	if (c->channel_sock) {
		attr(&x, "type", "unix");
		el_empty(&x, "source", "mode", "bind", "path", c->channel_sock,
			 NULL);
	} else {
		/*
		 * A remote host: a unix socket whose path its libvirt picks in
		 * its own dir (virDomainOpenChannel takes unix channels only).
		 */
		attr(&x, "type", "unix");
		el_empty(&x, "source", "mode", "bind", NULL);
	}
	el_empty(&x, "target", "type", "virtio", "name", "org.wblab.agent",
		 NULL);
	el_end(&x);
	/* Nothing the guest does not need: no USB to probe. */
	el_start(&x, "controller");
	attr(&x, "type", "usb");
	attr(&x, "model", "none");
	el_end(&x);
	/* Memory pressure must be the guest's own: no balloon. */
	el_empty(&x, "memballoon", "model", "none", NULL);
	el_end(&x); /* devices */
	write_qemu_args(&x, c->qemu_args);
	el_end(&x); /* domain */
	xmlTextWriterEndDocument(x.w);
	return xw_close(&x, buf, out);
}

int network_xml(const char *name, const char *bridge, const char *ip,
		const char *netmask, struct strbuf *out)
{
	xmlBufferPtr buf = xmlBufferCreate();
	struct xw x = xw_open(buf);

	xmlTextWriterStartDocument(x.w, NULL, NULL, NULL);
	el_start(&x, "network");
	el_text(&x, "name", name);
	/* No <forward>: isolated, guests reach each other and nothing else. */
	el_empty(&x, "bridge", "name", bridge, "stp", "off", NULL);
	/* Without <ip> the host has no address on it either. */
	if (ip)
		el_empty(&x, "ip", "address", ip, "netmask", netmask, NULL);
	el_end(&x);
	xmlTextWriterEndDocument(x.w);
	return xw_close(&x, buf, out);
}
