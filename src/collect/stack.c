// SPDX-License-Identifier: GPL-2.0
/* The stack tracer's deepest chain and DEBUG_STACK_USAGE console lines. */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/blocked.h"
#include "collect/stack.h"
#include "util/json.h"
#include "util/str.h"

/*
 * Guest text: a chain or a console holds at most this many entries, and
 * byte counts beyond STACK_BYTES_MAX (1 GiB) are not stack sizes.
 */
#define STACK_MAX_ENTRIES 1024
#define STACK_BYTES_MAX (1LL << 30)

static bool in_range(long long v)
{
	return v >= 0 && v <= STACK_BYTES_MAX;
}

static json_object *frac(long long bytes)
{
	return json_number((double)bytes / STACK_THREAD_SIZE);
}

/*
 *         Depth    Size   Location    (18 entries)
 *         -----    ----   --------
 *   0)     2920      64   update_curr+0x5/0x1d0
 */
json_object *stack_trace_summary(const char *text, size_t len,
				 const char *max_size, size_t max_len)
{
	json_object *o, *chain = json_object_new_array();
	const char *p = text, *end = text + len;
	long long max = -1, first = -1;

	while (text && p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[512], loc[300];
		int idx;
		long long depth, size;

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p = nl ? nl + 1 : end;
		if (json_object_array_length(chain) < STACK_MAX_ENTRIES &&
		    sscanf(line, " %d) %lld %lld %299s", &idx, &depth, &size,
			   loc) == 4 &&
		    in_range(depth) && in_range(size)) {
			json_object *f = json_object_new_object();

			if (first < 0)
				first = depth;
			json_put_int(f, "depth", depth);
			json_put_int(f, "size", size);
			json_put_str(f, "location", loc);
			json_object_array_add(chain, f);
		}
	}
	if (max_size && max_len) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%.*s", (int)max_len, max_size);
		if (isdigit((unsigned char)buf[0]))
			max = strtoll(buf, NULL, 10);
		if (!in_range(max))
			max = -1;
	}
	if (max < 0)
		max = first;
	if (max < 0) {
		json_object_put(chain);
		return NULL;
	}
	o = json_object_new_object();
	json_put_int(o, "max_bytes", max);
	json_put(o, "thread_size", json_object_new_int(STACK_THREAD_SIZE));
	json_put(o, "fraction", frac(max));
	json_put_int(o, "entries", json_object_array_length(chain));
	json_put(o, "chain", chain);
	return o;
}

/* The digits after '(' up to end, as a pid (-1 if not one). */
static long long pid_of(const char *s, const char *end)
{
	long long v = 0;

	if (s >= end || !isdigit((unsigned char)*s))
		return -1;
	for (; s < end && isdigit((unsigned char)*s); s++)
		if ((v = v * 10 + (*s - '0')) > 4194304)
			return -1;
	return v;
}

/* "[   12.3] kworker/u4:1 (123) used greatest stack depth: 11624 bytes left" */
json_object *stack_console_usage(const char *text, size_t len)
{
	static const char key[] = ") used greatest stack depth: ";
	json_object *o = json_object_new_object(),
		    *lines = json_object_new_array();
	const char *p = text, *end = text + len;
	long long min_left = -1, thread = STACK_THREAD_SIZE;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *k = memmem(p, n, key, sizeof(key) - 1);
		const char *open, *c;
		json_object *l;
		long long left;

		if (k && json_object_array_length(lines) < STACK_MAX_ENTRIES) {
			for (open = k; open > p && *open != '('; open--)
				;
			c = open;
			while (c > p && c[-1] == ' ')
				c--;
			/* The comm starts after "] " of the timestamp, if any. */
			const char *s = c;

			while (s > p && s[-1] != ']')
				s--;
			while (s < c && *s == ' ')
				s++;
			left = strtoll(k + sizeof(key) - 1, NULL, 10);
			if (*open == '(' && left > 0 && in_range(left)) {
				char comm[64];

				snprintf(comm, sizeof(comm), "%.*s",
					 (int)(c - s), s);
				l = json_object_new_object();
				json_put_str(l, "comm", comm);
				json_put_int(l, "pid", pid_of(open + 1, p + n));
				json_put_int(l, "bytes_left", left);
				json_object_array_add(lines, l);
				if (min_left < 0 || left < min_left)
					min_left = left;
			}
		}
		p = nl ? nl + 1 : end;
	}
	/*
	 * More left than 16 KiB: a KASAN kernel, whose stacks are twice as
	 * big. The console does not say; this is the best guess it allows.
	 */
	for (size_t i = 0; i < json_object_array_length(lines); i++) {
		json_object *l = json_object_array_get_idx(lines, i), *v;

		json_object_object_get_ex(l, "bytes_left", &v);
		if (json_object_get_int64(v) >= thread)
			thread = 2 * STACK_THREAD_SIZE;
	}
	for (size_t i = 0; i < json_object_array_length(lines); i++) {
		json_object *l = json_object_array_get_idx(lines, i), *v;

		json_object_object_get_ex(l, "bytes_left", &v);
		json_put_int(l, "depth_bytes",
			     thread - json_object_get_int64(v));
	}
	json_put_int(o, "count", json_object_array_length(lines));
	if (min_left >= 0) {
		json_put_int(o, "thread_size", thread);
		json_put_int(o, "min_bytes_left", min_left);
		json_put_int(o, "max_depth_bytes", thread - min_left);
		json_put_num(o, "fraction",
			     (double)(thread - min_left) / thread);
	}
	json_put(o, "lines", lines);
	return o;
}

static const char *line_with(const char *p, const char *end, const char *what)
{
	const char *h = memmem(p, end - p, what, strlen(what));

	if (!h)
		return NULL;
	while (h > p && h[-1] != '\n')
		h--;
	return h;
}

bool stack_console_window(const char *text, size_t len, const char *begin,
			  const char *end, const char **out, size_t *out_len)
{
	const char *stop = text + len, *b = line_with(text, stop, begin), *e;

	if (!b)
		return false;
	e = end ? line_with(b, stop, end) : NULL;
	*out = b;
	*out_len = (e ? e : stop) - b;
	return true;
}

static json_object *task_json(const char *comm, int pid, long long free_b)
{
	json_object *t = json_object_new_object();

	json_put_str(t, "comm", comm);
	json_put(t, "pid", json_object_new_int(pid));
	json_put_int(t, "free_bytes", free_b);
	json_put_int(t, "depth_bytes", STACK_THREAD_SIZE - free_b);
	return t;
}

json_object *stack_sysrq_tasks(const char *text, size_t len)
{
	json_object *o, *ks = json_object_new_array(),
			*wl = json_object_new_array(), *deep = NULL;
	const char *p = text, *end = text + len;
	long long min_free = -1, tasks = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct sysrq_task t;
		long long fr;

		if (sysrq_task_line(p, n, &t) && t.pid >= 0 &&
		    (fr = t.stack_free) > 0 && fr <= STACK_THREAD_SIZE) {
			tasks++;
			if (starts_with(t.comm, "kswapd"))
				json_object_array_add(ks, task_json(t.comm,
								    t.pid, fr));
			if (!strcmp(t.comm, "wblab-hog") ||
			    !strcmp(t.comm, "fio"))
				json_object_array_add(wl, task_json(t.comm,
								    t.pid, fr));
			if (min_free < 0 || fr < min_free) {
				json_object_put(deep);
				deep = task_json(t.comm, t.pid, fr);
				min_free = fr;
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (!tasks) {
		json_object_put(ks);
		json_object_put(wl);
		return NULL;
	}
	o = json_object_new_object();
	json_put_int(o, "tasks", tasks);
	json_put(o, "kswapd", ks);
	json_put(o, "workload", wl);
	json_put(o, "deepest", deep);
	return o;
}
