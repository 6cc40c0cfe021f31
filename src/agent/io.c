// SPDX-License-Identifier: GPL-2.0
/*
 * What every part of the agent uses: the log on the console, the clock,
 * frames on the channel to the host, and finding a disk by its serial.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/io.h"
#include "agent/proto.h"
#include "util/io.h"

int agent_chan_fd = -1;

void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* The console is the record of last resort: it survives everything. */
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		char line[1100];
		int m = snprintf(line, sizeof(line), "wblab-agent: %.*s", n,
				 buf);

		if (write(fd, line, m) < 0) {
			/* nothing else to do */
		}
		close(fd);
	}
}

double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int send_frame(char type, const char *name, const void *data, size_t len)
{
	char hdr[128];
	int n;

	if (agent_chan_fd < 0)
		return -1;
	n = snprintf(hdr, sizeof(hdr), PROTO_MAGIC " %c %zu %s\n", type, len,
		     name);
	if (write_in_full(agent_chan_fd, hdr, n) < 0 ||
	    write_in_full(agent_chan_fd, data, len) < 0)
		return -1;
	return 0;
}

char *read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return buf;
}

/* /dev/vdX whose virtio serial is the given string (no udev here). */
int find_disk(const char *serial, char *dev, size_t len, double wait_s)
{
	double end = mono() + wait_s;

	do {
		DIR *d = opendir("/sys/block");
		struct dirent *de;

		while (d && (de = readdir(d))) {
			char p[512], buf[128];

			snprintf(p, sizeof(p), "/sys/block/%s/serial",
				 de->d_name);
			if (read_small(p, buf, sizeof(buf)) &&
			    !strcmp(buf, serial)) {
				snprintf(dev, len, "/dev/%s", de->d_name);
				closedir(d);
				return 0;
			}
		}
		if (d)
			closedir(d);
		usleep(50000);
	} while (mono() < end);
	return -1;
}
