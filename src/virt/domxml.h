/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_DOMXML_H
#define WBLAB_DOMXML_H

#include <stdbool.h>

#include "util/strbuf.h"
#include "virt/owner.h"

#define DOMAIN_MAX_DISKS 20
#define DOMAIN_MAX_VCPUS 64
#define DOMAIN_CPUSET_LEN 24

struct domain_disk {
	const char *path;
	const char *format; /* raw or qcow2 */
	const char *serial; /* the guest finds disks by serial */
	bool readonly;
	/* <iotune> total_iops_sec and total_bytes_sec; 0: unlimited */
	unsigned long long iops_sec, bytes_sec;
	unsigned int queue_size; /* virtqueue size; 0: QEMU's default */
};

/* Everything a cell's transient libvirt domain is made of. */
struct domain_config {
	const char *name;
	const char *type; /* "kvm" or "qemu" (TCG) */
	unsigned int memory_mib;
	unsigned int vcpus;
	const char *kernel;
	const char *initrd;
	const char *cmdline;
	const char *console_log; /* serial console to this file (virtlogd) */
	/* Or, when set, to this unix socket, which wblab reads (no rotation). */
	const char *console_sock;
	const char *channel_sock; /* virtio-serial org.wblab.agent */
	/*
	 * A remote host (nothing by path on our side): with neither
	 * console_log nor console_sock the console is a pty, and with no
	 * channel_sock the agent channel a unix socket at a path the host's
	 * libvirt picks; both are read over the connection
	 * (virDomainOpenConsole, virDomainOpenChannel).
	 */
	struct domain_disk disks[DOMAIN_MAX_DISKS];
	int nr_disks;
	/* Every disk's driver cache and io; NULL: "none" and "native". */
	const char *disk_cache, *disk_io;
	bool iothread; /* one <iothread>, every disk on it */
	/*
	 * <cputune> when pinned: vcpupin[i] for vCPU i, emulatorpin for the
	 * emulator threads and the iothread (host cpusets, "0", "2-3").
	 */
	bool pinned;
	char vcpupin[DOMAIN_MAX_VCPUS][DOMAIN_CPUSET_LEN];
	char emulatorpin[DOMAIN_CPUSET_LEN];
	/* Arguments for QEMU libvirt has no element for (<qemu:commandline>). */
	const char *const *qemu_args;
	const char *network; /* libvirt network to join, or NULL */
	const char *mac;
	/* Who runs it, in <metadata>, so a later wblab can reap it. */
	const struct owner *owner;
	const char *owner_cell;
};

/* Write the domain XML with libxml2's writer: every value is escaped. */
int domain_xml(const struct domain_config *c, struct strbuf *out);
/* An isolated libvirt network (no forward: no host uplink). */
int network_xml(const char *name, const char *bridge, const char *ip,
		const char *netmask, struct strbuf *out);

#endif
