/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_PROBE_H
#define WBLAB_PROBE_H

#include <libvirt/libvirt.h>
#include <stdbool.h>

#include "artifact/kernel.h"
#include "util/strbuf.h"

struct accel_verdict {
	char accel[8]; /* "kvm" or "tcg" */
	char reason[256];
	bool cached;
	double probe_s; /* how long the probe boot took */
};

/*
 * Decide the acceleration: /dev/kvm existing is not enough (a nested,
 * paravirtual host can hang a KVM guest), so boot a probe guest under KVM
 * with a short timeout. The verdict is cached per host (QEMU version, host
 * kernel, libvirt URI). want: "auto", "kvm" or "tcg".
 */
int accel_decide(virConnectPtr conn, const char *uri, const char *want,
		 const struct kernel_artifact *k, const char *initrd,
		 struct accel_verdict *v);
/*
 * Boot a probe guest under accel ("kvm" or "tcg") now, never from a cache:
 * can a domain start on this host at all? A cached KVM verdict says
 * nothing about a host whose domain starts all fail (a broken /dev/null
 * did that). true, or false; why says what happened either way.
 */
bool domain_boots_now(virConnectPtr conn, const char *accel,
		      const struct kernel_artifact *k, const char *initrd,
		      struct strbuf *why);
/* The cache key inputs as one line (for doctor). */
void accel_host_identity(virConnectPtr conn, const char *uri,
			 struct strbuf *out);

#endif
