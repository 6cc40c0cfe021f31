/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_UTF8_H
#define WBLAB_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

/*
 * Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past
 * U+10FFFF. Guest strings are bytes; what wblab writes as JSON must be
 * UTF-8, so every cut of a guest string and the final pass over cell.json
 * go through these.
 */

/* Bytes of the valid character at s (1-4), or 0 if s starts no valid one. */
size_t utf8_char_len(const char *s, size_t len);
bool utf8_valid(const char *s, size_t len);
/*
 * The number of bytes of s (len bytes) to keep so that at most max are
 * kept and the cut does not fall inside a character.
 */
size_t utf8_cut(const char *s, size_t len, size_t max);
/* Append s to sb, each invalid byte sequence replaced by U+FFFD. */
void strbuf_add_utf8(struct strbuf *sb, const char *s, size_t len);

#endif
