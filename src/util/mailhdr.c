// SPDX-License-Identifier: GPL-2.0
/* The headers of a mail or a patch file (util/mailhdr.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/log.h"
#include "util/mailhdr.h"
#include "util/str.h"
#include "util/strbuf.h"

/*
 * A patch's headers are at its start: of a series (an mbox of any size)
 * the first message's are read from its first 256 KiB.
 */
#define HEADER_MAX (256 * 1024)

/* A header value as one line, unfolded (see mailhdr.h). */
static char *one_line(const char *s, size_t len)
{
	char *v = xmalloc(len + 1);
	size_t k = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i] == '\t' ? ' ' : s[i];

		if (c == '\r' || c == '\n' ||
		    (c == ' ' && (!k || v[k - 1] == ' ')))
			continue;
		v[k++] = c;
	}
	while (k && v[k - 1] == ' ')
		k--;
	v[k] = 0;
	return v;
}

static char **slot_of(struct mail_headers *h, const char *name, size_t len)
{
	static const struct {
		const char *name;
		size_t off;
	} hdrs[] = {
		{ "From", offsetof(struct mail_headers, from) },
		{ "To", offsetof(struct mail_headers, to) },
		{ "Cc", offsetof(struct mail_headers, cc) },
		{ "Subject", offsetof(struct mail_headers, subject) },
		{ "Message-Id", offsetof(struct mail_headers, message_id) },
		{ "In-Reply-To", offsetof(struct mail_headers, in_reply_to) },
		{ "References", offsetof(struct mail_headers, references) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(hdrs); i++)
		if (strlen(hdrs[i].name) == len &&
		    !strncasecmp(hdrs[i].name, name, len))
			return (char **)((char *)h + hdrs[i].off);
	return NULL;
}

void mail_headers_parse(const char *text, struct mail_headers *h)
{
	const char *p = text;

	memset(h, 0, sizeof(*h));
	if (starts_with(p, "From ")) /* the mbox separator line */
		p = strchrnul(p, '\n'), p += *p == '\n';
	while (*p && *p != '\n' && !(p[0] == '\r' && p[1] == '\n')) {
		const char *colon = strchr(p, ':'), *end = p;
		char **slot;

		/* the field runs on over continuation lines */
		do {
			end = strchrnul(end, '\n');
			end += *end == '\n';
		} while (*end == ' ' || *end == '\t');
		if (colon && colon < end) {
			slot = slot_of(h, p, colon - p);
			if (slot && !*slot)
				*slot = one_line(colon + 1, end - colon - 1);
		}
		p = end;
	}
}

int mail_headers_read(const char *path, struct mail_headers *h)
{
	struct strbuf sb = STRBUF_INIT;
	char *real = realpath(path, NULL);
	int fd = real ? open_regular(real, 0) : -1, err;
	ssize_t n = 0;

	memset(h, 0, sizeof(*h));
	free(real);
	if (fd < 0)
		return -1;
	strbuf_grow(&sb, HEADER_MAX);
	while (sb.len < HEADER_MAX &&
	       (n = read(fd, sb.buf + sb.len, HEADER_MAX - sb.len)) > 0)
		sb.len += n;
	err = errno;
	close(fd);
	sb.buf[sb.len] = '\0';
	if (n >= 0)
		mail_headers_parse(sb.buf, h);
	strbuf_release(&sb);
	errno = err;
	return n < 0 ? -1 : 0;
}

void mail_headers_release(struct mail_headers *h)
{
	free(h->from);
	free(h->to);
	free(h->cc);
	free(h->subject);
	free(h->message_id);
	free(h->in_reply_to);
	free(h->references);
	memset(h, 0, sizeof(*h));
}

/* Spaces, tabs and UTF-8 no-break spaces (mail clients add them). */
static const char *skip_blanks(const char *l)
{
	for (;;) {
		if (*l == ' ' || *l == '\t')
			l++;
		else if ((unsigned char)l[0] == 0xc2 &&
			 (unsigned char)l[1] == 0xa0)
			l += 2;
		else
			return l;
	}
}

const char *mail_subject_bare(const char *subject)
{
	const char *s = skip_blanks(subject);

	if (*s == '[' && strchr(s, ']'))
		s = skip_blanks(strchr(s, ']') + 1);
	return s;
}
