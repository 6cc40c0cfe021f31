// SPDX-License-Identifier: GPL-2.0
/*
 * A guest's disks: files in the local staging dir (the local host's fast
 * path), or volumes of a remote host's wblab pool (nothing by path here).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "cell/disks.h"
#include "util/log.h"
#include "util/run.h"
#include "virt/virt.h"
#include "virt/vols.h"

static void add_disk(struct domain_config *dc, char *path, const char *format,
		     const char *serial, bool ro)
{
	dc->disks[dc->nr_disks++] = (struct domain_disk){
		.path = path,
		.format = format,
		.serial = xstrdup(serial),
		.readonly = ro,
	};
}

static char *local_disk(const char *path, uint64_t size, struct strbuf *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || ftruncate(fd, size) < 0) {
		strbuf_addf(err, "cannot create disk %s: %s", path,
			    strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	close(fd);
	/* A session daemon's QEMU cannot be given the files: they must be its. */
	if (getenv("WBLAB_QEMU_USER"))
		chown_to_qemu(path);
	return xstrdup(path);
}

static char *local_overlay(const struct cell_disks *d, struct strbuf *err)
{
	char *overlay = xasprintf("%s/root.qcow2", d->stage);
	const char *qimg[] = { "qemu-img", "create", "-q",    "-f",
			       "qcow2",	   "-F",     "raw",   "-b",
			       d->image,   "--",     overlay, NULL };
	struct strbuf out = STRBUF_INIT;

	if (run_capture(qimg, &out, &out)) {
		strbuf_addf(err, "qemu-img create %s failed: %s", overlay,
			    out.buf);
		free(overlay);
		overlay = NULL;
	} else if (getenv("WBLAB_QEMU_USER")) {
		chown_to_qemu(overlay);
	}
	strbuf_release(&out);
	return overlay;
}

static char *scratch(const struct cell_disks *d, long long i,
		     struct strbuf *err)
{
	char *p, *path;

	if (!d->pool) {
		p = xasprintf("%s/disk%lld.img", d->stage, i);
		path = local_disk(p, d->size, err);
	} else {
		p = xasprintf("%s" VOLS_SEP "disk%lld.img", d->name, i);
		path = vols_disk(d->pool, p, d->size, err);
	}
	free(p);
	return path;
}

int cell_disks_make(const struct cell_disks *d, struct domain_config *dc,
		    struct strbuf *err)
{
	char *root, *vol;

	if (d->pool) {
		vol = xasprintf("%s" VOLS_SEP "root.qcow2", d->name);
		root = vols_overlay(d->pool, vol, d->image, err);
		free(vol);
	} else {
		root = local_overlay(d, err);
	}
	if (!root)
		return -1;
	add_disk(dc, root, "qcow2", "wblab-root", false);
	if (d->modules_img)
		add_disk(dc, xstrdup(d->modules_img), "raw", "wblab-modules",
			 true);
	for (long long i = 0; i < d->ndisks; i++) {
		char *serial = xasprintf("wblab-disk%lld", i);
		char *path = scratch(d, i, err);

		const struct topo_iotune *io =
			d->topo ? topology_disk_iotune(d->topo, d->role, i) :
				  NULL;

		if (path)
			add_disk(dc, path, "raw", serial, false);
		if (path && io) {
			dc->disks[dc->nr_disks - 1].iops_sec =
				io->total_iops_sec;
			dc->disks[dc->nr_disks - 1].bytes_sec =
				io->total_bytes_sec;
			dc->disks[dc->nr_disks - 1].queue_size = io->queue_size;
		}
		free(serial);
		if (!path)
			return -1;
	}
	return 0;
}

static void drop(virStoragePoolPtr pool, const char *name, const char *what)
{
	char *prefix = xasprintf("%s%s", name, what);

	vols_delete_prefix(pool, prefix);
	free(prefix);
}

void cell_disks_cleanup(virStoragePoolPtr pool, const char *uri, bool lost,
			const char *name)
{
	struct strbuf err = STRBUF_INIT;
	virConnectPtr conn = NULL;
	char *tgt = xasprintf("%s-target", name);

	if (lost) {
		/* The old handle is dead; a restarted host is reached anew. */
		conn = virt_connect(uri, &err);
		pool = conn ? vols_pool(conn, &err) : NULL;
		if (!pool)
			warn("cannot remove the volumes of %s (the reaper will): %s",
			     name, err.buf);
	}
	if (pool) {
		drop(pool, tgt, VOLS_SEP);
		drop(pool, name, VOLS_SEP);
		drop(pool, name, VOLS_OWNER);
	}
	if (lost && pool)
		virStoragePoolFree(pool);
	if (conn)
		virConnectClose(conn);
	strbuf_release(&err);
	free(tgt);
}
