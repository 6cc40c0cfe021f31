// SPDX-License-Identifier: GPL-2.0
/*
 * Console parser: the report (collect/console.h). The events read by the
 * parser (console.c) become the report's, in order, with the primary kind
 * and title; and the whole of a file or a descriptor in one call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/console-int.h"

static void finish_kind(struct bev *e)
{
	if (!(e->flags & F_DFAULT))
		return;
	/*
	 * A double fault is a stack overflow when the kernel says so, or
	 * when the undeliverable fault hit just below a kernel stack pointer.
	 */
	if (e->so_evidence ||
	    (e->have_rsp && e->have_cr2 && e->rsp >= 0xffff800000000000ull &&
	     e->cr2 >= 0xffff800000000000ull && e->rsp > e->cr2 &&
	     e->rsp - e->cr2 <= 64))
		e->kind = K_STACK;
}

static char *oom_title(struct bev *e)
{
	char buf[HEAD_MAX + 64];
	struct obuf o = { buf, sizeof(buf), 0 };
	json_object *v;

	buf[0] = '\0';
	if (e->oom_panic)
		oputs(&o, "kernel panic: ");
	oputs(&o, "OOM (");
	oputs(&o, e->oom_memcg ? "memcg" : "global");
	if (e->oom_memcg && json_object_object_get_ex(e->detail, "memcg", &v)) {
		oputs(&o, " ");
		onorm(&o, json_object_get_string(v),
		      json_object_get_string_len(v));
	}
	oputs(&o, ")");
	if (json_object_object_get_ex(e->detail, "invoker", &v)) {
		oputs(&o, " invoked by ");
		onorm(&o, json_object_get_string(v),
		      json_object_get_string_len(v));
	}
	return xstrdup(buf);
}

static json_object *trace_json(const struct bev *e)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < e->nr_frames; i++)
		json_object_array_add(a, json_object_new_string(e->frames[i]));
	return a;
}

static void finish_event(struct bev *e, struct console_event *out)
{
	const char *f;

	finish_kind(e);
	out->kind = kind_names[e->kind];
	out->line = e->line;
	f = (e->flags & F_NOFUNC) ? NULL : guilty(e);
	if (e->kind == K_OOM)
		out->title = oom_title(e);
	out->detail = e->detail;
	e->detail = NULL;
	if (e->kind == K_OOM) {
		json_object_object_add(
			out->detail, "scope",
			json_object_new_string(e->oom_memcg ? "memcg" :
							      "global"));
		json_object_object_add(out->detail, "panic",
				       json_object_new_boolean(e->oom_panic));
	} else {
		out->title = xasprintf("%s%s%s%s%s", e->head,
				       e->access[0] ? " " : "", e->access,
				       f ? " in " : "", f ? f : "");
	}
	if (!f && !e->nr_frames)
		return;
	if (!out->detail)
		out->detail = json_object_new_object();
	if (f)
		json_object_object_add(out->detail, "function",
				       json_object_new_string(f));
	if (e->nr_frames)
		json_object_object_add(out->detail, "trace", trace_json(e));
}

static int primary_rank(const char *kind)
{
	if (!strcmp(kind, "oom"))
		return 1;
	if (!strcmp(kind, "alloc_failure"))
		return 2;
	return 0;
}

void console_parser_finish(struct console_parser *p, struct console_report *out)
{
	size_t i;
	int best = 3;

	console_parser_flush(p);
	stall_finish(p);
	out->bytes = p->bytes;
	out->lines = p->lineno;
	out->dropped_events = p->dropped;
	out->nr_events = 0;
	out->events = p->nr_ev ? xzalloc(p->nr_ev * sizeof(*out->events)) :
				 NULL;
	out->kind = "none";
	for (i = 0; i < (size_t)p->nr_ev; i++) {
		struct console_event *ev = &out->events[out->nr_events];
		int r;

		if (p->ev[i].flags & F_TENTATIVE)
			continue;
		finish_event(&p->ev[i], ev);
		out->nr_events++;
		r = primary_rank(ev->kind);
		if (r < best) {
			best = r;
			out->kind = ev->kind;
		}
	}
}

void console_report_init(struct console_report *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = "none";
}

void console_report_free(struct console_report *r)
{
	size_t i;

	for (i = 0; i < r->nr_events; i++) {
		free(r->events[i].title);
		json_object_put(r->events[i].detail);
	}
	free(r->events);
	console_report_init(r);
}

int console_parse_fd(int fd, struct console_report *out)
{
	struct console_parser *p = console_parser_new();
	size_t cap = 1 << 18;
	char *buf = xmalloc(cap);
	ssize_t n;

	for (;;) {
		n = read(fd, buf, cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		console_parser_feed(p, buf, n);
	}
	free(buf);
	if (n < 0) {
		int err = errno;

		console_parser_free(p);
		errno = err;
		return -1;
	}
	console_parser_finish(p, out);
	console_parser_free(p);
	return 0;
}

int console_parse_file(const char *path, struct console_report *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret, err;

	if (fd < 0)
		return -1;
	ret = console_parse_fd(fd, out);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

json_object *console_report_to_json(const struct console_report *r,
				    const char *file)
{
	json_object *o = json_object_new_object();
	json_object *evs = json_object_new_array();
	size_t i;

	if (file) {
		char *f = dup_clean(file, strlen(file));

		json_object_object_add(o, "file", json_object_new_string(f));
		free(f);
	}
	json_object_object_add(o, "kind", json_object_new_string(r->kind));
	for (i = 0; i < r->nr_events; i++) {
		const struct console_event *e = &r->events[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "kind",
				       json_object_new_string(e->kind));
		json_object_object_add(j, "title",
				       json_object_new_string(e->title));
		json_object_object_add(j, "line",
				       json_object_new_int64(e->line));
		if (e->detail) {
			json_object_object_foreach(e->detail, k, v)
				json_object_object_add(j, k,
						       json_object_get(v));
		}
		json_object_array_add(evs, j);
	}
	json_object_object_add(o, "events", evs);
	json_object_object_add(o, "lines", json_object_new_int64(r->lines));
	json_object_object_add(o, "bytes", json_object_new_int64(r->bytes));
	if (r->dropped_events)
		json_object_object_add(
			o, "events_dropped",
			json_object_new_int64(r->dropped_events));
	return o;
}
