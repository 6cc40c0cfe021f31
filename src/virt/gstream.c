// SPDX-License-Identifier: GPL-2.0
/*
 * Console and agent channel of a guest on a remote host, as libvirt
 * streams: the host's libvirtd owns the ptys, we read and write over the
 * connection. Nothing here blocks: libvirt's event loop (virt_connect
 * registers the default implementation) calls back when a stream is
 * readable or writable, and guest_loop() waits on that loop.
 */
#include <stdio.h>
#include <string.h>

#include "util/log.h"
#include "virt/gstream.h"
#include "virt/virt.h"

static void set_events(struct gstream *s)
{
	int ev = VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR |
		 VIR_STREAM_EVENT_HANGUP;

	if (!gstream_sent(s))
		ev |= VIR_STREAM_EVENT_WRITABLE;
	virStreamEventUpdateCallback(s->st, ev);
}

static void end(struct gstream *s, bool eof, const char *why)
{
	if (!s->open)
		return;
	s->open = false;
	s->eof = eof;
	if (why && !s->why[0])
		snprintf(s->why, sizeof(s->why), "%s", why);
	virStreamEventRemoveCallback(s->st);
	if (eof)
		virStreamFinish(s->st);
	else
		virStreamAbort(s->st);
}

static void flush_out(struct gstream *s)
{
	while (s->open && !gstream_sent(s)) {
		int n = virStreamSend(s->st, s->out.buf + s->out_off,
				      s->out.len - s->out_off);

		if (n == -2)
			break; /* would block: the WRITABLE event comes back */
		if (n < 0) {
			end(s, false, virt_last_error());
			return;
		}
		s->out_off += (size_t)n;
	}
	if (s->open)
		set_events(s);
}

/* Take what is there, at most GSTREAM_BURST per wake-up. */
static void receive(struct gstream *s)
{
	char buf[65536];
	size_t got = 0;

	while (s->open && got < GSTREAM_BURST) {
		int n = virStreamRecv(s->st, buf, sizeof(buf));

		if (n == -2)
			return;
		if (n == 0) {
			end(s, true, NULL);
			return;
		}
		if (n < 0) {
			end(s, false, virt_last_error());
			return;
		}
		got += (size_t)n;
		s->on_data(s->arg, buf, (size_t)n);
	}
}

static void stream_cb(virStreamPtr st, int events, void *opaque)
{
	struct gstream *s = opaque;

	if (events & VIR_STREAM_EVENT_WRITABLE)
		flush_out(s);
	if (events & (VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_HANGUP))
		receive(s);
	/* An error with nothing left to read: the host's end is gone. */
	if (s->open && (events & VIR_STREAM_EVENT_ERROR))
		end(s, false,
		    "stream error (the host's libvirtd or QEMU went away)");
	else if (s->open && (events & VIR_STREAM_EVENT_HANGUP))
		receive(s);
}

int gstream_open(struct gstream *s, virDomainPtr dom, const char *channel,
		 void (*on_data)(void *, const char *, size_t), void *arg,
		 struct strbuf *err)
{
	virConnectPtr conn = virDomainGetConnect(dom);
	int r;

	memset(s, 0, sizeof(*s));
	strbuf_init(&s->out, 0);
	s->on_data = on_data;
	s->arg = arg;
	s->st = virStreamNew(conn, VIR_STREAM_NONBLOCK);
	if (!s->st)
		goto fail;
	/* FORCE: a stale reader (a crashed earlier try) is taken over. */
	r = channel ? virDomainOpenChannel(dom, channel, s->st,
					   VIR_DOMAIN_CHANNEL_FORCE) :
		      virDomainOpenConsole(dom, NULL, s->st,
					   VIR_DOMAIN_CONSOLE_FORCE);
	if (r < 0)
		goto fail;
	if (virStreamEventAddCallback(s->st,
				      VIR_STREAM_EVENT_READABLE |
					      VIR_STREAM_EVENT_ERROR |
					      VIR_STREAM_EVENT_HANGUP,
				      stream_cb, s, NULL) < 0)
		goto fail;
	s->open = true;
	return 0;
fail:
	/* The message first: any later libvirt call resets it. */
	strbuf_addf(err, "libvirt cannot open the %s%s: %s",
		    channel ? "channel " : "console", channel ? channel : "",
		    virt_last_error());
	if (s->st)
		virStreamFree(s->st);
	s->st = NULL;
	return -1;
}

int gstream_send(struct gstream *s, const char *buf, size_t len)
{
	if (!s->open)
		return -1;
	strbuf_add(&s->out, buf, len);
	flush_out(s);
	return s->open ? 0 : -1;
}

bool gstream_sent(const struct gstream *s)
{
	return s->out_off >= s->out.len;
}

void gstream_close(struct gstream *s)
{
	if (s->st) {
		end(s, false, NULL);
		virStreamFree(s->st);
		s->st = NULL;
	}
	strbuf_release(&s->out);
	s->out_off = 0;
}
