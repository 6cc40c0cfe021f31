// SPDX-License-Identifier: GPL-2.0
/* The stack tracer's deepest chain and DEBUG_STACK_USAGE console lines. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/blocked.h"
#include "collect/stack.h"
#include "util/json.h"
#include "util/num.h"
#include "util/str.h"

/*
 * Guest text: a chain or a console holds at most this many entries, and
 * byte counts beyond STACK_BYTES_MAX (1 GiB) are not stack sizes.
 */
#define STACK_MAX_ENTRIES 1024
#define STACK_BYTES_MAX (1LL << 30)

static json_object *frac(long long bytes, long thread)
{
	return json_number((double)bytes / thread);
}

long stack_thread_size(long thread_size)
{
	if (thread_size < 4096 || thread_size > 65536 ||
	    (thread_size & (thread_size - 1)))
		return STACK_THREAD_SIZE;
	return thread_size;
}

/*
 *         Depth    Size   Location    (18 entries)
 *         -----    ----   --------
 *   0)     2920      64   update_curr+0x5/0x1d0
 */
/*
 * "  0)     2920      64   update_curr+0x5/0x1d0": depth, size and the
 * location's bytes (at most 299). False for the header lines; a line with
 * an index whose figures are not byte counts is recorded in ns.
 */
static bool chain_line(const char *l, const char *end, long long *depth,
		       long long *size, const char **loc, int *loc_len,
		       struct numsrc *ns)
{
	long long idx;
	const char *e;

	while (l < end && *l == ' ')
		l++;
	if (l == end || !isdigit((unsigned char)*l) ||
	    num_ll(NULL, l, 10, 0, INT_MAX, &idx, &e) || *e != ')' ||
	    num_ll(ns, e + 1, 10, 0, STACK_BYTES_MAX, depth, &e) ||
	    num_ll(ns, e, 10, 0, STACK_BYTES_MAX, size, &e))
		return false;
	while (e < end && (*e == ' ' || *e == '\t'))
		e++;
	*loc = e;
	while (e < end && !isspace((unsigned char)*e) && e - *loc < 299)
		e++;
	*loc_len = (int)(e - *loc);
	return *loc_len > 0;
}

json_object *stack_trace_summary(const char *text, size_t len,
				 const char *max_size, size_t max_len,
				 long thread_size, struct numsrc *ns)
{
	long thread = stack_thread_size(thread_size);
	json_object *o, *chain = json_object_new_array();
	const char *p = text, *end = text + len;
	long long max = -1, first = -1;

	while (text && p < end) {
		const char *nl = memchr(p, '\n', end - p), *loc;
		const char *le = nl ? nl : end;
		long long depth, size;
		int loc_len;

		if (json_object_array_length(chain) < STACK_MAX_ENTRIES &&
		    chain_line(p, le, &depth, &size, &loc, &loc_len, ns)) {
			json_object *f = json_object_new_object();

			if (first < 0)
				first = depth;
			json_put_int(f, "depth", depth);
			json_put_int(f, "size", size);
			json_put(f, "location",
				 json_object_new_string_len(loc, loc_len));
			json_object_array_add(chain, f);
		}
		p = nl ? nl + 1 : end;
	}
	if (max_size && max_len &&
	    num_ll(ns, max_size, 10, 0, STACK_BYTES_MAX, &max, NULL))
		max = -1;
	if (max < 0)
		max = first;
	if (max < 0) {
		json_object_put(chain);
		return NULL;
	}
	o = json_object_new_object();
	json_put_int(o, "max_bytes", max);
	json_put_int(o, "thread_size", thread);
	json_put(o, "fraction", frac(max, thread));
	json_put_int(o, "entries", json_object_array_length(chain));
	json_put(o, "chain", chain);
	return o;
}

/* The pid after '(' (-1 if not one: PID_MAX_LIMIT is 4194304). */
static long long pid_of(const char *s, struct numsrc *ns)
{
	long long v;

	return num_ll(ns, s, 10, 0, 4194304, &v, NULL) ? -1 : v;
}

/* "[   12.3] kworker/u4:1 (123) used greatest stack depth: 11624 bytes left" */
json_object *stack_console_usage(const char *text, size_t len, long thread_size,
				 struct numsrc *ns)
{
	static const char key[] = ") used greatest stack depth: ";
	json_object *o = json_object_new_object(),
		    *lines = json_object_new_array();
	const char *p = text, *end = text + len;
	long long min_left = -1, thread = stack_thread_size(thread_size);

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
			if (*open == '(' &&
			    !num_ll(ns, k + sizeof(key) - 1, 10, 0,
				    STACK_BYTES_MAX, &left, NULL) &&
			    left > 0) {
				char comm[64];

				snprintf(comm, sizeof(comm), "%.*s",
					 (int)(c - s), s);
				l = json_object_new_object();
				json_put_str(l, "comm", comm);
				json_put_int(l, "pid", pid_of(open + 1, ns));
				json_put_int(l, "bytes_left", left);
				json_object_array_add(lines, l);
				if (min_left < 0 || left < min_left)
					min_left = left;
			}
		}
		p = nl ? nl + 1 : end;
	}
	/*
	 * More left than THREAD_SIZE: a KASAN kernel, whose stacks are twice
	 * as big. The console does not say; this is the best guess it allows.
	 */
	for (size_t i = 0; i < json_object_array_length(lines); i++) {
		json_object *l = json_object_array_get_idx(lines, i), *v;

		json_object_object_get_ex(l, "bytes_left", &v);
		if (json_object_get_int64(v) >= thread)
			thread = 2 * stack_thread_size(thread_size);
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

static json_object *task_json(const char *comm, int pid, long long free_b,
			      long thread)
{
	json_object *t = json_object_new_object();

	json_put_str(t, "comm", comm);
	json_put(t, "pid", json_object_new_int(pid));
	json_put_int(t, "free_bytes", free_b);
	json_put_int(t, "depth_bytes", thread - free_b);
	return t;
}

json_object *stack_sysrq_tasks(const char *text, size_t len, long thread_size,
			       struct numsrc *ns)
{
	long thread = stack_thread_size(thread_size);
	json_object *o, *ks = json_object_new_array(),
			*wl = json_object_new_array(), *deep = NULL;
	const char *p = text, *end = text + len;
	long long min_free = -1, tasks = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct sysrq_task t;
		long long fr;

		if (sysrq_task_line(p, n, &t, ns) && t.pid >= 0 &&
		    (fr = t.stack_free) > 0 && fr <= thread) {
			tasks++;
			if (starts_with(t.comm, "kswapd"))
				json_object_array_add(ks,
						      task_json(t.comm, t.pid,
								fr, thread));
			if (!strcmp(t.comm, "wblab-hog") ||
			    !strcmp(t.comm, "fio"))
				json_object_array_add(wl,
						      task_json(t.comm, t.pid,
								fr, thread));
			if (min_free < 0 || fr < min_free) {
				json_object_put(deep);
				deep = task_json(t.comm, t.pid, fr, thread);
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
