/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_OWNER_H
#define WBLAB_OWNER_H

#include <libvirt/libvirt.h>
#include <stdbool.h>
#include <sys/types.h>

#include "util/strbuf.h"

/*
 * Who owns a domain, network or staging dir: the wblab process running
 * its cell. A pid alone is not an identity (pids are reused, the host
 * reboots), so the process start time and the boot id go with it.
 * Domains carry it in their libvirt <metadata>; networks and staging dirs
 * in run_root()/<domain>.owner (libvirt 9.0 networks have no metadata).
 */
#define OWNER_XMLNS "https://wblab.invalid/xmlns/owner/1"

struct owner {
	pid_t pid;
	unsigned long long start; /* /proc/<pid>/stat starttime */
	char boot_id[40];
	char host[65];
	char run_id[64];
};

/* This process as an owner of run run_id. */
void owner_self(struct owner *o, const char *run_id);
/* Still running? Owners on another host or boot are taken as alive. */
bool owner_alive(const struct owner *o);
/* run_root()/<name>.owner: written before anything named name exists. */
int owner_file_write(const char *name, const struct owner *o,
		     const char *cell_id);
void owner_file_remove(const char *name);
int owner_file_read(const char *path, struct owner *o);
/* The owner as "key=value" lines, as in the file (caller frees). */
char *owner_text(const struct owner *o, const char *cell_id);
/* Parse owner_text() (text is modified). 0, or -1 without a pid. */
int owner_parse(char *text, struct owner *o);
/*
 * Destroy every wblab domain and network on conn whose owner is dead,
 * delete the volumes a remote cell left in the host's wblab pool (by their
 * owner volume), and remove their staging dirs and owner files. Returns how many objects were
 * removed; each is reported with info().
 */
int owner_reap(virConnectPtr conn);

#endif
