// SPDX-License-Identifier: GPL-2.0
/* Wrapping plain text to a width (util/text.h). */
#include <stdbool.h>
#include <string.h>

#include "util/text.h"

void text_wrap(struct strbuf *out, const char *first, size_t indent,
	       size_t width, const char *text)
{
	size_t col = strlen(first);
	bool line_start = true;
	const char *p;

	if (indent >= width / 2)
		indent = width / 2;
	/* A lead too long for the line is a sentence: wrapped, never cut. */
	if (col + 10 > width) {
		struct strbuf all = STRBUF_INIT;

		strbuf_addf(&all, "%s%s", first, text);
		text_wrap(out, "", indent, width, all.buf);
		strbuf_release(&all);
		return;
	}
	strbuf_addstr(out, first);
	for (p = text + strspn(text, " "); *p; p += strspn(p, " ")) {
		size_t w = strcspn(p, " ");

		if (!line_start && col + 1 + w > width) {
			strbuf_addf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!line_start) {
			strbuf_addch(out, ' ');
			col++;
		}
		/* A word longer than the line: hard-break it. */
		while (col + w > width) {
			size_t room = col < width ? width - col : 0;

			strbuf_add(out, p, room);
			strbuf_addf(out, "\n%*s", (int)indent, "");
			p += room;
			w -= room;
			col = indent;
		}
		strbuf_add(out, p, w);
		col += w;
		p += w;
		line_start = false;
	}
	strbuf_addch(out, '\n');
}
