// SPDX-License-Identifier: GPL-2.0
/*
 * fsdev.txt (collect/io.h): the device and type of the test mount from
 * findmnt and /proc/self/mountinfo, through overlayfs to its upper fs.
 */
#include <stdio.h>
#include <string.h>

#include "collect/io-int.h"
#include "collect/io.h"

/* The section's lines: "# name" up to the next "# " header. */
static const char *section(const char *text, size_t len, const char *name,
			   size_t *slen)
{
	const char *p = text, *end = text + len, *start = NULL;
	size_t k = strlen(name);

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end;

		if (le - p >= 2 && p[0] == '#' && p[1] == ' ') {
			if (start) {
				*slen = p - start;
				return start;
			}
			if ((size_t)(le - p) == k + 2 &&
			    !memcmp(p + 2, name, k))
				start = nl ? nl + 1 : end;
		}
		p = nl ? nl + 1 : end;
	}
	if (start)
		*slen = end - start;
	return start;
}

/* mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS ... - FSTYPE SRC SUPER" */
struct mi {
	char dev[24], mnt[256], fstype[32], super[512];
};

static bool mi_parse(const char *line, struct mi *m)
{
	const char *dash = strstr(line, " - ");

	memset(m, 0, sizeof(*m));
	if (!dash ||
	    sscanf(line, "%*s %*s %23s %*s %255s", m->dev, m->mnt) != 2 ||
	    sscanf(dash + 3, "%31s %*s %511s", m->fstype, m->super) < 1)
		return false;
	return true;
}

static bool upper_fs(const char *text, size_t len, const char *target,
		     char *dev, size_t dev_len, char *fstype, size_t fs_len)
{
	const char *p = text, *end = text + len;
	char upper[256] = "";
	size_t best = 0;
	struct mi m;

	/* Two passes over a few dozen lines: the overlay, then its upper. */
	for (int pass = 0; pass < 2; pass++) {
		for (p = text; p < end;) {
			const char *nl = memchr(p, '\n', end - p);
			char line[1024], *u;

			snprintf(line, sizeof(line), "%.*s",
				 (int)((nl ? nl : end) - p), p);
			p = nl ? nl + 1 : end;
			if (!mi_parse(line, &m))
				continue;
			if (!pass && !strcmp(m.mnt, target) &&
			    !strcmp(m.fstype, "overlay") &&
			    (u = strstr(m.super, "upperdir="))) {
				snprintf(upper, sizeof(upper), "%.*s",
					 (int)strcspn(u + 9, ","), u + 9);
			} else if (pass && upper[0] &&
				   strcmp(m.fstype, "overlay") &&
				   !strncmp(upper, m.mnt, strlen(m.mnt)) &&
				   strlen(m.mnt) > best &&
				   (upper[strlen(m.mnt)] == '/' ||
				    !upper[strlen(m.mnt)] ||
				    !strcmp(m.mnt, "/"))) {
				best = strlen(m.mnt);
				snprintf(dev, dev_len, "%s", m.dev);
				snprintf(fstype, fs_len, "%s", m.fstype);
			}
		}
		if (!upper[0])
			return false;
	}
	return best > 0;
}

bool io_fsdev(const char *text, size_t len, char *dev, size_t dev_len,
	      char *fstype, size_t fstype_len)
{
	size_t n = 0, mlen = 0;
	const char *s = section(text, len, "findmnt", &n);
	const char *mi = section(text, len, "mountinfo", &mlen);
	char line[512], d[24], fs[32], target[256];

	if (!s)
		return false;
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(s, "\n"), s);
	if (sscanf(line, "%23s %31s %255s", d, fs, target) != 3 ||
	    !strchr(d, ':'))
		return false;
	if (!strcmp(fs, "overlay"))
		return mi && upper_fs(mi, mlen, target, dev, dev_len, fstype,
				      fstype_len);
	snprintf(dev, dev_len, "%s", d);
	snprintf(fstype, fstype_len, "%s", fs);
	return true;
}
