// SPDX-License-Identifier: GPL-2.0
/*
 * One line of tracefs' `trace` text: header fields and "key=value"
 * arguments. Pure, and linear in the line's length whatever the line.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/traceline.h"
#include "util/num.h"
#include "util/utf8.h"

#define HEADER_MAX 64 /* comm (16), '-', pid (7), blanks, " [" */
#define CPU_DIGITS_MAX 6

static bool isnum(const char *p, const char *e)
{
	if (p >= e)
		return false;
	for (; p < e; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

/*
 * "           <...>-1234    [001] d..1.   123.456789: event: args"
 * The comm may hold spaces and dashes: find "-PID [CPU]" instead.
 */
bool trace_parse_line(const char *line, size_t len, struct trace_line *out,
		      struct numsrc *ns)
{
	const char *end = line + len, *p, *open = NULL, *close = NULL;
	const char *dash, *ps, *t, *te;
	long long pid, cpu;

	if (!len || line[0] == '#')
		return false;
	memset(out, 0, sizeof(*out));
	/*
	 * The header is "%16s-%-7d [%03d]": " [CPU]" is within the first
	 * HEADER_MAX bytes, and CPU has a few digits. Bounding both keeps a
	 * hostile line (megabytes of " [") linear.
	 */
	for (p = line; p + 2 < end && p < line + HEADER_MAX; p++) {
		const char *q;
		size_t rest = end - p - 2;

		if (p[0] != ' ' || p[1] != '[')
			continue;
		q = memchr(p + 2, ']',
			   rest < CPU_DIGITS_MAX ? rest : CPU_DIGITS_MAX);
		if (!q || !isnum(p + 2, q))
			continue;
		/* Before the blanks: "comm-pid". */
		te = p;
		while (te > line && te[-1] == ' ')
			te--;
		ps = te;
		while (ps > line && isdigit((unsigned char)ps[-1]))
			ps--;
		if (ps == te || ps == line || ps[-1] != '-')
			continue;
		open = p + 1;
		close = q;
		dash = ps - 1;
		t = line;
		while (t < dash && *t == ' ')
			t++;
		snprintf(out->comm, sizeof(out->comm), "%.*s", (int)(dash - t),
			 t);
		if (num_ll(ns, ps, 10, 0, INT_MAX, &pid, NULL) ||
		    num_ll(ns, open + 1, 10, 0, INT_MAX, &cpu, NULL))
			return false;
		out->pid = (int)pid;
		out->cpu = (int)cpu;
		out->ns = ns;
		break;
	}
	if (!close)
		return false;
	/* Then an optional flags field, the timestamp with ':', the event. */
	p = close + 1;
	for (int tok = 0; tok < 2; tok++) {
		const char *e;

		while (p < end && *p == ' ')
			p++;
		t = p;
		while (p < end && *p != ' ')
			p++;
		/* The flags word ("d..1.") is no timestamp: not an error. */
		if (p - t < 2 || p[-1] != ':' ||
		    num_double(NULL, t, 0, 1e12, &out->ts, &e) || e != p - 1)
			continue;
		while (p < end && *p == ' ')
			p++;
		t = p;
		while (p < end && *p != ':' && *p != ' ')
			p++;
		if (p >= end || *p != ':' || p == t)
			return false;
		out->event = t;
		out->event_len = p - t;
		p++;
		while (p < end && *p == ' ')
			p++;
		out->args = p;
		out->args_len = end - p;
		return true;
	}
	return false;
}

void trace_args_copy(const struct trace_line *l, char *buf, size_t size)
{
	size_t n = l->args_len < size - 1 ? l->args_len : size - 1;

	/* Not snprintf("%.*s"): that measures the whole (long) args first. */
	memcpy(buf, l->args, n);
	buf[n] = '\0';
}

static const char *find_arg(const struct trace_line *l, const char *key)
{
	size_t k = strlen(key);
	const char *p = l->args, *end = l->args + l->args_len;

	while (p + k < end) {
		if ((p == l->args || p[-1] == ' ') && !memcmp(p, key, k) &&
		    p[k] == '=')
			return p + k + 1;
		p++;
	}
	return NULL;
}

bool trace_arg_num(const struct trace_line *l, const char *key, long long *v)
{
	const char *p = find_arg(l, key);

	return p && !num_ll(l->ns, p, 0, LLONG_MIN, LLONG_MAX, v, NULL);
}

void trace_add(long long *acc, long long v)
{
	if (__builtin_add_overflow(*acc, v, acc))
		*acc = v > 0 ? LLONG_MAX : LLONG_MIN;
}

long long trace_clamp(long long v)
{
	return v > TRACE_NUM_MAX  ? TRACE_NUM_MAX :
	       v < -TRACE_NUM_MAX ? -TRACE_NUM_MAX :
				    v;
}

bool trace_arg_str(const struct trace_line *l, const char *key, char *buf,
		   size_t len)
{
	const char *p = find_arg(l, key), *e;
	const char *end = l->args + l->args_len;

	if (!p)
		return false;
	for (e = p; e < end && *e != ' '; e++)
		;
	/* What fits in buf, never half a character (a guest's reason=). */
	snprintf(buf, len, "%.*s", (int)utf8_cut(p, e - p, len - 1), p);
	return true;
}
