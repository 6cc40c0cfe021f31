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
#include "virt/vols.h"

#define POOL_NAME VOLS_POOL

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

/* Sparse upload: holes (most of a raw root image) are skipped, not sent. */
struct src {
	int fd;
	off_t size;
};

static int src_read(virStreamPtr st, char *data, size_t n, void *opaque)
{
	struct src *s = opaque;

	return (int)read(s->fd, data, n);
}

static int src_hole(virStreamPtr st, int *in_data, long long *len, void *opaque)
{
	struct src *s = opaque;
	off_t cur = lseek(s->fd, 0, SEEK_CUR), data, hole;

	if (cur < 0)
		return -1;
	if (cur >= s->size) { /* the end: no more sections */
		*in_data = 0;
		*len = 0;
		return 0;
	}
	data = lseek(s->fd, cur, SEEK_DATA);
	if (data < 0 && errno == ENXIO)
		data = s->size; /* a hole up to the end */
	else if (data < 0)
		return -1;
	if (data > cur) {
		*in_data = 0;
		*len = data - cur;
	} else {
		hole = lseek(s->fd, cur, SEEK_HOLE);
		if (hole < 0)
			return -1;
		*in_data = 1;
		*len = hole - cur;
	}
	return lseek(s->fd, cur, SEEK_SET) < 0 ? -1 : 0;
}

static int src_skip(virStreamPtr st, long long len, void *opaque)
{
	struct src *s = opaque;

	return lseek(s->fd, len, SEEK_CUR) < 0 ? -1 : 0;
}

static int send_file(virConnectPtr c, virStorageVolPtr vol, const char *local,
		     unsigned long long size)
{
	virStreamPtr st = virStreamNew(c, 0);
	struct src s = { open(local, O_RDONLY | O_CLOEXEC), (off_t)size };
	int ret = -1;

	if (s.fd < 0 || !st ||
	    virStorageVolUpload(vol, st, 0, size,
				VIR_STORAGE_VOL_UPLOAD_SPARSE_STREAM) < 0)
		goto out;
	if (virStreamSparseSendAll(st, src_read, src_hole, src_skip, &s) == 0 &&
	    virStreamFinish(st) == 0)
		ret = 0;
	else
		virStreamAbort(st);
out:
	if (ret)
		error("upload of %s failed: %s", local,
		      s.fd < 0 ? strerror(errno) : virt_last_error());
	if (s.fd >= 0)
		close(s.fd);
	if (st)
		virStreamFree(st);
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
		"<allocation unit='bytes'>0</allocation><target><format type='raw'/><permissions><mode>0644</mode></permissions></target></volume>",
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
static int nr_sent, nr_cached;

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
		nr_cached += v != NULL;
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
	nr_sent++;
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
	double t0 = now_mono();
	int bad = 0;
	char *n;

	if (!p)
		return -1;
	nr_sent = nr_cached = 0;
	/*
	 * Nobody runs the event loop during a blocking upload, so libvirt's
	 * keepalive would call a long one dead: off while uploading.
	 */
	virConnectSetKeepAlive(h->conn, -1, 0);
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
	virConnectSetKeepAlive(h->conn, 5, 5);
	/* The per-host cost of artifacts, first time and cached. */
	info("host %s: artifacts: %d uploaded, %d already in its pool (%.2f s)",
	     h->spec->name, nr_sent, nr_cached, now_mono() - t0);
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
