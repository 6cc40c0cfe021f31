// SPDX-License-Identifier: GPL-2.0
/*
 * Artifacts reach a host through libvirt itself: a directory storage pool
 * "wblab" on that host, one volume per artifact, filled with
 * virStorageVolUpload over the same connection the cells use (no scp, no
 * shared filesystem for images and kernels). Volume names carry the
 * artifact's cache key, so an upload happens once per host; a marker
 * volume says an upload finished, so a half-sent volume is never used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matrix/engine.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "virt/virt.h"

#define POOL_NAME "wblab"

static virStoragePoolPtr ensure_pool(virConnectPtr c, const char *path)
{
	virStoragePoolPtr p = virStoragePoolLookupByName(c, POOL_NAME);
	struct strbuf xml = STRBUF_INIT;

	if (p) {
		if (virStoragePoolIsActive(p) != 1 &&
		    virStoragePoolCreate(p, 0))
			goto fail;
		virStoragePoolRefresh(p, 0);
		return p;
	}
	/* Paths from hosts.yaml are checked absolute; no markup in them. */
	if (strpbrk(path, "<>&'\"")) {
		error("pool path %s has XML metacharacters", path);
		return NULL;
	}
	strbuf_addf(&xml,
		    "<pool type='dir'><name>" POOL_NAME
		    "</name><target><path>%s</path></target></pool>",
		    path);
	p = virStoragePoolCreateXML(c, xml.buf,
				    VIR_STORAGE_POOL_CREATE_WITH_BUILD);
	strbuf_release(&xml);
	if (p)
		return p;
fail:
	error("cannot set up storage pool %s at %s: %s", POOL_NAME, path,
	      virt_last_error());
	if (p)
		virStoragePoolFree(p);
	return NULL;
}

static int send_file(virConnectPtr c, virStorageVolPtr vol, const char *local,
		     unsigned long long size)
{
	virStreamPtr st = virStreamNew(c, 0);
	int fd = open(local, O_RDONLY | O_CLOEXEC);
	char *buf = xmalloc(1 << 20);
	unsigned long long sent = 0;
	int ret = -1;

	if (fd < 0 || !st || virStorageVolUpload(vol, st, 0, size, 0) < 0)
		goto out;
	while (sent < size) {
		ssize_t n = read(fd, buf, 1 << 20);

		if (n <= 0)
			break;
		for (ssize_t off = 0; off < n;) {
			int w = virStreamSend(st, buf + off, n - off);

			if (w < 0)
				goto abort;
			off += w;
		}
		sent += n;
	}
	if (sent == size && virStreamFinish(st) == 0)
		ret = 0;
	else
abort:
		virStreamAbort(st);
out:
	if (ret)
		error("upload of %s failed: %s", local,
		      fd < 0 ? strerror(errno) : virt_last_error());
	if (fd >= 0)
		close(fd);
	if (st)
		virStreamFree(st);
	free(buf);
	return ret;
}

static virStorageVolPtr create_vol(virStoragePoolPtr p, const char *name,
				   unsigned long long size)
{
	struct strbuf xml = STRBUF_INIT;
	virStorageVolPtr v;

	strbuf_addf(
		&xml,
		"<volume><name>%s</name><capacity unit='bytes'>%llu</capacity>"
		"<target><format type='raw'/><permissions><mode>0644</mode></permissions></target></volume>",
		name, size);
	v = virStorageVolCreateXML(p, xml.buf, 0);
	strbuf_release(&xml);
	if (!v)
		error("cannot create volume %s: %s", name, virt_last_error());
	return v;
}

static void drop_vol(virStoragePoolPtr p, const char *name)
{
	virStorageVolPtr v = virStorageVolLookupByName(p, name);

	if (v) {
		virStorageVolDelete(v, 0);
		virStorageVolFree(v);
	}
}

/* The volume's path on the host, uploading local there first if needed. */
static char *upload(virConnectPtr c, virStoragePoolPtr p, const char *local,
		    const char *name, const char *host)
{
	char *done = xasprintf("%s.done", name);
	virStorageVolPtr v = NULL, m = virStorageVolLookupByName(p, done);
	char *path = NULL;
	struct stat st;
	double t0 = now_mono();

	if (stat(local, &st) < 0) {
		error("%s: %s", local, strerror(errno));
		goto out;
	}
	if (m) {
		v = virStorageVolLookupByName(p, name);
		if (v)
			goto have;
	}
	drop_vol(p, done);
	drop_vol(p, name);
	v = create_vol(p, name, (unsigned long long)st.st_size);
	if (!v || send_file(c, v, local, (unsigned long long)st.st_size))
		goto out;
	m = create_vol(p, done, 0);
	if (!m)
		goto out;
	info("host %s: uploaded %s as volume %s (%.1f MiB in %.1f s)", host,
	     local, name, st.st_size / 1048576.0, now_mono() - t0);
have:
	path = virStorageVolGetPath(v);
out:
	if (v)
		virStorageVolFree(v);
	if (m)
		virStorageVolFree(m);
	free(done);
	return path;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int engine_upload(struct engine *e, struct engine_host *h)
{
	virStoragePoolPtr p = ensure_pool(h->conn, h->spec->pool_path);
	int bad = 0;
	char *n;

	if (!p)
		return -1;
	if (e->image.path) {
		n = xasprintf("img-%.12s-%s", e->image.hash,
			      base(e->image.path));
		h->image = upload(h->conn, p, e->image.path, n, h->spec->name);
		bad |= !h->image;
		free(n);
	}
	h->vols = xzalloc(e->m.kernels.n * sizeof(*h->vols));
	for (size_t i = 0; i < e->m.kernels.n && !bad; i++) {
		struct engine_kernel *k = &e->k[i];
		struct engine_vols *v = &h->vols[i];

		if (!k->ok)
			continue;
		n = xasprintf("k-%.12s-bzImage", k->art.hash);
		v->bzimage =
			upload(h->conn, p, k->art.bzimage, n, h->spec->name);
		free(n);
		n = xasprintf("k-%.12s-%s", k->art.hash, base(k->initrd));
		v->initrd = upload(h->conn, p, k->initrd, n, h->spec->name);
		free(n);
		if (k->art.modules_img) {
			n = xasprintf("k-%.12s-modules.img", k->art.hash);
			v->modules = upload(h->conn, p, k->art.modules_img, n,
					    h->spec->name);
			free(n);
		}
		bad |= !v->bzimage || !v->initrd ||
		       (k->art.modules_img && !v->modules);
	}
	virStoragePoolFree(p);
	return bad ? -1 : 0;
}

void engine_host_free(struct engine *e, struct engine_host *h)
{
	for (size_t i = 0; h->vols && i < e->m.kernels.n; i++) {
		free(h->vols[i].bzimage);
		free(h->vols[i].initrd);
		free(h->vols[i].modules);
	}
	free(h->vols);
	free(h->image);
	free(h->slots);
	free(h->down_reason);
	if (h->conn)
		virConnectClose(h->conn);
	memset(h, 0, sizeof(*h));
}
