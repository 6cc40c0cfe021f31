/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_VIRT_H
#define WBLAB_VIRT_H

#include <libvirt/libvirt.h>
#include <stdbool.h>

#include "util/strbuf.h"

/* The libvirt URI: --uri, else $WBLAB_URI, else qemu:///system. */
const char *virt_default_uri(void);
/*
 * Register libvirt's default event loop (once) and open uri. Errors go to
 * err with what to do about them (start libvirtd: make services).
 */
virConnectPtr virt_connect(const char *uri, struct strbuf *err);
/* What to do when connecting to uri failed (root, libvirtd, a remote host). */
const char *virt_connect_hint(const char *uri);
/* The last libvirt error as text. */
const char *virt_last_error(void);
/* Destroy every domain named wblab-<prefix>*; returns how many. */
int virt_destroy_prefix(virConnectPtr conn, const char *prefix);

/*
 * After a lost connection: reconnect to uri (waiting up to 60 s for a
 * restarting libvirtd) and destroy the domain or network named name, if it
 * is there. 0 if it is gone.
 */
int virt_destroy_by_name(const char *uri, const char *name);

/*
 * Are a and b the same domain, by UUID? Not by name: a retried cell
 * reuses its name, and libvirtd may deliver the previous attempt's late
 * stop event (on_poweroff lags) while the new domain of that name boots.
 * False if a is NULL.
 */
bool virt_same_domain(virDomainPtr a, virDomainPtr b);

/*
 * What a host is, for each cell's record: a comparison across hosts is
 * not an A/B (docs/matrix.md). Asked over the connection, so a remote
 * host answers for itself.
 */
struct virt_host_facts {
	char hostname[128];
	char cpu_model[128]; /* libvirt's host CPU model (capabilities) */
	unsigned long qemu_version,
		libvirt_version; /* major*1e6+minor*1e3+rel */
};
void virt_host_facts(virConnectPtr conn, struct virt_host_facts *f);

/* SIGINT/SIGTERM: set a flag and wake the event loop; see guest_loop(). */
void virt_install_signal_handlers(void);
bool virt_interrupted(void);

#endif
