/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_TOOLVER_H
#define WBLAB_TOOLVER_H

#include "util/strbuf.h"

/*
 * What an installed tool says about itself (dpkg-query -W -f=${Version},
 * gcc --version): inputs of the kernel and image cache keys, which every
 * cell computes. Each exec cost 20-40 ms of a cell's host time, so a
 * successful answer is kept in CACHE/probe/tools.json and reused while
 * the dpkg database and the binary PATH finds for argv[0] are unchanged
 * (size, inode, mtime, ctime of both). Appends stdout to out; returns
 * what run_capture() returns.
 */
int tool_output(const char *const *argv, struct strbuf *out);

#endif
