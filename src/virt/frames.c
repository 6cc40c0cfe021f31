// SPDX-License-Identifier: GPL-2.0
/* The agent channel's frame decoder: see frames.h. */
#include <stdio.h>
#include <string.h>

#include "agent/proto.h"
#include "virt/frames.h"

void frame_decoder_init(struct frame_decoder *d)
{
	memset(d, 0, sizeof(*d));
	strbuf_init(&d->body, 0);
}

void frame_decoder_release(struct frame_decoder *d)
{
	strbuf_release(&d->body);
}

static int fail(struct frame_decoder *d, const char *fmt, const char *arg)
{
	d->error = true;
	snprintf(d->why, sizeof(d->why), fmt, arg);
	return -1;
}

/* Printable copy of a bad header for the error message. */
static void sanitize(char *dst, size_t dlen, const char *src, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 1 < dlen; i++)
		dst[k++] = src[i] >= ' ' && src[i] < 127 ? src[i] : '?';
	dst[k] = '\0';
}

static int start_frame(struct frame_decoder *d)
{
	const char *why;
	char shown[48];

	d->hdr[d->hlen] = '\0';
	if (proto_parse_header(d->hdr, &d->type, &d->len, d->name)) {
		sanitize(shown, sizeof(shown), d->hdr, d->hlen);
		return fail(d, "malformed frame header '%s'", shown);
	}
	d->hlen = 0;
	d->got = 0;
	d->in_body = true;
	why = d->type != 'F' && d->len > FRAME_MAX_MSG ?
		      "message frame over its cap" :
	      d->accept ? d->accept(d->arg, d->type, d->name, d->len) :
			  NULL;
	d->skipping = why != NULL;
	strbuf_reset(&d->body);
	if (d->skipping) {
		d->skipped++;
		if (d->on_skip)
			d->on_skip(d->arg, d->type, d->name, d->len, why);
	}
	return 0;
}

static void end_frame(struct frame_decoder *d)
{
	if (!d->skipping && d->on_frame)
		d->on_frame(d->arg, d->type, d->name, d->body.buf, d->body.len);
	d->frames += !d->skipping;
	d->in_body = false;
	d->skipping = false;
	strbuf_release(&d->body);
}

int frame_feed(struct frame_decoder *d, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (!d->error && p < end) {
		if (d->in_body) {
			size_t n = d->len - d->got;

			if (n > (size_t)(end - p))
				n = end - p;
			if (!d->skipping)
				strbuf_add(&d->body, p, n);
			d->got += n;
			p += n;
			if (d->got == d->len)
				end_frame(d);
			continue;
		}
		{
			const char *nl = memchr(p, '\n', end - p);
			size_t n = (nl ? nl : end) - p;

			if (d->hlen + n >= sizeof(d->hdr))
				return fail(d, "frame header over %s bytes",
					    "255");
			memcpy(d->hdr + d->hlen, p, n);
			d->hlen += n;
			p += n;
			if (!nl)
				break;
			p++;
			if (start_frame(d))
				return -1;
			/* An empty body ends at once. */
			if (d->len == 0)
				end_frame(d);
		}
	}
	return d->error ? -1 : 0;
}

bool frame_idle(const struct frame_decoder *d)
{
	return !d->in_body && !d->hlen;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

static void add_name(struct spec_strlist *out, const char *s, size_t n)
{
	char name[PROTO_MAX_NAME + 1];

	if (!n || n > PROTO_MAX_NAME)
		return;
	memcpy(name, s, n);
	name[n] = '\0';
	if (proto_valid_name(name) && !spec_strlist_has(out, name))
		spec_strlist_add(out, name);
}

/* The verb of the plan line [p, le) that has fields, or -1. */
static int line_verb(const char *p, const char *le)
{
	const char *tab = memchr(p, '\t', le - p);
	char verb[16];

	if (!tab || (size_t)(tab - p) >= sizeof(verb))
		return -1;
	memcpy(verb, p, tab - p);
	verb[tab - p] = '\0';
	return proto_verb(verb);
}

void frame_plan_outputs(const char *plan, size_t len, struct spec_strlist *out)
{
	static const char dir[] = AGENT_OUT_DIR "/";
	const char *p = plan, *end = plan + len;

	add_name(out, "agent.log", 9);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end, *q;

		int v = line_verb(p, le);

		/* get and the captures name their result in field 1. */
		if (v == VERB_GET || v == VERB_CAPTURE || v == VERB_CAPFILE ||
		    v == VERB_CAPLINES) {
			const char *f = memchr(p, '\t', le - p) + 1;
			const char *t = memchr(f, '\t', le - f);

			add_name(out, f, (t ? t : le) - f);
		}
		/* Anything a step writes into the agent's out dir is sent. */
		for (q = p; (q = memmem(q, le - q, dir, sizeof(dir) - 1));) {
			const char *s = q + sizeof(dir) - 1, *e = s;

			while (e < le && name_char(*e))
				e++;
			add_name(out, s, e - s);
			q = e;
		}
		p = nl ? nl + 1 : end;
	}
}
