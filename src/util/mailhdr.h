/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_MAILHDR_H
#define WBLAB_MAILHDR_H

/*
 * The headers of a mail or a patch file (git format-patch, b4, an mbox
 * of a series: the first message's), the one parser of them: the jobs'
 * replies (jobs/lkmail.c), a tree's patch subjects (jobs/tree.c) and the
 * report's (report/load.c) read them here.
 *
 * The header block runs to the first blank line (an mbox "From " line
 * before it is skipped); a field runs on over its continuation lines and
 * is unfolded to one line (RFC 5322 2.2.3: CR and LF dropped, runs of
 * blanks made one space as git mailinfo does, so no line break can reach
 * a header wblab writes). Names match without case; the first of a name
 * counts.
 */
struct mail_headers {
	char *from, *to, *cc; /* NULL: no such header */
	char *subject;
	char *message_id;
	char *in_reply_to, *references;
};

void mail_headers_parse(const char *text, struct mail_headers *h);
/*
 * The headers at the start of path, a regular file or a link to one (the
 * user's patch; no FIFO or device: open_regular()): of its first 256 KiB,
 * where a series' first message's are however long it is. 0, or -1 with
 * errno set (open_regular_strerror()).
 */
int mail_headers_read(const char *path, struct mail_headers *h);
void mail_headers_release(struct mail_headers *h);

/*
 * A patch's subject without its tag: blanks (a mail client's UTF-8
 * no-break spaces too) and a leading "[PATCH v2 1/3]" skipped; a pointer
 * into subject.
 */
const char *mail_subject_bare(const char *subject);

#endif
