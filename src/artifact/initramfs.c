// SPDX-License-Identifier: GPL-2.0
/*
 * The per-cell initramfs: the wblab agent as /init plus the few kernel
 * modules stage 1 needs (virtio, ext4) for modular kernels. Written as a
 * newc cpio directly; parents never need creating because the modules
 * sit flat in /lib/wblab.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact/cache.h"
#include "artifact/initramfs.h"
#include "util/build.h"
#include "util/fs.h"
#include "util/log.h"

const char *const initramfs_boot_modules[] = {
	"virtio_pci",	  "virtio_blk", "virtio_console",
	"crc32c_generic", "ext4",	NULL,
};

static void canon(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* "kernel/fs/ext4/ext4.ko" -> "ext4" */
static char *mod_name(const char *path, size_t len)
{
	const char *slash = memrchr(path, '/', len);
	const char *b = slash ? slash + 1 : path;
	size_t n = path + len - b;
	char *name;

	if (n > 3 && !memcmp(b + n - 3, ".ko", 3))
		n -= 3;
	else if (n > 6 && !memcmp(b + n - 6, ".ko.xz", 6))
		n -= 6;
	else if (n > 7 && !memcmp(b + n - 7, ".ko.zst", 7))
		n -= 7;
	name = xstrndup(b, n);
	canon(name);
	return name;
}

struct moddep {
	char *name;
	char *path;
	char *deps; /* space-separated paths */
	int state; /* 0 new, 1 visiting, 2 emitted */
};

static struct moddep *find_mod(struct moddep *m, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

static void emit(struct moddep *all, size_t n, struct moddep *m,
		 struct strbuf *order, int *count)
{
	char *deps, *tok, *save;
	char *list[64];
	int nd = 0;

	if (m->state)
		return;
	m->state = 1;
	deps = xstrdup(m->deps);
	for (tok = strtok_r(deps, " ", &save); tok && nd < 64;
	     tok = strtok_r(NULL, " ", &save))
		list[nd++] = tok;
	/* modules.dep lists the deepest dependency last: load it first. */
	while (nd-- > 0) {
		char *dn = mod_name(list[nd], strlen(list[nd]));
		struct moddep *d = find_mod(all, n, dn);

		if (d)
			emit(all, n, d, order, count);
		free(dn);
	}
	free(deps);
	strbuf_addf(order, "%s\n", m->path);
	(*count)++;
	m->state = 2;
}

int module_closure(const char *modules_dir, const char *const *names,
		   struct strbuf *order)
{
	char *path = xasprintf("%s/modules.dep", modules_dir);
	struct strbuf dep = STRBUF_INIT;
	struct moddep *mods = NULL;
	size_t n = 0, alloc = 0;
	int count = 0;
	char *line, *save;

	if (strbuf_read_file(&dep, path) < 0) {
		free(path);
		strbuf_release(&dep);
		return 0; /* no modules at all: everything is built in */
	}
	for (line = strtok_r(dep.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			mods = xrealloc(mods, alloc * sizeof(*mods));
		}
		mods[n].name = mod_name(line, colon - line);
		mods[n].path = xstrndup(line, colon - line);
		mods[n].deps = xstrdup(colon[1] == ' ' ? colon + 2 : colon + 1);
		mods[n].state = 0;
		n++;
	}
	for (const char *const *w = names; *w; w++) {
		char *c = xstrdup(*w);
		struct moddep *m;

		canon(c);
		m = find_mod(mods, n, c);
		if (m)
			emit(mods, n, m, order, &count);
		free(c);
	}
	for (size_t i = 0; i < n; i++) {
		free(mods[i].name);
		free(mods[i].path);
		free(mods[i].deps);
	}
	free(mods);
	free(path);
	strbuf_release(&dep);
	return count;
}

static unsigned int cpio_ino = 1;

void cpio_add(struct strbuf *out, const char *name, unsigned int mode,
	      const void *data, size_t len, unsigned int rmaj,
	      unsigned int rmin)
{
	size_t nlen = strlen(name) + 1;
	static const char zeros[4];

	strbuf_addf(
		out,
		"070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		cpio_ino++, mode, 0, 0, (mode & S_IFMT) == S_IFDIR ? 2 : 1, 0,
		len, 0, 0, rmaj, rmin, nlen, 0);
	strbuf_add(out, name, nlen);
	strbuf_add(out, zeros, (4 - (110 + nlen) % 4) % 4);
	if (len) {
		strbuf_add(out, data, len);
		strbuf_add(out, zeros, (4 - len % 4) % 4);
	}
}

void cpio_finish(struct strbuf *out)
{
	static const char zeros[512];

	cpio_add(out, "TRAILER!!!", 0, NULL, 0, 0, 0);
	/* Pad to 512 bytes like cpio(1) does. */
	strbuf_add(out, zeros, (512 - out->len % 512) % 512);
}

char *agent_binary_path(void)
{
	return xasprintf("%s/build/wblab-agent", wblab_home());
}

static int add_file(struct strbuf *cpio, const char *name, const char *path,
		    unsigned int mode)
{
	struct strbuf data = STRBUF_INIT;

	if (strbuf_read_file(&data, path) < 0) {
		error("initramfs: cannot read %s: %s", path, strerror(errno));
		strbuf_release(&data);
		return -1;
	}
	cpio_add(cpio, name, S_IFREG | mode, data.buf, data.len, 0, 0);
	strbuf_release(&data);
	return 0;
}

char *initramfs_ensure(const struct kernel_artifact *k, const char *agent_path)
{
	static const char *const dirs[] = { "dev",     "proc",	   "sys",
					    "newroot", "etc",	   "etc/wblab",
					    "lib",     "lib/wblab" };
	struct strbuf order = STRBUF_INIT, list = STRBUF_INIT,
		      cpio = STRBUF_INIT, agent = STRBUF_INIT;
	char agent_hash[HASH_HEX_LEN + 1], hex[HASH_HEX_LEN + 1];
	struct hasher *h;
	char *out = NULL, *leaf, *line, *save;

	/* Read once: checked, hashed for the key, and the image's /init. */
	if (agent_build_read(agent_path, &agent))
		goto done;
	hash_data_hex(agent.buf, agent.len, agent_hash);
	module_closure(k->modules_dir, initramfs_boot_modules, &order);
	h = hasher_new();
	hasher_add_str(h, "wblab-initramfs", "1");
	hasher_add_str(h, "agent", agent_hash);
	hasher_add_str(h, "kernel", k->hash);
	hasher_add_str(h, "modules", order.buf);
	hasher_finish(h, hex);
	leaf = xasprintf("%.16s.cpio", hex);
	out = cache_path("initrd", leaf);
	free(leaf);
	if (path_exists(out))
		goto done;

	cpio_ino = 1;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		cpio_add(&cpio, dirs[i], S_IFDIR | 0755, NULL, 0, 0, 0);
	cpio_add(&cpio, "dev/console", S_IFCHR | 0600, NULL, 0, 5, 1);
	cpio_add(&cpio, "init", S_IFREG | 0755, agent.buf, agent.len, 0, 0);
	for (line = strtok_r(order.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *src = xasprintf("%s/%s", k->modules_dir, line);
		char *base = strrchr(line, '/');
		char *dst = xasprintf("lib/wblab/%s", base ? base + 1 : line);
		int ret = add_file(&cpio, dst, src, 0644);

		strbuf_addf(&list, "/%s\n", dst);
		free(src);
		free(dst);
		if (ret)
			goto fail;
	}
	cpio_add(&cpio, "etc/wblab/modules", S_IFREG | 0644, list.buf, list.len,
		 0, 0);
	cpio_finish(&cpio);
	leaf = cache_path("initrd", "");
	if (cache_make_dir(leaf) ||
	    write_file_atomic(out, cpio.buf, cpio.len, 0644)) {
		free(leaf);
		error("cannot write %s: %s", out, strerror(errno));
		goto fail;
	}
	free(leaf);
	goto done;
fail:
	free(out);
	out = NULL;
done:
	strbuf_release(&agent);
	strbuf_release(&order);
	strbuf_release(&list);
	strbuf_release(&cpio);
	return out;
}
