// SPDX-License-Identifier: GPL-2.0
/*
 * The device nodes a domain needs, checked by name before anything runs
 * (docs/hardening.md: -o over /dev/null).
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "util/devnodes.h"
#include "util/log.h"

const struct devnode host_devnodes[] = {
	{ "/dev/null", 1, 3, true, "mknod -m 666 /dev/null c 1 3" },
	{ "/dev/kvm", 10, 232, false,
	  "rm /dev/kvm; mknod -m 660 /dev/kvm c 10 232" },
	{ "/dev/net/tun", 10, 200, false,
	  "rm /dev/net/tun; mknod -m 666 /dev/net/tun c 10 200" },
};

const unsigned int nr_host_devnodes = ARRAY_SIZE(host_devnodes);

static const char *kind_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFLNK:
		return "a symbolic link";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	default:
		return "a character device";
	}
}

bool devnode_ok(const char *root, const struct devnode *n, struct strbuf *why)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", root, n->path);
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT && !n->required) {
			strbuf_addf(why, "%s: absent", n->path);
			return true;
		}
		strbuf_addf(why, "%s: %s (fix: %s)", n->path, strerror(errno),
			    n->fix);
		return false;
	}
	if (!S_ISCHR(st.st_mode)) {
		strbuf_addf(
			why,
			"%s is %s, not the character device %u:%u (fix, as root: %s)",
			n->path, kind_of(st.st_mode), n->major, n->minor,
			n->fix);
		return false;
	}
	if (major(st.st_rdev) != n->major || minor(st.st_rdev) != n->minor) {
		strbuf_addf(
			why,
			"%s is the character device %u:%u, not %u:%u (fix, as root: %s)",
			n->path, major(st.st_rdev), minor(st.st_rdev), n->major,
			n->minor, n->fix);
		return false;
	}
	strbuf_addf(why, "%s: character device %u:%u", n->path, n->major,
		    n->minor);
	return true;
}

int devnodes_check(const char *root, struct strbuf *why)
{
	struct strbuf one = STRBUF_INIT;
	int ret = 0;

	for (unsigned int i = 0; i < nr_host_devnodes && !ret; i++) {
		strbuf_reset(&one);
		if (!devnode_ok(root, &host_devnodes[i], &one)) {
			strbuf_add(why, one.buf, one.len);
			ret = -1;
		}
	}
	strbuf_release(&one);
	return ret;
}

const char *devnodes_root(void)
{
	const char *r = getenv("WBLAB_DEV_ROOT");

	return r ? r : "";
}
