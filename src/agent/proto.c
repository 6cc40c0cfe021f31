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

const char *const proto_verb_names[NR_VERBS] = {
	[VERB_ENV] = "env",	      [VERB_PHASE] = "phase",
	[VERB_RUN] = "run",	      [VERB_TRY] = "try",
	[VERB_CAPTURE] = "capture",   [VERB_BG] = "bg",
	[VERB_WAIT] = "wait",	      [VERB_PUT] = "put",
	[VERB_APPEND] = "append",     [VERB_GET] = "get",
	[VERB_CGROUP] = "cgroup",     [VERB_CAPFILE] = "capfile",
	[VERB_CAPLINES] = "caplines", [VERB_MKDIR] = "mkdir",
};

const char *const proto_phase_names[NR_PHASES] = {
	[PHASE_SETUP] = "setup",     [PHASE_WARMUP] = "warmup",
	[PHASE_ARM] = "arm",	     [PHASE_WORKLOAD] = "workload",
	[PHASE_COLLECT] = "collect", [PHASE_TEARDOWN] = "teardown",
};

const char *const proto_status_names[NR_STATUSES] = {
	[STATUS_OK] = "ok",
	[STATUS_SETUP_FAILED] = "setup-failed",
	[STATUS_WORKLOAD_FAILED] = "workload-failed",
};

static int lookup(const char *const *names, int n, const char *name)
{
	for (int i = 0; name && i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

int proto_verb(const char *name)
{
	return lookup(proto_verb_names, NR_VERBS, name);
}

int proto_phase(const char *name)
{
	return lookup(proto_phase_names, NR_PHASES, name);
}

int proto_phase_is_setup(int phase)
{
	return phase == PHASE_SETUP || phase == PHASE_WARMUP ||
	       phase == PHASE_ARM;
}

int proto_status(const char *name)
{
	return lookup(proto_status_names, NR_STATUSES, name);
}

size_t proto_split(const char *line, struct strvec *fields)
{
	size_t len = strlen(line), n = 0;
	char *buf = malloc(len + 1), *d;
	const char *s = line;

	if (!buf)
		return 0;
	for (;;) {
		d = buf;
		for (; *s && *s != '\t'; s++) {
			if (*s == '\\' && s[1] && s[1] != '\t') {
				s++;
				*d++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
			} else {
				*d++ = *s;
			}
		}
		*d = '\0';
		strvec_push(fields, buf);
		n++;
		if (!*s)
			break;
		s++; /* the TAB */
	}
	free(buf);
	return n;
}

int proto_uint(const char *s, unsigned int max, unsigned int *out)
{
	unsigned long long v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned int)(*s - '0');
		if (v > max)
			return -1;
	}
	*out = (unsigned int)v;
	return 0;
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
	if (!strchr("HSFXPR", *p) || !*p || p[1] != ' ')
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
