// SPDX-License-Identifier: GPL-2.0
/*
 * A remote host's disks as volumes of its wblab pool: created with
 * virStorageVolCreateXML, written and read with volume streams, deleted by
 * name. Nothing here opens a path: the paths returned are the host's, for
 * the domain XML only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/str.h"
#include "virt/virt.h"
#include "virt/vols.h"

virStoragePoolPtr vols_pool(virConnectPtr conn, struct strbuf *err)
{
	virStoragePoolPtr p = virStoragePoolLookupByName(conn, VOLS_POOL);

	if (p && virStoragePoolIsActive(p) == 1)
		return p;
	strbuf_addf(err, "the host has no active storage pool %s: %s",
		    VOLS_POOL, p ? "inactive" : virt_last_error());
	if (p)
		virStoragePoolFree(p);
	return NULL;
}

/* Names and paths go into XML: refuse markup rather than escape it. */
static int plain(const char *s, struct strbuf *err)
{
	if (!strpbrk(s, "<>&'\"/"))
		return 0;
	strbuf_addf(err, "volume name or path '%s' has XML metacharacters", s);
	return -1;
}

static char *create(virStoragePoolPtr p, const char *name, const char *xml,
		    struct strbuf *err)
{
	virStorageVolPtr v = virStorageVolCreateXML(p, xml, 0);
	char *path;

	if (!v) {
		/* A full pool says so here (ENOSPC from the host). */
		strbuf_addf(err, "cannot create volume %s in pool %s: %s", name,
			    VOLS_POOL, virt_last_error());
		return NULL;
	}
	path = virStorageVolGetPath(v);
	if (!path)
		strbuf_addf(err, "volume %s has no path: %s", name,
			    virt_last_error());
	virStorageVolFree(v);
	return path;
}

char *vols_overlay(virStoragePoolPtr p, const char *name, const char *backing,
		   struct strbuf *err)
{
	virConnectPtr c = virStoragePoolGetConnect(p);
	virStorageVolPtr b;
	virStorageVolInfo info;
	struct strbuf xml = STRBUF_INIT;
	char *path = NULL;

	if (plain(name, err) ||
	    (strpbrk(backing, "<>&'\"") && plain(backing, err)))
		return NULL;
	b = virStorageVolLookupByPath(c, backing);
	if (!b || virStorageVolGetInfo(b, &info) < 0) {
		strbuf_addf(err, "the root image %s is not a volume there: %s",
			    backing, virt_last_error());
		goto out;
	}
	strbuf_addf(&xml,
		    "<volume><name>%s</name>"
		    "<capacity unit='bytes'>%llu</capacity>"
		    "<target><format type='qcow2'/></target>"
		    "<backingStore><path>%s</path><format type='raw'/>"
		    "</backingStore></volume>",
		    name, info.capacity, backing);
	path = create(p, name, xml.buf, err);
out:
	if (b)
		virStorageVolFree(b);
	strbuf_release(&xml);
	return path;
}

char *vols_disk(virStoragePoolPtr p, const char *name, unsigned long long size,
		struct strbuf *err)
{
	struct strbuf xml = STRBUF_INIT;
	char *path;

	if (plain(name, err))
		return NULL;
	/* allocation 0: sparse, the guest's writes are what it costs. */
	strbuf_addf(&xml,
		    "<volume><name>%s</name>"
		    "<capacity unit='bytes'>%llu</capacity>"
		    "<allocation unit='bytes'>0</allocation>"
		    "<target><format type='raw'/></target></volume>",
		    name, size);
	path = create(p, name, xml.buf, err);
	strbuf_release(&xml);
	return path;
}

int vols_put(virStoragePoolPtr p, const char *name, const char *text,
	     struct strbuf *err)
{
	size_t len = strlen(text);
	virStreamPtr st = NULL;
	virStorageVolPtr v;
	char *path;
	int ret = -1;

	path = vols_disk(p, name, len, err);
	if (!path)
		return -1;
	free(path);
	v = virStorageVolLookupByName(p, name);
	st = v ? virStreamNew(virStoragePoolGetConnect(p), 0) : NULL;
	if (st && virStorageVolUpload(v, st, 0, len, 0) == 0 &&
	    virStreamSend(st, text, len) == (int)len &&
	    virStreamFinish(st) == 0)
		ret = 0;
	else if (st)
		virStreamAbort(st);
	if (ret)
		strbuf_addf(err, "cannot write volume %s: %s", name,
			    virt_last_error());
	if (st)
		virStreamFree(st);
	if (v)
		virStorageVolFree(v);
	return ret;
}

int vols_get(virStoragePoolPtr p, const char *name, struct strbuf *out)
{
	virStorageVolPtr v = virStorageVolLookupByName(p, name);
	virConnectPtr c = virStoragePoolGetConnect(p);
	virStorageVolInfo info;
	virStreamPtr st = NULL;
	char buf[VOLS_GET_MAX];
	int ret = -1, n;

	if (!v || virStorageVolGetInfo(v, &info) < 0 ||
	    info.capacity > VOLS_GET_MAX)
		goto out;
	st = virStreamNew(c, 0);
	if (!st || virStorageVolDownload(v, st, 0, info.capacity, 0) < 0)
		goto out;
	/* A blocking stream of a known, small length: bounded both ways. */
	while (out->len < info.capacity &&
	       (n = virStreamRecv(st, buf, sizeof(buf))) > 0)
		strbuf_add(out, buf, (size_t)n);
	ret = out->len == info.capacity && virStreamFinish(st) == 0 ? 0 : -1;
	if (ret)
		virStreamAbort(st);
out:
	if (st)
		virStreamFree(st);
	if (v)
		virStorageVolFree(v);
	return ret;
}

int vols_list(virStoragePoolPtr p, const char *prefix, char ***names)
{
	virStorageVolPtr *vs = NULL;
	int n = virStoragePoolListAllVolumes(p, &vs, 0), k = 0;

	*names = NULL;
	if (n < 0)
		return -1;
	*names = xzalloc((size_t)(n + 1) * sizeof(**names));
	for (int i = 0; i < n; i++) {
		const char *name = virStorageVolGetName(vs[i]);

		if (name && starts_with(name, prefix))
			(*names)[k++] = xstrdup(name);
		virStorageVolFree(vs[i]);
	}
	free(vs);
	return k;
}

int vols_delete_prefix(virStoragePoolPtr p, const char *prefix)
{
	char **names;
	int n = vols_list(p, prefix, &names), gone = 0;

	for (int i = 0; i < n; i++) {
		virStorageVolPtr v = virStorageVolLookupByName(p, names[i]);

		if (v && virStorageVolDelete(v, 0) == 0)
			gone++;
		else
			warn("cannot delete volume %s: %s", names[i],
			     virt_last_error());
		if (v)
			virStorageVolFree(v);
		free(names[i]);
	}
	free(names);
	return gone;
}
