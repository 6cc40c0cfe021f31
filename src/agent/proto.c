// SPDX-License-Identifier: GPL-2.0
/* Protocol helpers shared by the host and the guest agent (libc only). */
#include <stdlib.h>
#include <string.h>

#include "agent/proto.h"

size_t proto_escape(char *dst, const char *src, size_t len)
{
	char *d = dst;

	for (size_t i = 0; i < len; i++) {
		switch (src[i]) {
		case '\\':
			*d++ = '\\';
			*d++ = '\\';
			break;
		case '\t':
			*d++ = '\\';
			*d++ = 't';
			break;
		case '\n':
			*d++ = '\\';
			*d++ = 'n';
			break;
		default:
			*d++ = src[i];
		}
	}
	*d = '\0';
	return d - dst;
}

static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			*d++ = *s;
			continue;
		}
		s++;
		*d++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
	}
	*d = '\0';
}

int proto_split(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		char *tab = strchr(p, '\t');

		fields[n++] = p;
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	for (int i = 0; i < n; i++)
		unescape(fields[i]);
	/* fields doubles as an execvp argv: it has room for max + 1. */
	fields[n] = NULL;
	return n;
}

int proto_valid_name(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > PROTO_MAX_NAME || name[0] == '.')
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
		      *p == '-'))
			return 0;
	return 1;
}

int proto_parse_header(const char *line, char *type, size_t *len, char *name)
{
	const char *p = line;
	char *end;
	unsigned long long n;
	size_t nl;

	if (strncmp(p, PROTO_MAGIC " ", 5))
		return -1;
	p += 5;
	if (!strchr("HSFXP", *p) || !*p || p[1] != ' ')
		return -1;
	*type = *p;
	p += 2;
	if (*p < '0' || *p > '9')
		return -1;
	n = strtoull(p, &end, 10);
	if (*end != ' ' || n > PROTO_MAX_FRAME)
		return -1;
	p = end + 1;
	nl = strlen(p);
	if (nl > PROTO_MAX_NAME)
		return -1;
	memcpy(name, p, nl + 1);
	if (!proto_valid_name(name))
		return -1;
	*len = n;
	return 0;
}
