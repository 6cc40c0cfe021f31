// SPDX-License-Identifier: GPL-2.0
/* D-state tasks in a SysRq-t dump, and where each of them waits. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/blocked.h"
#include "util/json.h"
#include "util/num.h"
#include "util/str.h"

/* The line past its "[   12.345678] " timestamp and leading blanks. */
static const char *body(const char *l, const char *end)
{
	if (l < end && *l == '[') {
		const char *rb = memchr(l, ']', end - l);

		if (rb)
			l = rb + 1;
	}
	while (l < end && (*l == ' ' || *l == '\t'))
		l++;
	return l;
}

bool sysrq_task_line(const char *l, size_t n, struct sysrq_task *t,
		     struct numsrc *ns)
{
	const char *end = l + n, *b = body(l, end), *c, *st, *sk, *pd;
	size_t cn;
	long long v;
	int cl;

	if (!skip_prefix_mem(b, end - b, "task:", &c, &cn) ||
	    !(st = memmem(c, cn, " state:", 7)) || st + 8 > end)
		return false;
	for (cl = (int)(st - c); cl > 0 && c[cl - 1] == ' '; cl--)
		;
	snprintf(t->comm, sizeof(t->comm), "%.*s", cl, c);
	t->state = st[7];
	sk = memmem(st, end - st, " stack:", 7);
	t->stack_free =
		sk && !num_ll(ns, sk + 7, 10, 0, 1LL << 30, &v, NULL) ? v : -1;
	pd = memmem(st, end - st, " pid:", 5);
	t->pid = pd && !num_ll(ns, pd + 5, 10, 0, INT_MAX, &v, NULL) ? (int)v :
								       -1;
	return true;
}

static int frame(const char *b, const char *end, char *name, size_t nsz)
{
	const char *plus = memchr(b, '+', end - b), *r;
	size_t rn;
	int n;

	if (!plus || plus == b ||
	    !skip_prefix_mem(plus, end - plus, "+0x", &r, &rn))
		return 0;
	for (const char *c = b; c < plus; c++)
		if (*c == ' ' || *c == '?')
			return 0;
	n = (int)(plus - b);
	snprintf(name, nsz, "%.*s", n, b);
	return n;
}

int sysrq_frame(const char *l, size_t len, char *name, size_t nsz)
{
	const char *end = l + len;

	return frame(body(l, end), end, name, nsz);
}

bool sysrq_sched_frame(const char *name)
{
	return starts_with(name, "schedule") ||
	       starts_with(name, "__schedule") ||
	       starts_with(name, "io_schedule");
}

/*
 * "Workqueue: events refill_work [virtio_net]": a kworker's comm says
 * nothing, the work function it runs does ("refill_work"). An idle
 * worker prints "Workqueue:  0x0 (events_highpri)": no function.
 */
static size_t work_fn(const char *b, const char *end, const char **fn)
{
	const char *f = memchr(b, ' ', end - b), *fe, *r;
	size_t rn;

	if (!f)
		return 0;
	while (f < end && *f == ' ')
		f++;
	for (fe = f; fe < end && *fe != ' '; fe++)
		;
	if (fe == f || fe - f >= 128 ||
	    skip_prefix_mem(f, fe - f, "0x", &r, &rn))
		return 0;
	*fn = f;
	return fe - f;
}

size_t sysrq_work(const char *l, size_t len, const char **fn)
{
	const char *end = l + len, *b = body(l, end), *r;
	size_t rn;

	if (!skip_prefix_mem(b, end - b, "Workqueue: ", &r, &rn) || !rn)
		return 0;
	return work_fn(r, end, fn);
}

json_object *blocked_tasks(const char *text, size_t len, struct numsrc *ns)
{
	json_object *o = json_object_new_object(),
		    *tasks = json_object_new_array(), *cur = NULL,
		    *frames = NULL;
	const char *p = text, *end = text + len;
	long long count = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end, *b = body(p, le), *r;
		struct sysrq_task t;
		const char *wf;
		size_t rn, wn;
		char s[128];

		if (sysrq_task_line(p, le - p, &t, ns)) {
			cur = NULL;
			if (t.state == 'D' && ++count <= BLOCKED_MAX_TASKS) {
				cur = json_object_new_object();
				frames = json_object_new_array();
				json_put_str(cur, "comm", t.comm);
				json_put(cur, "pid",
					 json_object_new_int(t.pid));
				json_put(cur, "frames", frames);
				json_object_array_add(tasks, cur);
			}
		} else if (cur && (wn = sysrq_work(p, le - p, &wf))) {
			json_put(cur, "work",
				 json_object_new_string_len(wf, (int)wn));
		} else if (cur &&
			   skip_prefix_mem(b, le - b, "</TASK>", &r, &rn)) {
			cur = NULL;
		} else if (cur && frame(b, le, s, sizeof(s)) &&
			   json_object_array_length(frames) <
				   BLOCKED_MAX_FRAMES) {
			json_object_array_add(frames,
					      json_object_new_string(s));
			if (!json_object_object_get_ex(cur, "wait", NULL) &&
			    !sysrq_sched_frame(s))
				json_put_str(cur, "wait", s);
		}
		p = nl ? nl + 1 : end;
	}
	json_put_int(o, "count", count);
	json_put(o, "tasks", tasks);
	return o;
}
