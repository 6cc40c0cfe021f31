/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_AGENT_WATCH_H
#define WBLAB_AGENT_WATCH_H

/* wblab-agent watch WINDOW_S GAP_S: SysRq-t twice when nothing progresses. */
int watch_main(int argc, char **argv);

#endif
