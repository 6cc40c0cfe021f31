/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_SPEC_HOSTS_H
#define WBLAB_SPEC_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

/*
 * lab/hosts.yaml: the libvirt endpoints a matrix may use and what each may
 * hold. libvirt is the distributed engine: wblab schedules onto these URIs
 * and runs no daemon of its own.
 */
struct host_spec {
	char *name;
	char *uri; /* qemu:///system, qemu+ssh://h/system, qemu+tcp://... */
	long long cpus; /* vCPUs it may run at once; 0 = its CPU count */
	long long memory; /* guest memory it may hold, MiB; 0 = derived */
	/*
	 * Images, kernels and initramfs reach the host as volumes of a
	 * wblab storage pool there (virStorageVolUpload), at pool_path.
	 * Without a pool the host reads the local cache paths (the local
	 * host, or one that shares /var/lib/wblab).
	 */
	char *pool_path;
	char *run_dir; /* staging dir the host's QEMU can write; default run_root() */
	char *qemu_user; /* who QEMU runs as there (a session daemon's user) */
	bool disabled;
	/*
	 * Shares nothing with us but the connection (set, or the URI has a
	 * hostname): console and agent channel are libvirt streams, every
	 * disk a volume of its pool (which it then needs).
	 */
	bool remote;
	int line;
};

struct hosts_spec {
	char *path;
	struct host_spec *hosts;
	size_t n;
};

/* Load path; errors are "file:line: field: message" into err (or stderr). */
int hosts_spec_load(const char *path, struct hosts_spec *out,
		    struct strbuf *err);
/* One host named "local" at uri (no hosts file). */
void hosts_spec_single(struct hosts_spec *out, const char *uri);
void hosts_spec_free(struct hosts_spec *h);
/*
 * Is uri one wblab may open? A transport of qemu:///system or /session,
 * qemu+ssh, qemu+libssh, qemu+libssh2, qemu+tls, qemu+tcp (with a host),
 * qemu+unix or test:/// (without), and only query parameters that start
 * no program (not command=, netcat=, socket= but qemu+unix's, name=).
 * libvirt runs ext's and ssh's command= as a program: a URI from a
 * hosts file, --uri or $WBLAB_URI would run it as root. 0, or -1 with why.
 */
int hosts_uri_check(const char *uri, struct strbuf *why);
/* Does the libvirt URI name a host (qemu+ssh://box/system)? */
bool hosts_uri_remote(const char *uri);

#endif
