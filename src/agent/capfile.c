// SPDX-License-Identifier: GPL-2.0
/* Captures the agent makes itself (agent/capfile.h): cat and grep -H . */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "agent/capfile.h"
#include "util/io.h"
#include "util/strbuf.h"

static int cap_error(int out, const char *path, int err)
{
	dprintf(out, "%s: %s\n", path, strerror(err));
	return 1;
}

int cap_file(int out, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = strbuf_read_file(&sb, path) ? cap_error(out, path, errno) : 0;

	/* What was read before an error is printed too, as cat does. */
	write_in_full(out, sb.buf, sb.len);
	strbuf_release(&sb);
	return rc;
}

static int cap_prefixed(int out, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = strbuf_read_file(&sb, path) ? cap_error(out, path, errno) : 0;
	const char *p = sb.buf, *end = sb.buf + sb.len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;

		if (n)
			dprintf(out, "%s:%.*s\n", path, (int)n, p);
		p += n + 1;
	}
	strbuf_release(&sb);
	return rc;
}

int cap_lines(int out, const char *pattern)
{
	glob_t gl;
	int rc = 0;

	if (glob(pattern, 0, NULL, &gl) || !gl.gl_pathc) {
		globfree(&gl);
		return cap_error(out, pattern, ENOENT);
	}
	for (size_t i = 0; i < gl.gl_pathc; i++)
		rc |= cap_prefixed(out, gl.gl_pathv[i]);
	globfree(&gl);
	return rc;
}
