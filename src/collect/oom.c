// SPDX-License-Identifier: GPL-2.0
/* Dirty and writeback file pages left at each OOM, from the console. */
#include <ctype.h>
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
	long long limit_kb; /* the memcg's limit, or the RAM; -1: not seen */
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

/* The N of "keyNkB" in the line, or -1 (and recorded in ns). */
static long long kb_after(const char *l, size_t n, const char *key,
			  struct numsrc *ns)
{
	const char *p = find(l, n, key);
	char num[24];
	size_t d;
	long long v;

	if (!p)
		return -1;
	p += strlen(key);
	for (d = 0; p + d < l + n && d < sizeof(num) - 1 &&
		    isdigit((unsigned char)p[d]);
	     d++)
		num[d] = p[d];
	num[d] = '\0';
	/* The digits alone: "kB" would read as part of the number. */
	if (p + d + 2 > l + n || memcmp(p + d, "kB", 2))
		return -1;
	return num_ll(ns, num, 10, 0, OOM_NUM_MAX, &v, NULL) ? -1 : v;
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
	/* "memory: usage 262144kB, limit 262144kB, failcnt 9" (memcg). */
	if (skip_prefix_mem(body, bn, "memory: usage ", &v, &bn)) {
		if ((x = kb_after(v, bn, ", limit ", ns)) >= 0)
			r->limit_kb = x;
		return;
	}
	/* "524158 pages RAM" (global): the machine is the limit. */
	if (find(body, bn, " pages RAM") &&
	    !num_ll(ns, body, 10, 0, OOM_NUM_MAX, &x, NULL)) {
		r->limit_kb = x * PAGE_KB;
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

/* Dirty and writeback over 1/OOM_PREMATURE_DEN of the limit. */
static bool report_premature(const struct report *r)
{
	long long dw = (r->dirty_kb > 0 ? r->dirty_kb : 0) +
		       (r->wb_kb > 0 ? r->wb_kb : 0);

	return oom_premature(dw * 1024, r->limit_kb * 1024);
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
	if (r->limit_kb > 0)
		json_put_int(e, "limit_kb", r->limit_kb);
	if (r->limit_kb > 0 && (r->dirty_kb >= 0 || r->wb_kb >= 0))
		json_put(e, "premature",
			 json_object_new_boolean(report_premature(r)));
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
	long long n = 0, premature = 0, kills = 0;
	double first = -1;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *line = p;

		p = nl ? nl + 1 : end;
		/* Every kill says so; dump_header() is rate limited (10 in 5 s). */
		if (find(line, ll, ": Killed process "))
			kills++;
		if (find(line, ll, " invoked oom-killer: ")) {
			if (open)
				json_object_array_add(evs,
						      report_json(&r, start));
			memset(&r, 0, sizeof(r));
			r.file_kb = r.dirty_kb = r.wb_kb = r.limit_kb = -1;
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
					      "premature", &v) &&
		    json_object_get_boolean(v))
			premature++;
	}
	json_put_int(o, "reports", n);
	json_put_int(o, "kills", kills);
	/* Kills whose report the rate limit left out. */
	json_put_int(o, "unreported_kills", kills > n ? kills - n : 0);
	json_put_int(o, "premature", premature);
	if (first >= 0 && start >= 0)
		json_put_num(o, "first_oom_s", first - start);
	json_put(o, "events", evs);
	return o;
}

/* The columns of the oomwatch's rows (agent/oomwatch.c), by header name. */
enum {
	MO_MONO,
	MO_OOM,
	MO_KILL,
	MO_CUR,
	MO_MAX,
	MO_ANON,
	MO_FILE,
	MO_DIRTY,
	MO_WB,
	MO_NR
};
static const char *const mo_names[MO_NR] = {
	"mono_s", "oom",  "oom_kill",	"current",	  "max",
	"anon",	  "file", "file_dirty", "file_writeback",
};

struct mo_row {
	double t;
	long long v[MO_NR]; /* MO_MAX: -1 for "max" */
};

/* Which column each name is in: -1 if the header lacks one. */
static int mo_header(const char *l, size_t n, int col[MO_NR])
{
	size_t i = 0;

	for (int k = 0; k < MO_NR; k++)
		col[k] = -1;
	for (const char *p = l, *e = l + n; p <= e; i++) {
		const char *tab = memchr(p, '\t', e - p);
		size_t w = (tab ? tab : e) - p;

		for (int k = 0; k < MO_NR; k++)
			if (strlen(mo_names[k]) == w &&
			    !memcmp(p, mo_names[k], w))
				col[k] = (int)i;
		p += w + 1;
	}
	for (int k = 0; k < MO_NR; k++)
		if (col[k] < 0)
			return -1;
	return 0;
}

/* A row's fields into r; -1 (recorded in ns) if one is not a number. */
static int mo_parse(const char *l, size_t n, const int col[MO_NR],
		    struct mo_row *r, struct numsrc *ns)
{
	const char *f[32], *e = l + n;
	size_t nf = 0;

	for (const char *p = l; p <= e && nf < 32; nf++) {
		const char *tab = memchr(p, '\t', e - p);

		f[nf] = p;
		p = tab ? tab + 1 : e + 1;
	}
	for (int k = 0; k < MO_NR; k++) {
		if ((size_t)col[k] >= nf)
			return -1;
		if (k == MO_MONO) {
			if (num_double(ns, f[col[k]], 0, 1e12, &r->t, NULL))
				return -1;
		} else if (k == MO_MAX && starts_with(f[col[k]], "max")) {
			r->v[k] = -1;
		} else if (num_ll(ns, f[col[k]], 10, 0, OOM_NUM_MAX, &r->v[k],
				  NULL)) {
			return -1;
		}
	}
	return 0;
}

static json_object *mo_event(const struct mo_row *r, long long kills,
			     double start)
{
	json_object *e = json_object_new_object();
	long long dw = r->v[MO_DIRTY] + r->v[MO_WB];

	json_put_num(e, "t_s", start >= 0 ? r->t - start : r->t);
	json_put_int(e, "kills", kills);
	json_put_int(e, "anon_kb", r->v[MO_ANON] / 1024);
	json_put_int(e, "file_kb", r->v[MO_FILE] / 1024);
	json_put_int(e, "dirty_kb", r->v[MO_DIRTY] / 1024);
	json_put_int(e, "writeback_kb", r->v[MO_WB] / 1024);
	if (r->v[MO_MAX] > 0) {
		json_put_int(e, "limit_kb", r->v[MO_MAX] / 1024);
		json_put_num(e, "dirty_share", (double)dw / r->v[MO_MAX]);
	}
	json_put(e, "premature",
		 json_object_new_boolean(oom_premature(dw, r->v[MO_MAX])));
	return e;
}

bool oom_premature(long long dirty_wb, long long limit)
{
	return limit > 0 && dirty_wb * OOM_PREMATURE_DEN > limit;
}

/* Sums over the kills: count, premature ones, dirty+writeback at them. */
struct mo_sum {
	long long kills, premature, rows;
	double dw_kb, dw_max_kb, share;
};

static void mo_summary(json_object *o, const struct mo_sum *s,
		       const struct mo_row *first, const struct mo_row *last)
{
	json_put_int(o, "rows", s->rows);
	json_put_int(o, "ooms", last->v[MO_OOM] - first->v[MO_OOM]);
	json_put_int(o, "kills", s->kills);
	json_put_int(o, "premature_kills", s->premature);
	json_put_num(o, "premature_share", 1.0 / OOM_PREMATURE_DEN);
	if (!s->kills)
		return;
	json_put_num(o, "kill_dirty_wb_kb_mean", s->dw_kb / s->kills);
	json_put_int(o, "kill_dirty_wb_kb_max", (long long)s->dw_max_kb);
	json_put_num(o, "kill_dirty_share_mean", s->share / s->kills);
}

json_object *memcg_oom_facts(const char *text, size_t len, double start,
			     struct numsrc *ns)
{
	json_object *o = json_object_new_object(),
		    *evs = json_object_new_array();
	const char *p = text, *end = text + len;
	struct mo_row first = { 0 }, prev = { 0 }, r;
	struct mo_sum s = { 0 };
	int col[MO_NR];
	bool header = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *l = p;
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		long long dw, k;

		p = nl ? nl + 1 : end;
		if (!header) {
			if (mo_header(l, n, col))
				goto bad;
			header = true;
			continue;
		}
		if (!nl || mo_parse(l, n, col, &r, ns))
			continue; /* a row cut by the kill of the watcher */
		if (!s.rows++)
			first = prev = r;
		k = r.v[MO_KILL] - prev.v[MO_KILL];
		prev = r;
		if (k <= 0)
			continue;
		dw = (r.v[MO_DIRTY] + r.v[MO_WB]) / 1024;
		s.kills += k;
		s.premature += oom_premature(dw * 1024, r.v[MO_MAX]) ? k : 0;
		s.dw_kb += (double)dw * k;
		s.dw_max_kb = dw > s.dw_max_kb ? dw : s.dw_max_kb;
		if (r.v[MO_MAX] > 0)
			s.share += (double)dw * 1024 / r.v[MO_MAX] * k;
		json_object_array_add(
			evs, mo_event(&r, k, start >= 0 ? start : first.t));
	}
	if (!s.rows)
		goto bad;
	mo_summary(o, &s, &first, &prev);
	json_put(o, "events", evs);
	return o;
bad:
	json_object_put(o);
	json_object_put(evs);
	return NULL;
}
