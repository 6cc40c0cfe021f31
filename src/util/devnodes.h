/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_DEVNODES_H
#define WBLAB_DEVNODES_H

#include <stdbool.h>

#include "util/strbuf.h"

/*
 * The device nodes QEMU and libvirt need on the host that runs a domain.
 * A regular file where /dev/null should be (what a rename over it leaves)
 * makes every domain start fail, for every user of the machine, with a
 * libvirt error that does not name it; so wblab looks before it starts.
 */
struct devnode {
	const char *path;
	unsigned int major, minor;
	bool required; /* missing is an error, not only the wrong type */
	const char *fix;
};

extern const struct devnode host_devnodes[];
extern const unsigned int nr_host_devnodes;

/*
 * Is root/<n->path> the character device n says? root is "" for the
 * host's own /dev (tests pass a directory of their own). true, or false
 * with what is wrong in why (path, what it is instead, what to do).
 * Missing and not required is true, with "absent" in why.
 */
bool devnode_ok(const char *root, const struct devnode *n, struct strbuf *why);
/*
 * Every node of host_devnodes under root: 0, or -1 with the first bad one
 * in why (the preflight of every run).
 */
int devnodes_check(const char *root, struct strbuf *why);
/*
 * The root the run's preflight checks: "" (the host's /dev), or
 * $WBLAB_DEV_ROOT, which the end-to-end tests point at a directory of
 * their own to show a broken node stopping a run without breaking the
 * host's.
 */
const char *devnodes_root(void);

#endif
