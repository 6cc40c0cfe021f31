// SPDX-License-Identifier: GPL-2.0
/*
 * The jobs' mails as the kernel's robots write them (jobs/lkmail.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "jobs/lkmail.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/mailhdr.h"
#include "util/run.h"
#include "util/str.h"
#include "util/strvec.h"
#include "util/text.h"
#include "util/utf8.h"

#define LKMAIL_WIDTH 80
/* RFC 5322 2.1.1: a header line SHOULD be within 78 columns. */
#define LKMAIL_HEADER_WIDTH 78

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

int lkmail_read_headers(const char *path, struct lkmail *h)
{
	struct mail_headers mh;
	int ret = 0;

	memset(h, 0, sizeof(*h));
	if (mail_headers_read(path, &mh) < 0)
		return error("%s: %s", path, open_regular_strerror(errno));
	if (!mh.message_id || !*mh.message_id)
		ret = error(
			"%s: the first message has no Message-Id: header (a reply could not be threaded)",
			path);
	else if (!mh.subject)
		ret = error("%s: the first message has no Subject: header",
			    path);
	if (ret) {
		mail_headers_release(&mh);
		return ret;
	}
	*h = (struct lkmail){ .from = mh.from,
			      .to = mh.to,
			      .cc = mh.cc,
			      .subject = mh.subject,
			      .message_id = mh.message_id,
			      .in_reply_to = mh.in_reply_to,
			      .references = mh.references };
	return 0;
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

/*
 * RFC 2047's Q encoding of one encoded-word's bytes: only what a phrase of
 * an address header may hold stays literal (5(3)), a space is '_'.
 */
static void q_encode(struct strbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == ' ')
			strbuf_addch(out, '_');
		else if (isalnum(c) || strchr("!*+-/", c))
			strbuf_addch(out, c);
		else
			strbuf_addf(out, "=%02X", c);
	}
}

/* The bytes Q encoding makes of s's first character (len bytes). */
static size_t q_len(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == ' ' || isalnum((unsigned char)s[i]) ||
				     strchr("!*+-/", s[i]) ?
			     1 :
			     3;
	return n;
}

/*
 * A run of words with 8-bit text as encoded-words of at most 75 columns,
 * each cut between characters; the spaces between them are folding
 * whitespace a reader drops, the run's own spaces are inside them.
 */
static void encode_run(struct strvec *tok, const char *s, size_t len)
{
	struct strbuf w = STRBUF_INIT;

	while (len) {
		size_t n = 0, cols = 0;

		while (n < len) {
			size_t c = utf8_char_len(s + n, len - n);

			c = c ? c : 1;
			if (cols + q_len(s + n, c) > 75 - 12)
				break;
			cols += q_len(s + n, c);
			n += c;
		}
		strbuf_reset(&w);
		strbuf_addstr(&w, "=?UTF-8?Q?");
		q_encode(&w, s, n);
		strbuf_addstr(&w, "?=");
		strvec_push(tok, w.buf);
		s += n;
		len -= n;
	}
	strbuf_release(&w);
}

/* Needs the word [s, s + len) encoding: 8-bit, and no address in it. */
static bool eight_bit_word(const char *s, size_t len)
{
	bool high = false;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '@' || s[i] == '<' || s[i] == '>')
			return false;
		high |= (unsigned char)s[i] >= 0x80;
	}
	return high;
}

/* The word of v at p: its length, and whether it needs encoding. */
static size_t next_word(const char *p, bool *eight_bit)
{
	size_t len = strcspn(p, " ");

	*eight_bit = eight_bit_word(p, len);
	return len;
}

/* v's words, runs of 8-bit words encoded: the tokens a header folds at. */
static void header_tokens(const char *v, struct strvec *tok)
{
	const char *p = v + strspn(v, " ");

	while (*p) {
		bool high, more;
		const char *end = p + next_word(p, &high), *q;

		if (!high) {
			char *w = xstrndup(p, end - p);

			strvec_push(tok, w);
			free(w);
			p = end + strspn(end, " ");
			continue;
		}
		/* the run's spaces go inside it: the next 8-bit words too */
		for (q = end + strspn(end, " "); *q;
		     q = end + strspn(end, " ")) {
			size_t len = next_word(q, &more);

			if (!more)
				break;
			end = q + len;
		}
		encode_run(tok, p, end - p);
		p = end + strspn(end, " ");
	}
}

int lkmail_header(struct strbuf *out, const char *name, const char *v)
{
	struct strbuf utf8 = STRBUF_INIT;
	struct strvec tok = STRVEC_INIT;
	size_t col;

	if (!v || !*v)
		return 0;
	for (const char *c = v; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return error(
				"mail header %s: '%.40s' holds a %s: refused",
				name, v,
				*c == '\r' || *c == '\n' ? "line break" :
							   "control character");
	strbuf_add_utf8(&utf8, v, strlen(v));
	header_tokens(utf8.buf, &tok);
	strbuf_addf(out, "%s:", name);
	col = strlen(name) + 1;
	/* folded only between words: a Message-Id is never cut */
	for (size_t i = 0; i < tok.nr; i++) {
		size_t w = strlen(tok.v[i]);

		if (i && col + 1 + w > LKMAIL_HEADER_WIDTH) {
			strbuf_addstr(out, "\n");
			col = 0;
		}
		strbuf_addf(out, " %s", tok.v[i]);
		col += 1 + w;
	}
	strbuf_addch(out, '\n');
	strvec_clear(&tok);
	strbuf_release(&utf8);
	return 0;
}

int lkmail_render(struct lkmail *m, const char *body, time_t when,
		  struct strbuf *out)
{
	const struct {
		const char *name, *value;
	} hdr[] = {
		{ "From", m->from },
		{ "To", m->to },
		{ "Cc", m->cc },
		{ "Subject", m->subject },
		{ "Date", NULL },
		{ "Message-Id", NULL },
		{ "In-Reply-To", m->in_reply_to },
		{ "References", m->references },
	};
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
	for (size_t i = 0; i < ARRAY_SIZE(hdr); i++) {
		const char *v = i == 4 ? date :
				i == 5 ? m->message_id :
					 hdr[i].value;

		if (lkmail_header(out, hdr[i].name, v))
			return -1;
	}
	strbuf_addstr(out, "MIME-Version: 1.0\n"
			   "Content-Type: text/plain; charset=utf-8\n"
			   "Content-Transfer-Encoding: 8bit\n\n");
	lkmail_fit(out, body);
	return 0;
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
