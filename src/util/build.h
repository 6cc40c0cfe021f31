/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_BUILD_H
#define WBLAB_BUILD_H

/*
 * The source this binary was built from (tools/build-id: `git describe
 * --always --dirty`). wblab and the guest agent both carry it, so a run
 * with an agent left from another build is refused instead of measuring
 * old guest code (runs of 2026-12-05 08:33-08:54 did: their watcher was
 * 7 hours older than wblab's source).
 */
extern const char wblab_build[];

struct strbuf;

/* The agent binary at PATH carries wblab_build: 0; else -1, said why. */
int agent_build_check(const char *path);
/* The same for the binary already read from PATH (named in errors). */
int agent_build_check_data(const char *path, const struct strbuf *bin);

#endif
