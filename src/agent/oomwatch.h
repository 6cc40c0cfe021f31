/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_AGENT_OOMWATCH_H
#define WBLAB_AGENT_OOMWATCH_H

/* wblab-agent oomwatch CGROUP FILE: a row of memory.stat at each OOM. */
int oomwatch_main(int argc, char **argv);

#endif
