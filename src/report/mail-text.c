// SPDX-License-Identifier: GPL-2.0
/*
 * The mail report's text (report/mail-int.h): printable ASCII only, cut
 * or wrapped to the 80 columns, figures in the report's formats.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/mail-int.h"
#include "report/report.h"
#include "util/text.h"

/* Copy s into buf (size n) as printable ASCII, cut to max with '~'. */
const char *mail_ascii(char *buf, size_t n, const char *s, size_t max)
{
	size_t k = 0, len = strlen(s);

	if (max >= n)
		max = n - 1;
	for (size_t i = 0; i < len && k < max; i++) {
		unsigned char ch = s[i];

		buf[k++] = ch >= 0x20 && ch < 0x7f ? ch : '?';
	}
	if (len > max && max > 0)
		buf[max - 1] = '~';
	buf[k] = 0;
	return buf;
}

/*
 * Append text wrapped at WIDTH, continuation lines indented by indent.
 * first leads the first line; a first too long for the line is wrapped
 * with the text (a caller's sentence, not a column), never cut.
 */
void mail_wrap(struct strbuf *out, const char *first, size_t indent,
	       const char *text)
{
	char clean[4096];

	mail_ascii(clean, sizeof(clean), text, sizeof(clean) - 1);
	text_wrap(out, first, indent, WIDTH, clean);
}

void rpt_fmt_val(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else if (fabs(v) < 1e8)
		snprintf(buf, n, "%.2f", v);
	else
		snprintf(buf, n, "%.3e", v);
}

void rpt_fmt_pct(char *buf, size_t n, double pct)
{
	if (isnan(pct))
		snprintf(buf, n, "n/a");
	else if (isinf(pct))
		snprintf(buf, n, "%sinf", pct > 0 ? "+" : "-");
	else if (fabs(pct) >= 10000)
		snprintf(buf, n, "%s9999", pct > 0 ? ">" : "<-");
	else
		snprintf(buf, n, "%.2f", pct);
}
