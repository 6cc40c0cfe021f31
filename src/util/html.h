/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_HTML_H
#define WBLAB_HTML_H

#include "util/strbuf.h"

/*
 * Append s escaped for HTML text and double-quoted attributes (libxml2's
 * xmlEncodeSpecialChars). Control characters, and every byte >= 0x80 when
 * s is not valid UTF-8, become '?': strings from specs, consoles and
 * guests reach reports through here.
 */
void html_escape(struct strbuf *out, const char *s);

#endif
