// SPDX-License-Identifier: GPL-2.0
/* Dirty and writeback file pages left at each OOM, from the console. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/oom.h"
#include "util/json.h"

#define PAGE_KB 4 /* x86_64 */

struct report {
	double t;
	bool memcg;
	char cg[128];
	long long file_kb, dirty_kb, wb_kb; /* -1: not seen */
	bool in_memcg_stats;
};

double console_line_ts(const char *l, size_t n)
{
	char *e;
	double t;

	if (n < 3 || l[0] != '[')
		return -1;
	t = strtod(l + 1, &e);
	return e > l + 1 && e < l + n && *e == ']' ? t : -1;
}

/* The value after key in line (a bounded copy), or -1. */
static long long num_after(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

static void report_line(struct report *r, const char *line)
{
	const char *cg = strstr(line, "Memory cgroup stats for ");
	const char *body = strstr(line, "] ");
	long long v;

	body = body ? body + 2 : line;
	if (cg) {
		const char *s = cg + strlen("Memory cgroup stats for ");
		size_t n = strcspn(s, ":\n");

		r->memcg = true;
		r->in_memcg_stats = true;
		snprintf(r->cg, sizeof(r->cg), "%.*s", (int)n, s);
		return;
	}
	if (r->in_memcg_stats) {
		/* "file 4096", "file_dirty 0", "file_writeback 0": bytes. */
		if (!strncmp(body, "file ", 5))
			r->file_kb = strtoll(body + 5, NULL, 10) / 1024;
		else if (!strncmp(body, "file_dirty ", 11))
			r->dirty_kb = strtoll(body + 11, NULL, 10) / 1024;
		else if (!strncmp(body, "file_writeback ", 15))
			r->wb_kb = strtoll(body + 15, NULL, 10) / 1024;
		return;
	}
	/* Mem-Info in pages; the per-node line has kB and is skipped. */
	if (strstr(line, "unevictable:") && !strstr(line, "kB")) {
		if ((v = num_after(line, " dirty:")) >= 0)
			r->dirty_kb = v * PAGE_KB;
		if ((v = num_after(line, " writeback:")) >= 0)
			r->wb_kb = v * PAGE_KB;
	}
	if (strstr(line, "active_file:") && !strstr(line, "kB")) {
		long long a = num_after(line, "active_file:");
		long long i = num_after(line, "inactive_file:");

		/* "active_file:" also matches inside "inactive_file:". */
		if (strstr(line, " active_file:"))
			a = num_after(line, " active_file:");
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

json_object *oom_facts(const char *text, size_t len, double start)
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
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)ll, p);
		p = nl ? nl + 1 : end;
		if (strstr(line, " invoked oom-killer: ")) {
			if (open)
				json_object_array_add(evs,
						      report_json(&r, start));
			memset(&r, 0, sizeof(r));
			r.file_kb = r.dirty_kb = r.wb_kb = -1;
			r.t = console_line_ts(line, strlen(line));
			open = true;
			n++;
			if (first < 0)
				first = r.t;
			continue;
		}
		if (!open)
			continue;
		if (strstr(line, "Tasks state (memory values in pages)")) {
			r.in_memcg_stats = false;
			continue;
		}
		/* The report's end: the kill verdict. */
		if (strstr(line, "oom-kill:constraint=")) {
			if (strstr(line, "CONSTRAINT_MEMCG"))
				r.memcg = true;
			json_object_array_add(evs, report_json(&r, start));
			open = false;
			continue;
		}
		report_line(&r, line);
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
