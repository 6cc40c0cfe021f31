/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_AGENT_DMDELAY_H
#define WBLAB_AGENT_DMDELAY_H

/* wblab-agent dm-delay NAME DEV MS: dm-delay over all of DEV, as NAME. */
int dmdelay_main(int argc, char **argv);
/*
 * wblab-agent dm-stall NAME AFTER_MS SUSPEND_MS RESUME_MS COUNT: suspend
 * and resume the dm device NAME COUNT times (a topology's stall:).
 */
int dmstall_main(int argc, char **argv);

#endif
