/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_AGENT_CAPFILE_H
#define WBLAB_AGENT_CAPFILE_H

/*
 * What the capfile and caplines plan verbs do (agent/proto.h), in the
 * agent: under TCG, starting cat, or find and grep, cost 40-270 ms a
 * capture, about 0.8 s of a dirty-flood cell's collect phase at load 3.8.
 * Each writes into out what the program would have printed (an error as
 * a "PATH: reason" line) and returns its exit status: 0, or 1 on an error.
 */
/* cat PATH */
int cap_file(int out, const char *path);
/* grep -H . FILES...: every non-empty line as "FILE:LINE", FILES the glob's. */
int cap_lines(int out, const char *pattern);

#endif
