// SPDX-License-Identifier: GPL-2.0
/* A capped stream capture: see capture.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/io.h"
#include "util/log.h"
#include "virt/capture.h"

int capture_open(struct capture *c, const char *path, size_t head_max,
		 size_t tail_max)
{
	memset(c, 0, sizeof(*c));
	c->head_max = head_max;
	c->tail_max = tail_max;
	c->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return c->fd < 0 ? -1 : 0;
}

static void put(struct capture *c, const char *buf, size_t len)
{
	if (!c->err && write_in_full(c->fd, buf, len) < 0)
		c->err = errno;
}

static void ring_add(struct capture *c, const char *buf, size_t len)
{
	if (!c->tail_max)
		return;
	if (!c->ring)
		c->ring = xmalloc(c->tail_max);
	/* Only the last tail_max bytes of a big write can survive. */
	if (len >= c->tail_max) {
		memcpy(c->ring, buf + len - c->tail_max, c->tail_max);
		c->rpos = 0;
		c->wrapped = true;
		return;
	}
	while (len) {
		size_t n = c->tail_max - c->rpos;

		if (n > len)
			n = len;
		memcpy(c->ring + c->rpos, buf, n);
		c->rpos += n;
		buf += n;
		len -= n;
		if (c->rpos == c->tail_max) {
			c->rpos = 0;
			c->wrapped = true;
		}
	}
}

void capture_write(struct capture *c, const char *buf, size_t len)
{
	size_t room = c->head < c->head_max ? c->head_max - c->head : 0;
	size_t h = len < room ? len : room;

	if (c->fd < 0 || c->closed)
		return;
	c->total += len;
	if (h) {
		put(c, buf, h);
		c->head += h;
	}
	if (len > h)
		ring_add(c, buf + h, len - h);
}

static uint64_t ring_len(const struct capture *c)
{
	return c->wrapped ? c->tail_max : c->rpos;
}

uint64_t capture_omitted(const struct capture *c)
{
	return c->total - c->head - ring_len(c);
}

int capture_close(struct capture *c)
{
	if (c->fd < 0 || c->closed)
		return c->err ? -1 : 0;
	if (capture_omitted(c)) {
		char note[96];
		int n = snprintf(note, sizeof(note), "\n" CAPTURE_NOTE,
				 (unsigned long long)capture_omitted(c));

		put(c, note, n);
	}
	if (c->wrapped)
		put(c, c->ring + c->rpos, c->tail_max - c->rpos);
	if (c->ring)
		put(c, c->ring, c->rpos);
	if (close(c->fd) < 0 && !c->err)
		c->err = errno;
	c->fd = -1;
	c->closed = true;
	free(c->ring);
	c->ring = NULL;
	return c->err ? -1 : 0;
}
