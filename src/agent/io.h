/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_AGENT_IO_H
#define WBLAB_AGENT_IO_H

#include <stddef.h>

#include "agent/proto.h" /* AGENT_OUT_DIR */

/* The channel to the host (agent.c opens it), -1 until then. */
extern int agent_chan_fd;

/* Log a line on the console (/dev/kmsg): the record of last resort. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double mono(void);
/* One frame to the host (see proto.h); -1 if there is no channel. */
int send_frame(char type, const char *name, const void *data, size_t len);
/* A small file's first line(s), trailing newlines and spaces cut; NULL on error. */
char *read_small(const char *path, char *buf, size_t len);
/* /dev/vdX whose virtio serial is serial, waiting up to wait_s. */
int find_disk(const char *serial, char *dev, size_t len, double wait_s);

#endif
