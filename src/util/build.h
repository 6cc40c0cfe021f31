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

/*
 * Read the agent binary at PATH into bin (the caller releases it): 0 if
 * it carries wblab_build, else -1, said why. One read serves the check,
 * the initrd's cache key and its /init (artifact/initramfs.c).
 */
int agent_build_read(const char *path, struct strbuf *bin);

#endif
