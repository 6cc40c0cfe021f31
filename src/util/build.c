// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "build-id.h"
#include "util/build.h"
#include "util/log.h"
#include "util/strbuf.h"

#define BUILD_MARK "wblab-build:"

const char wblab_build[] = WBLAB_BUILD;
/* What agent_build_read() looks for in the agent's static binary. */
__attribute__((used)) static const char build_mark[] = BUILD_MARK WBLAB_BUILD;

/*
 * The agent's own copy of BUILD_MARK (the needle of agent_build_read(),
 * which the agent links too) is followed by a NUL: the id is the first
 * mark followed by anything else.
 */
static const char *find_id(const struct strbuf *bin)
{
	const char *p = bin->buf, *end = bin->buf + bin->len;
	size_t ml = strlen(BUILD_MARK);

	while ((p = memmem(p, end - p, BUILD_MARK, ml))) {
		p += ml;
		if (p < end && *p)
			return p;
	}
	return NULL;
}

int agent_build_read(const char *path, struct strbuf *bin)
{
	const char *id;

	strbuf_reset(bin);
	if (strbuf_read_file(bin, path) < 0) {
		error("cannot read the guest agent %s: %s (run make)", path,
		      strerror(errno));
		return -1;
	}
	id = find_id(bin);
	if (!id) {
		error("the guest agent %s carries no build id (run make)",
		      path);
		return -1;
	}
	/* strbuf keeps a NUL after the data: id ends within bin. */
	if (!strcmp(id, wblab_build))
		return 0;
	error("the guest agent %s was built from %.64s, this wblab from %s: run make",
	      path, id, wblab_build);
	return -1;
}
