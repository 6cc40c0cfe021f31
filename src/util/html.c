// SPDX-License-Identifier: GPL-2.0
#include <libxml/entities.h>
#include <libxml/xmlstring.h>
#include <stdbool.h>
#include <stdlib.h>

#include "util/html.h"
#include "util/log.h"

void html_escape(struct strbuf *out, const char *s)
{
	char *clean = xstrdup(s ? s : "");
	bool utf8 = xmlCheckUTF8((const xmlChar *)clean);
	xmlChar *e;

	for (unsigned char *p = (unsigned char *)clean; *p; p++)
		if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f ||
		    (!utf8 && *p >= 0x80))
			*p = '?';
	e = xmlEncodeSpecialChars(NULL, (const xmlChar *)clean);
	strbuf_addstr(out, (const char *)e);
	xmlFree(e);
	free(clean);
}
