/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_LKMAIL_H
#define WBLAB_JOBS_LKMAIL_H

#include <time.h>

#include "util/strbuf.h"

/*
 * The jobs' mails in the form the kernel community reads from its robots
 * (the 0-day/LKP "kernel test robot"): plain text, every line within 80
 * columns, a subject that names the tree, the commit and the metric
 * ("[mm] 0889a155db: reclaim-wr-direct +inf regression"), "commit: ID
 * (\"subject\")", "in tree ...", the effect, the steps to reproduce.
 * A validate result on an mbox is a reply to the patch (In-Reply-To and
 * References from its Message-Id, "Subject: Re: ..."). The message is
 * written to a file for `git send-email FILE`, and piped to a sendmail
 * argv when one is configured.
 */
struct lkmail {
	char *from, *to, *cc; /* NULL: no such header */
	char *subject;
	char *message_id; /* "<...>"; lkmail_render() makes one if NULL */
	char *in_reply_to, *references;
};

void lkmail_release(struct lkmail *m);

/*
 * The headers of the first message of an mbox or a patch file (From:,
 * To:, Cc:, Subject:, Message-Id:, In-Reply-To:, References:; read by
 * util/mailhdr.h, the one parser of them).
 * 0, or -1 with an error naming the file (no Message-Id: -1 as well,
 * since a reply could not thread).
 */
int lkmail_read_headers(const char *path, struct lkmail *h);

/*
 * r becomes a reply from `from` to orig: To its author, Cc its To and
 * Cc, "Re: " its subject (once), In-Reply-To its Message-Id and
 * References its References then its Message-Id.
 */
void lkmail_reply(struct lkmail *r, const struct lkmail *orig,
		  const char *from);

/* body's lines longer than 80 columns wrapped at spaces, indent kept. */
void lkmail_fit(struct strbuf *out, const char *body);

/*
 * The one header writer of wblab's mails: "NAME: VALUE" and a newline.
 * Header values come from command lines, specs and other people's mails
 * (a bisected tree's directory name, an event's title, an mbox's
 * subject): a CR, LF or other control character is refused (-1 with an
 * error naming the header), never written, so no value adds a header.
 * Runs of words with 8-bit text become RFC 2047 encoded-words (UTF-8, Q,
 * invalid sequences as U+FFFD); words holding an address stay as they
 * are. Folded within 78 columns, only between words: a Message-Id is
 * never cut. An empty or NULL value writes nothing. 0 or -1.
 */
int lkmail_header(struct strbuf *out, const char *name, const char *value);

/*
 * The whole message: headers (Date from when, a Message-Id made here if m
 * has none, MIME headers for UTF-8 plain text), a blank line, the fitted
 * body. 0, or -1 with an error when a header is refused (lkmail_header()).
 */
int lkmail_render(struct lkmail *m, const char *body, time_t when,
		  struct strbuf *out);

/*
 * Write msg to path (atomically), then pipe it to sendmail[0..] if given
 * (NULL-terminated argv, no shell). 0, or -1 with an error.
 */
int lkmail_deliver(const char *path, const struct strbuf *msg,
		   const char *const *sendmail);

/*
 * argv as a shell command a reader can paste: each word quoted as
 * argv_to_strbuf() does, 8 columns in, lines within 80 columns continued
 * with " \\" (a long word stays whole on a line of its own).
 */
void lkmail_command(struct strbuf *out, const char *const *argv);

/* "[TREE] COMMIT10: WHAT CHANGE regression" (what may be an event). */
char *lkmail_subject(const char *tree, const char *commit, const char *what,
		     const char *change);

#endif
