// SPDX-License-Identifier: GPL-2.0
#include "util/utf8.h"

static bool cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t utf8_char_len(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (!len)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0; /* a continuation byte, an overlong lead, or > U+10FFFF */
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	/* The second byte's range rules out overlongs and surrogates. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (!cont(s[i]))
			return 0;
	return n;
}

bool utf8_valid(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t n = utf8_char_len(s + i, len - i);

		if (!n)
			return false;
		i += n;
	}
	return true;
}

size_t utf8_cut(const char *s, size_t len, size_t max)
{
	size_t n = max;

	if (len <= max)
		return len;
	/* s[n] starts what is cut off: back up to the start of its character. */
	for (int k = 0; k < 3 && n > 0 && cont(s[n]); k++)
		n--;
	return cont(s[n]) ? max : n;
}

void strbuf_add_utf8(struct strbuf *sb, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t n = utf8_char_len(s + i, len - i);

		if (n) {
			strbuf_add(sb, s + i, n);
			i += n;
			continue;
		}
		strbuf_addstr(sb, "\xef\xbf\xbd");
		/* One U+FFFD for a lead byte and the continuations it owns. */
		i++;
		while (i < len && cont(s[i]))
			i++;
	}
}
