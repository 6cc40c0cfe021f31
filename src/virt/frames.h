/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_FRAMES_H
#define WBLAB_FRAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "agent/proto.h"
#include "spec/spec.h"
#include "util/strbuf.h"

/*
 * The host's decoder of the agent's frames (agent/proto.h): pure, fed the
 * channel's bytes in pieces of any size, linear in them, and bounded in
 * memory by the largest frame it accepts. Before a body is buffered,
 * accept() sees the header: a frame it refuses (a file the plan did not
 * ask for, one over its cap) is skipped byte by byte as it arrives and
 * reported, never buffered and never a channel error. Only a malformed
 * header is: after it nothing on the channel can be trusted.
 */

/* Non-file frames (hello, status, exit) are small: their bodies cap here. */
#define FRAME_MAX_MSG (64u << 10)

struct frame_decoder {
	/* NULL: accept; else a reason (static or in why) to skip the frame. */
	const char *(*accept)(void *arg, char type, const char *name,
			      size_t len);
	void (*on_frame)(void *arg, char type, const char *name,
			 const char *data, size_t len);
	void (*on_skip)(void *arg, char type, const char *name, size_t len,
			const char *why);
	void *arg;
	/* State. */
	char hdr[256];
	size_t hlen;
	char type, name[PROTO_MAX_NAME + 1];
	size_t len, got;
	bool in_body, skipping;
	struct strbuf body;
	bool error;
	char why[160]; /* first error */
	size_t frames, skipped;
};

void frame_decoder_init(struct frame_decoder *d);
void frame_decoder_release(struct frame_decoder *d);
/* Feed bytes; after an error the rest is ignored. Returns -1 on error. */
int frame_feed(struct frame_decoder *d, const char *buf, size_t len);
/* True between frames (nothing partial buffered). */
bool frame_idle(const struct frame_decoder *d);

/*
 * The result files a plan makes the agent send: the names of its get and
 * capture steps, every AGENT_OUT_DIR/NAME it mentions (the sampler's
 * time series), and agent.log. The host accepts no other file.
 */
void frame_plan_outputs(const char *plan, size_t len, struct spec_strlist *out);

#endif
