// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report's *Differs between the kernels* (the facts whose values
 * differ between the sides, as the mail says them) and *Two builds under
 * one name* (report_build()'s mixed sides).
 */
#include "report/report.h"
#include "util/html.h"

void rpt_differs_html(const struct report *r, struct strbuf *out)
{
	struct strvec names = STRVEC_INIT;
	bool any = false;

	rpt_side_names(r, &names);
	for (size_t w = 0; rpt_fact_names[w]; w++) {
		if (!rpt_fact_differs(r, &names, w))
			continue;
		if (!any)
			strbuf_addstr(out, "<h2>Differs between the kernels"
					   "</h2>\n<table>");
		any = true;
		strbuf_addstr(out, "<tr><th>");
		html_escape(out, rpt_fact_names[w]);
		strbuf_addstr(out, "</th>");
		for (size_t i = 0; i < names.nr; i++) {
			const struct rpt_cell *c = rpt_side_cell(r, names.v[i]);
			char buf[32];

			strbuf_addstr(out, "<td>");
			if (c) {
				const char *v =
					rpt_cell_fact(c, w, buf, sizeof(buf));

				html_escape(out, c->side);
				strbuf_addstr(out, ": ");
				/* As the mail report says it: never a blank. */
				html_escape(out, *v ? v : "(none)");
			}
			strbuf_addstr(out, "</td>");
		}
		strbuf_addstr(out, "</tr>\n");
	}
	if (any)
		strbuf_addstr(out, "</table>\n");
	else if (names.nr > 1)
		strbuf_addstr(out, "<p>Differs between the kernels: nothing "
				   "but the name (an A/A comparison).</p>\n");
	if (r->mixed.nr) {
		strbuf_addstr(out, "<h2>Two builds under one name</h2>\n<ul>");
		for (size_t i = 0; i < r->mixed.nr; i++) {
			strbuf_addstr(out, "<li>");
			html_escape(out, r->mixed.v[i]);
			strbuf_addstr(out, "</li>\n");
		}
		strbuf_addstr(out, "</ul>\n");
	}
	strvec_clear(&names);
}
