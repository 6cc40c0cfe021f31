// SPDX-License-Identifier: GPL-2.0
/* Dirty and writeback file pages left at each OOM, from the console. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/oom.h"
#include "util/json.h"
#include "util/num.h"
#include "util/str.h"

#define PAGE_KB 4 /* x86_64 */
#define OOM_NUM_MAX (1LL << 50) /* pages or bytes: KiB of it fit */

struct report {
	double t;
	bool memcg;
	char cg[128];
	long long file_kb, dirty_kb, wb_kb; /* -1: not seen */
	bool in_memcg_stats;
};

double console_line_ts(const char *l, size_t n)
{
	const char *e;
	double t;

	if (n < 3 || l[0] != '[' || num_double(NULL, l + 1, 0, 1e12, &t, &e) ||
	    e >= l + n || *e != ']')
		return -1;
	return t;
}

static const char *find(const char *l, size_t n, const char *what)
{
	return memmem(l, n, what, strlen(what));
}

/* The number after key in the line, or -1 (and recorded in ns). */
static long long num_after(const char *l, size_t n, const char *key,
			   struct numsrc *ns)
{
	const char *p = find(l, n, key);
	long long v;

	return p && !num_ll(ns, p + strlen(key), 10, 0, OOM_NUM_MAX, &v, NULL) ?
		       v :
		       -1;
}

/* A memcg stats line, "file 4096": bytes, as KiB (or -1). */
static long long stat_kb(const char *v, struct numsrc *ns)
{
	long long x;

	return num_ll(ns, v, 10, 0, OOM_NUM_MAX, &x, NULL) ? -1 : x / 1024;
}

static void report_line(struct report *r, const char *l, size_t n,
			struct numsrc *ns)
{
	const char *cg = find(l, n, "Memory cgroup stats for ");
	const char *body = find(l, n, "] "), *v;
	size_t bn;
	long long x;

	body = body ? body + 2 : l;
	bn = l + n - body;
	if (cg) {
		const char *s = cg + strlen("Memory cgroup stats for ");
		const char *colon = memchr(s, ':', l + n - s);

		r->memcg = true;
		r->in_memcg_stats = true;
		snprintf(r->cg, sizeof(r->cg), "%.*s",
			 (int)((colon ? colon : l + n) - s), s);
		return;
	}
	if (r->in_memcg_stats) {
		/* "file 4096", "file_dirty 0", "file_writeback 0": bytes. */
		if (skip_prefix_mem(body, bn, "file ", &v, &bn))
			r->file_kb = stat_kb(v, ns);
		else if (skip_prefix_mem(body, bn, "file_dirty ", &v, &bn))
			r->dirty_kb = stat_kb(v, ns);
		else if (skip_prefix_mem(body, bn, "file_writeback ", &v, &bn))
			r->wb_kb = stat_kb(v, ns);
		return;
	}
	/* Mem-Info in pages; the per-node line has kB and is skipped. */
	if (find(l, n, "unevictable:") && !find(l, n, "kB")) {
		if ((x = num_after(l, n, " dirty:", ns)) >= 0)
			r->dirty_kb = x * PAGE_KB;
		if ((x = num_after(l, n, " writeback:", ns)) >= 0)
			r->wb_kb = x * PAGE_KB;
	}
	if (find(l, n, "active_file:") && !find(l, n, "kB")) {
		long long a = num_after(l, n, "active_file:", ns);
		long long i = num_after(l, n, "inactive_file:", ns);

		/* "active_file:" also matches inside "inactive_file:". */
		if (find(l, n, " active_file:"))
			a = num_after(l, n, " active_file:", ns);
		if (a >= 0 && i >= 0)
			r->file_kb = (a + i) * PAGE_KB;
	}
}

static json_object *report_json(const struct report *r, double start)
{
	json_object *e = json_object_new_object();

	json_put_num(e, "t_s", start >= 0 ? r->t - start : r->t);
	json_put_str(e, "kind", r->memcg ? "memcg" : "global");
	if (r->memcg && r->cg[0])
		json_put_str(e, "memcg", r->cg);
	if (r->file_kb >= 0)
		json_put_int(e, "file_kb", r->file_kb);
	if (r->dirty_kb >= 0)
		json_put_int(e, "dirty_kb", r->dirty_kb);
	if (r->wb_kb >= 0)
		json_put_int(e, "writeback_kb", r->wb_kb);
	if (r->dirty_kb >= 0 || r->wb_kb >= 0)
		json_put(e, "dirty_present",
			 json_object_new_boolean(r->dirty_kb > 0 ||
						 r->wb_kb > 0));
	return e;
}

json_object *oom_facts(const char *text, size_t len, double start,
		       struct numsrc *ns)
{
	json_object *o = json_object_new_object(),
		    *evs = json_object_new_array();
	const char *p = text, *end = text + len;
	struct report r;
	bool open = false;
	long long n = 0, dirty = 0;
	double first = -1;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *line = p;

		p = nl ? nl + 1 : end;
		if (find(line, ll, " invoked oom-killer: ")) {
			if (open)
				json_object_array_add(evs,
						      report_json(&r, start));
			memset(&r, 0, sizeof(r));
			r.file_kb = r.dirty_kb = r.wb_kb = -1;
			r.t = console_line_ts(line, ll);
			open = true;
			n++;
			if (first < 0)
				first = r.t;
			continue;
		}
		if (!open)
			continue;
		if (find(line, ll, "Tasks state (memory values in pages)")) {
			r.in_memcg_stats = false;
			continue;
		}
		/* The report's end: the kill verdict. */
		if (find(line, ll, "oom-kill:constraint=")) {
			if (find(line, ll, "CONSTRAINT_MEMCG"))
				r.memcg = true;
			json_object_array_add(evs, report_json(&r, start));
			open = false;
			continue;
		}
		report_line(&r, line, ll, ns);
	}
	if (open)
		json_object_array_add(evs, report_json(&r, start));
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		json_object *v;

		if (json_object_object_get_ex(json_object_array_get_idx(evs, i),
					      "dirty_present", &v) &&
		    json_object_get_boolean(v))
			dirty++;
	}
	json_put_int(o, "reports", n);
	json_put_int(o, "with_dirty_file", dirty);
	if (first >= 0 && start >= 0)
		json_put_num(o, "first_oom_s", first - start);
	json_put(o, "events", evs);
	return o;
}
