/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_DISKS_H
#define WBLAB_CELL_DISKS_H

#include <libvirt/libvirt.h>
#include <stdint.h>

#include "spec/specs.h"
#include "util/strbuf.h"
#include "virt/domxml.h"

/*
 * The disks of one guest of a cell, in domain order: the root overlay on
 * image, the modules image (read-only, when there is one), then ndisks
 * scratch disks of size bytes (the topology's members, the target guest's
 * LUN backing). On the local host they are files in the staging dir stage;
 * with pool (a remote host) volumes of its wblab pool named
 * "<name>--root.qcow2" and "<name>--disk<i>.img", created over the
 * connection. Paths as the host's QEMU sees them are added to dc (the
 * caller frees them). 0, or -1 with the reason in err.
 */
struct cell_disks {
	const char *name; /* the guest's domain name */
	const char *stage; /* local staging dir (local host only) */
	const char *image, *modules_img;
	long long ndisks;
	uint64_t size;
	/* The scratch disks' <iotune> and queue size (topology_disk_iotune) */
	const struct topology_spec *topo;
	const char *role; /* "main" or "target" */
	virStoragePoolPtr pool; /* NULL: the local host */
};

int cell_disks_make(const struct cell_disks *d, struct domain_config *dc,
		    struct strbuf *err);
/*
 * A remote cell's end: the volumes of its guests (name and name-target),
 * then its owner tag. When the connection was lost (lost) they are
 * deleted over a new one to uri, if the host is back.
 */
void cell_disks_cleanup(virStoragePoolPtr pool, const char *uri, bool lost,
			const char *name);

#endif
