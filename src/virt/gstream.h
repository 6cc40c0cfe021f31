/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_GSTREAM_H
#define WBLAB_GSTREAM_H

#include <libvirt/libvirt.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

/*
 * A guest's console or agent channel on a remote host, over the libvirt
 * connection (virDomainOpenConsole, virDomainOpenChannel) instead of a unix
 * socket on our side: a non-blocking stream whose bytes libvirt's event
 * loop hands to on_data. Reads are bounded per wake-up (GSTREAM_BURST) so
 * a flooding guest cannot starve the loop's timers; what the bytes may
 * cost in memory is the consumer's cap (capture.h, frames.h).
 */
#define GSTREAM_BURST (1u << 20)

struct gstream {
	virStreamPtr st;
	bool open; /* readable until EOF or an error */
	bool eof; /* the host's end closed (domain gone) */
	char why[160]; /* the error that ended it, if any */
	void (*on_data)(void *arg, const char *buf, size_t len);
	void *arg;
	struct strbuf out; /* bytes still to send */
	size_t out_off;
};

/*
 * Open dom's serial console (channel NULL) or the named virtio channel
 * and start receiving. 0, or -1 with the reason in err.
 */
int gstream_open(struct gstream *s, virDomainPtr dom, const char *channel,
		 void (*on_data)(void *, const char *, size_t), void *arg,
		 struct strbuf *err);
/*
 * Queue len bytes: sent now as far as the stream takes them, the rest
 * when it is writable again (the event loop). -1 if the stream is closed.
 */
int gstream_send(struct gstream *s, const char *buf, size_t len);
/* Everything queued was sent. */
bool gstream_sent(const struct gstream *s);
/* Stop receiving and free the stream (idempotent). */
void gstream_close(struct gstream *s);

#endif
