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
/* "/dev/md0  partition  2096124  0  -2": the name of the first partition. */
static bool first_swap(const char *s, size_t n, char *name, size_t name_len)
{
	const char *p = s, *end = s + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		char line[512], file[256], type[32];

		snprintf(line, sizeof(line), "%.*s", (int)((nl ? nl : end) - p),
			 p);
		p = nl ? nl + 1 : end;
		if (sscanf(line, "%255s %31s", file, type) == 2 &&
		    !strncmp(file, "/dev/", 5) && !strcmp(type, "partition") &&
		    file[5] && !strchr(file + 5, '/')) {
			snprintf(name, name_len, "%s", file + 5);
			return true;
		}
	}
	return false;
}

bool io_swapdev(const char *text, size_t len, char *dev, size_t dev_len,
		char *name, size_t name_len)
{
	size_t sl = 0, pl = 0;
	const char *s = section(text, len, "swaps", &sl);
	const char *pt = section(text, len, "partitions", &pl);
	const char *p, *end;

	if (!s || !pt || !first_swap(s, sl, name, name_len))
		return false;
	/* /proc/partitions: "major minor  #blocks  name" */
	for (p = pt, end = pt + pl; p < end;) {
		const char *nl = memchr(p, '\n', end - p);
		char line[256], nm[64];
		unsigned int maj, min;
		unsigned long long blocks;

		snprintf(line, sizeof(line), "%.*s", (int)((nl ? nl : end) - p),
			 p);
		p = nl ? nl + 1 : end;
		if (sscanf(line, "%u %u %llu %63s", &maj, &min, &blocks, nm) ==
			    4 &&
		    !strcmp(nm, name)) {
			snprintf(dev, dev_len, "%u:%u", maj, min);
			return true;
		}
	}
	return false;
}
