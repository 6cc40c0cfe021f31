/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_AGENT_H
#define WBLAB_AGENT_H

#include <stddef.h>

/* Where captures and samples collect before they go back to the host. */
#define AGENT_OUT_DIR "/tmp/wblab-out"

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double mono(void);
int write_all(int fd, const void *buf, size_t len);
int send_frame(char type, const char *name, const void *data, size_t len);
/* Run the plan; returns 0 ok, 1 setup failed, 2 workload failed. */
int plan_execute(char *plan, size_t len);
/* /dev/vdX whose virtio serial is serial, waiting up to wait_s. */
int find_disk(const char *serial, char *dev, size_t len, double wait_s);
int hog_main(int argc, char **argv);
int sample_main(int argc, char **argv);

#endif
