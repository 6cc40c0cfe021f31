// SPDX-License-Identifier: GPL-2.0
/*
 * The jobs' mails as the kernel's robots write them (jobs/lkmail.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "jobs/lkmail.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "util/str.h"
#include "util/text.h"

#define LKMAIL_WIDTH 80
/* A patch's headers are at its start; a series' first message is small. */
#define HEADER_MAX (256 * 1024)

void lkmail_release(struct lkmail *m)
{
	free(m->from);
	free(m->to);
	free(m->cc);
	free(m->subject);
	free(m->message_id);
	free(m->in_reply_to);
	free(m->references);
	memset(m, 0, sizeof(*m));
}

/*
 * A header value as one line: unfolded (CR and LF dropped, RFC 5322
 * 2.2.3), runs of blanks made one space as git mailinfo does, so no line
 * break can reach our headers.
 */
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

static char **slot_of(struct lkmail *h, const char *name, size_t len)
{
	static const struct {
		const char *name;
		size_t off;
	} hdrs[] = {
		{ "From", offsetof(struct lkmail, from) },
		{ "To", offsetof(struct lkmail, to) },
		{ "Cc", offsetof(struct lkmail, cc) },
		{ "Subject", offsetof(struct lkmail, subject) },
		{ "Message-Id", offsetof(struct lkmail, message_id) },
		{ "References", offsetof(struct lkmail, references) },
	};

	for (size_t i = 0; i < sizeof(hdrs) / sizeof(*hdrs); i++)
		if (strlen(hdrs[i].name) == len &&
		    !strncasecmp(hdrs[i].name, name, len))
			return (char **)((char *)h + hdrs[i].off);
	return NULL;
}

/* Unfold the header block of text (up to the first blank line) into h. */
static void parse_block(struct lkmail *h, const char *text)
{
	const char *p = text;

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

int lkmail_read_headers(const char *path, struct lkmail *h)
{
	struct strbuf text = STRBUF_INIT;
	int ret = 0;

	memset(h, 0, sizeof(*h));
	if (read_file_capped(&text, path, HEADER_MAX) < 0) {
		ret = error("%s: %s", path, strerror(errno));
		goto out;
	}
	parse_block(h, text.buf);
	if (!h->message_id || !*h->message_id)
		ret = error(
			"%s: the first message has no Message-Id: header (a reply could not be threaded)",
			path);
	else if (!h->subject)
		ret = error("%s: the first message has no Subject: header",
			    path);
out:
	strbuf_release(&text);
	if (ret)
		lkmail_release(h);
	return ret;
}

static char *joined(const char *a, const char *b)
{
	if (a && *a && b && *b)
		return xasprintf("%s, %s", a, b);
	return a && *a ? xstrdup(a) : b && *b ? xstrdup(b) : NULL;
}

void lkmail_reply(struct lkmail *r, const struct lkmail *o, const char *from)
{
	memset(r, 0, sizeof(*r));
	r->from = xstrdup(from);
	r->to = o->from ? xstrdup(o->from) : NULL;
	r->cc = joined(o->to, o->cc);
	r->subject = strncasecmp(o->subject, "Re:", 3) ?
			     xasprintf("Re: %s", o->subject) :
			     xstrdup(o->subject);
	r->in_reply_to = xstrdup(o->message_id);
	r->references =
		o->references && *o->references ?
			xasprintf("%s %s", o->references, o->message_id) :
			xstrdup(o->message_id);
}

void lkmail_fit(struct strbuf *out, const char *body)
{
	for (const char *p = body; *p;) {
		const char *e = strchrnul(p, '\n');
		size_t len = e - p, lead = strspn(p, " ");

		if (len <= LKMAIL_WIDTH) {
			strbuf_add(out, p, len);
			strbuf_addch(out, '\n');
		} else {
			char *first = xasprintf("%*s", (int)lead, "");
			char *rest = xmalloc(len - lead + 1);

			memcpy(rest, p + lead, len - lead);
			rest[len - lead] = 0;
			/* the continuation two columns in from the line */
			text_wrap(out, first, lead + 2, LKMAIL_WIDTH, rest);
			free(first);
			free(rest);
		}
		p = *e ? e + 1 : e;
	}
}

static void header(struct strbuf *out, const char *name, const char *v)
{
	if (!v || !*v)
		return;
	/* long address lists and references are folded at their spaces */
	text_wrap(out, name, 1, LKMAIL_WIDTH, v);
}

void lkmail_render(struct lkmail *m, const char *body, time_t when,
		   struct strbuf *out)
{
	char date[64], host[128] = "localhost";
	static unsigned seq;

	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000",
		 gmtime(&when));
	if (!m->message_id) {
		char ts[32];

		gethostname(host, sizeof(host) - 1);
		strftime(ts, sizeof(ts), "%Y%m%d%H%M%S", gmtime(&when));
		m->message_id = xasprintf("<%s.%d.%u-wblab@%s>", ts,
					  (int)getpid(), ++seq, host);
	}
	header(out, "From: ", m->from);
	header(out, "To: ", m->to);
	header(out, "Cc: ", m->cc);
	header(out, "Subject: ", m->subject);
	header(out, "Date: ", date);
	header(out, "Message-Id: ", m->message_id);
	header(out, "In-Reply-To: ", m->in_reply_to);
	header(out, "References: ", m->references);
	strbuf_addstr(out, "MIME-Version: 1.0\n"
			   "Content-Type: text/plain; charset=utf-8\n"
			   "Content-Transfer-Encoding: 8bit\n\n");
	lkmail_fit(out, body);
}

int lkmail_deliver(const char *path, const struct strbuf *msg,
		   const char *const *sendmail)
{
	struct run_opts ro = { .in_path = path };

	if (write_file_atomic(path, msg->buf, msg->len, 0644))
		return error("cannot write %s: %s", path, strerror(errno));
	if (sendmail && sendmail[0] && run_argv(sendmail, &ro))
		return error("%s failed on %s", sendmail[0], path);
	return 0;
}

/* argv[i] as sh would read it back. */
static void word(struct strbuf *w, const char *arg)
{
	const char *one[] = { arg, NULL };

	strbuf_reset(w);
	argv_to_strbuf(w, one);
}

void lkmail_command(struct strbuf *out, const char *const *argv)
{
	const size_t indent = 8, more = 12;
	struct strbuf w = STRBUF_INIT, next = STRBUF_INIT;
	size_t col = indent, keep = 0;

	strbuf_addf(out, "%*s", (int)indent, "");
	for (size_t i = 0; argv[i]; i++) {
		word(&w, argv[i]);
		/* "--option value" stays on one line */
		keep = 0;
		if (starts_with(argv[i], "--") && argv[i + 1] &&
		    argv[i + 1][0] != '-') {
			word(&next, argv[i + 1]);
			keep = 1 + next.len;
		}
		/* room for " WORD" (and its value) and a " \" after it */
		if (i && col + 1 + w.len + keep + 2 > LKMAIL_WIDTH) {
			strbuf_addf(out, " \\\n%*s", (int)more, "");
			col = more;
		} else if (i) {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, w.buf, w.len);
		col += w.len;
	}
	strbuf_addch(out, '\n');
	strbuf_release(&w);
	strbuf_release(&next);
}

char *lkmail_subject(const char *tree, const char *commit, const char *what,
		     const char *change)
{
	return xasprintf("[%s] %.10s: %s%s%s regression", tree, commit, what,
			 *change ? " " : "", change);
}
