// SPDX-License-Identifier: GPL-2.0
/*
 * Checked numbers in untrusted text (util/num.h): strtoll and strtod do
 * the conversion; what they let through (no digits, overflow clamped,
 * trailing garbage, a skipped newline, inf and nan) is refused here.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/num.h"
#include "util/str.h"

void numsrc_add(struct numsrc *s, const char *name, const char *text,
		size_t len)
{
	if (!s || !text || s->nr_files == NUMSRC_MAX_FILES)
		return;
	s->files[s->nr_files++] = (struct numsrc_file){ name, text, len };
}

void numsrc_release(struct numsrc *s)
{
	free(s->first);
	memset(s, 0, sizeof(*s));
}

static bool continues_number(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_';
}

/* Blanks on this line only: strtoll would skip a newline too. */
static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* The value as the guest wrote it, printable, for the message. */
static void token(const char *p, char *out, size_t size)
{
	size_t n = 0;

	while (n + 1 < size && p[n] && !isspace((unsigned char)p[n])) {
		out[n] = isprint((unsigned char)p[n]) && p[n] != '\'' ? p[n] :
									'?';
		n++;
	}
	out[n] = '\0';
}

static int bad(struct numsrc *s, const char *p, const char *why)
{
	const struct numsrc_file *f = NULL;
	char tok[33];
	int line = 1;

	if (!s)
		return -1;
	if (s->nr_bad++)
		return -1;
	for (size_t i = 0; i < s->nr_files && !f; i++)
		if (p >= s->files[i].text &&
		    p <= s->files[i].text + s->files[i].len)
			f = &s->files[i];
	for (const char *c = f ? f->text : p; c < p; c++)
		line += *c == '\n';
	token(p, tok, sizeof(tok));
	if (f)
		s->first =
			xasprintf("%s:%d: '%s': %s", f->name, line, tok, why);
	else
		s->first = xasprintf("'%s': %s", tok, why);
	s->first_file = f ? f->name : NULL;
	return -1;
}

static bool starts_number(const char *p, bool point)
{
	if (*p == '-' || *p == '+')
		p++;
	if (point && *p == '.')
		p++;
	return isdigit((unsigned char)*p);
}

int num_ll(struct numsrc *s, const char *p, int base, long long min,
	   long long max, long long *out, const char **end)
{
	const char *q = skip_blanks(p);
	char *e;
	long long v;

	if (!starts_number(q, false))
		return bad(s, q, "not a number");
	errno = 0;
	v = strtoll(q, &e, base);
	if (continues_number(*e))
		return bad(s, q, "not a number");
	if (errno == ERANGE || v < min || v > max) {
		char why[80];

		snprintf(why, sizeof(why), "outside [%lld, %lld]", min, max);
		return bad(s, q, why);
	}
	*out = v;
	if (end)
		*end = e;
	return 0;
}

int num_double(struct numsrc *s, const char *p, double min, double max,
	       double *out, const char **end)
{
	const char *q = skip_blanks(p);
	const char *r = q + (*q == '-' || *q == '+');
	char *e;
	double v;

	/* strtod would take a hex float: guest decimals never are. */
	if (!starts_number(q, true) ||
	    (r[0] == '0' && (r[1] == 'x' || r[1] == 'X')))
		return bad(s, q, "not a number");
	errno = 0;
	v = strtod(q, &e);
	if (continues_number(*e))
		return bad(s, q, "not a number");
	if (!isfinite(v) || errno == ERANGE || v < min || v > max) {
		char why[80];

		snprintf(why, sizeof(why), "outside [%g, %g]", min, max);
		return bad(s, q, why);
	}
	*out = v;
	if (end)
		*end = e;
	return 0;
}

/* The line after the one p is on, or NULL after the last. */
static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

long long num_field(const char *text, const char *key)
{
	const char *rest;
	long long v;

	for (const char *p = text; p && *p; p = next_line(p)) {
		if (!skip_prefix(p, key, &rest) ||
		    (*rest != ' ' && *rest != '\t'))
			continue;
		return num_ll(NULL, rest, 10, 0, LLONG_MAX, &v, NULL) ? -1 : v;
	}
	return -1;
}

int kver_parse(const char *release)
{
	int major = 0, minor = 0;
	const char *p = release;

	if (!p || !isdigit((unsigned char)*p))
		return 0;
	for (; isdigit((unsigned char)*p) && major < 100; p++)
		major = major * 10 + (*p - '0');
	if (*p++ != '.' || !isdigit((unsigned char)*p))
		return 0;
	for (; isdigit((unsigned char)*p) && minor < 1000; p++)
		minor = minor * 10 + (*p - '0');
	if (major >= 100 || minor >= 1000 || isdigit((unsigned char)*p))
		return 0;
	return KVER(major, minor);
}
