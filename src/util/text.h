/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_UTIL_TEXT_H
#define WBLAB_UTIL_TEXT_H

#include <stddef.h>

#include "util/strbuf.h"

/*
 * Append text after first, wrapped at width columns (bytes) at spaces,
 * continuation lines indented by indent (at most half the width); a word
 * longer than the line is broken, a first too long for the line is
 * wrapped with the text, never cut. Ends with a newline. The report's mail (mail_wrap) and the
 * jobs' mails (jobs/lkmail.h) wrap with it.
 */
void text_wrap(struct strbuf *out, const char *first, size_t indent,
	       size_t width, const char *text);

#endif
