/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CAPTURE_H
#define WBLAB_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A capped capture of a stream to a file, in constant memory: the first
 * head_max bytes go to the file as they come, the last tail_max bytes are
 * kept in a ring, and at the end the file gets a note saying how many
 * bytes were left out between them, then the tail. So an early oops and
 * the final panic both survive a flood. The serial console goes through
 * one (docs/hardening.md).
 */
#define CONSOLE_HEAD_MAX (64u << 20)
#define CONSOLE_TAIL_MAX (16u << 20)

struct capture {
	int fd;
	size_t head_max, tail_max;
	uint64_t total; /* bytes seen */
	uint64_t head; /* bytes written as they came */
	char *ring; /* tail_max bytes once the head is full */
	size_t rpos; /* next write position in ring */
	bool wrapped;
	int err; /* first write errno, 0 if none */
	bool closed;
};

/* Open (truncate) path; -1 with errno if it cannot be created. */
int capture_open(struct capture *c, const char *path, size_t head_max,
		 size_t tail_max);
void capture_write(struct capture *c, const char *buf, size_t len);
/* Write the note and the tail, close. Returns -1 if any write failed. */
int capture_close(struct capture *c);
/* Bytes left out between the head and the tail. */
uint64_t capture_omitted(const struct capture *c);
/* The note line capture_close writes, for parsers and docs. */
#define CAPTURE_NOTE "[wblab: console capped: %llu bytes left out here]\n"

#endif
