/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_VOLS_H
#define WBLAB_VOLS_H

#include <libvirt/libvirt.h>
#include <stddef.h>

#include "util/strbuf.h"

/*
 * Volumes of a host's wblab storage pool, over the libvirt connection: the
 * uploaded artifacts (matrix/upload.c) and, on a remote host, every disk
 * of a cell. A cell's volumes are named "<domain>--<what>", so the cell's
 * end (or the reaper, virt/owner.c) removes them by that prefix; its owner
 * is a small volume "<cell domain>.owner" holding owner_text(), which no
 * cell prefix matches, so it goes last.
 */
#define VOLS_POOL "wblab"
#define VOLS_SEP "--"
#define VOLS_OWNER ".owner"
/* The most a volume read back with vols_get may hold. */
#define VOLS_GET_MAX 4096

/* The host's wblab pool, active; NULL with the reason in err. */
virStoragePoolPtr vols_pool(virConnectPtr conn, struct strbuf *err);
/*
 * A qcow2 overlay backed by the raw volume at backing (a path the host's
 * libvirt gave us): returns its path on the host, or NULL with err.
 */
char *vols_overlay(virStoragePoolPtr p, const char *name, const char *backing,
		   struct strbuf *err);
/* A sparse raw volume of size bytes: its path on the host, or NULL. */
char *vols_disk(virStoragePoolPtr p, const char *name, unsigned long long size,
		struct strbuf *err);
/* A small volume holding text (an owner tag). 0, or -1 with err. */
int vols_put(virStoragePoolPtr p, const char *name, const char *text,
	     struct strbuf *err);
/* Read back a vols_put volume (at most VOLS_GET_MAX bytes). 0 or -1. */
int vols_get(virStoragePoolPtr p, const char *name, struct strbuf *out);
/* Delete every volume whose name starts with prefix; how many went. */
int vols_delete_prefix(virStoragePoolPtr p, const char *prefix);
/* The names of the pool's volumes starting with prefix (caller frees). */
int vols_list(virStoragePoolPtr p, const char *prefix, char ***names);

#endif
