// SPDX-License-Identifier: GPL-2.0
/*
 * Summary of reclaim and writeback tracepoints from tracefs' `trace` text:
 * direct and memcg reclaim stalls (paired begin/end per pid), reclaim
 * writeback split by who wrote (kswapd, a direct reclaimer, other) and
 * file/anon, shrink_inactive_list's view of dirty pages, reclaim
 * throttling, balance_dirty_pages pauses, flusher pages per reason, OOM
 * victims, and how much of the trace was lost. Pure: bytes in, JSON out.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/trace.h"
#include "util/log.h"

const char *const trace_events[] = {
	"vmscan/mm_vmscan_direct_reclaim_begin",
	"vmscan/mm_vmscan_direct_reclaim_end",
	"vmscan/mm_vmscan_memcg_reclaim_begin",
	"vmscan/mm_vmscan_memcg_reclaim_end",
	"vmscan/mm_vmscan_write_folio",
	"vmscan/mm_vmscan_writepage", /* the name before 5.19 */
	"vmscan/mm_vmscan_kswapd_wake",
	"vmscan/mm_vmscan_kswapd_sleep",
	"vmscan/mm_vmscan_lru_shrink_inactive",
	"vmscan/mm_vmscan_throttled",
	"writeback/writeback_start",
	"writeback/writeback_written",
	"writeback/writeback_pages_written",
	"writeback/balance_dirty_pages",
	"oom/mark_victim",
	NULL
};

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
bool trace_parse_line(const char *line, size_t len, struct trace_line *out)
{
	const char *end = line + len, *p, *open = NULL, *close = NULL;
	const char *dash, *ps, *t, *te;

	if (!len || line[0] == '#')
		return false;
	memset(out, 0, sizeof(*out));
	for (p = line; p + 2 < end; p++) {
		const char *q;

		if (p[0] != ' ' || p[1] != '[')
			continue;
		q = memchr(p + 2, ']', end - p - 2);
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
		out->pid = atoi(ps);
		out->cpu = atoi(open + 1);
		break;
	}
	if (!close)
		return false;
	/* Then an optional flags field, the timestamp with ':', the event. */
	p = close + 1;
	for (int tok = 0; tok < 2; tok++) {
		char num[40], *e;
		size_t n;

		while (p < end && *p == ' ')
			p++;
		t = p;
		while (p < end && *p != ' ')
			p++;
		n = p - t;
		if (n < 2 || t[n - 1] != ':' || n >= sizeof(num))
			continue;
		memcpy(num, t, n - 1);
		num[n - 1] = '\0';
		out->ts = strtod(num, &e);
		if (*e)
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
	char num[32];
	size_t n = 0;
	const char *end = l->args + l->args_len;

	if (!p)
		return false;
	while (p < end && n < sizeof(num) - 1 &&
	       (isxdigit((unsigned char)*p) || *p == '-' || *p == 'x'))
		num[n++] = *p++;
	num[n] = '\0';
	if (!n)
		return false;
	*v = strtoll(num, NULL, 0);
	return true;
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
	snprintf(buf, len, "%.*s", (int)(e - p), p);
	return true;
}

/* Small growable tables. */
struct dvec {
	double *v;
	size_t n, alloc;
};

static void dvec_add(struct dvec *d, double x)
{
	if (d->n == d->alloc) {
		d->alloc = d->alloc ? 2 * d->alloc : 256;
		d->v = xrealloc(d->v, d->alloc * sizeof(*d->v));
	}
	d->v[d->n++] = x;
}

struct named {
	char name[64];
	long long a, b;
};

#define NTAB_MAX 256

struct ntab {
	struct named *v;
	size_t n, alloc;
};

static struct named *ntab_get(struct ntab *t, const char *name, size_t len)
{
	char key[64];

	snprintf(key, sizeof(key), "%.*s", (int)len, name);
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, key))
			return &t->v[i];
	/* Names come from the guest: past a sane number, lump them. */
	if (t->n >= NTAB_MAX && strcmp(key, "(other)"))
		return ntab_get(t, "(other)", 7);
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 32;
		t->v = xrealloc(t->v, t->alloc * sizeof(*t->v));
	}
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	snprintf(t->v[t->n].name, sizeof(t->v[t->n].name), "%s", key);
	return &t->v[t->n++];
}

/* Per-pid state: inside a reclaim window, last writeback_start. */
struct task {
	int pid;
	int kind; /* 0 none, 1 direct, 2 memcg */
	double begin;
	long long wb_pages; /* nr_pages at writeback_start, -1 none */
	char wb_reason[32];
	char wb_bdi[32];
};

/* Tasks by pid: an open-addressing index, since the guest picks the pids. */
struct tasks {
	struct task *v;
	size_t n, alloc;
	int *slot; /* index into v, -1 empty */
	size_t nslots; /* power of two */
};

static size_t pid_hash(int pid, size_t nslots)
{
	return ((unsigned int)pid * 2654435761u) & (nslots - 1);
}

static void tasks_rehash(struct tasks *t)
{
	free(t->slot);
	t->nslots = t->nslots ? 2 * t->nslots : 256;
	t->slot = xmalloc(t->nslots * sizeof(*t->slot));
	memset(t->slot, 0xff, t->nslots * sizeof(*t->slot));
	for (size_t i = 0; i < t->n; i++) {
		size_t h = pid_hash(t->v[i].pid, t->nslots);

		while (t->slot[h] >= 0)
			h = (h + 1) & (t->nslots - 1);
		t->slot[h] = i;
	}
}

static struct task *task_get(struct tasks *t, int pid)
{
	size_t h;

	if (2 * (t->n + 1) > t->nslots)
		tasks_rehash(t);
	for (h = pid_hash(pid, t->nslots); t->slot[h] >= 0;
	     h = (h + 1) & (t->nslots - 1))
		if (t->v[t->slot[h]].pid == pid)
			return &t->v[t->slot[h]];
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 64;
		t->v = xrealloc(t->v, t->alloc * sizeof(*t->v));
	}
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	t->v[t->n].pid = pid;
	t->v[t->n].wb_pages = -1;
	t->slot[h] = t->n;
	return &t->v[t->n++];
}

enum { WHO_DIRECT, WHO_KSWAPD, WHO_OTHER, NR_WHO };
enum { TY_FILE, TY_ANON, NR_TY };
static const char *const who_name[] = { "direct", "kswapd", "other" };
static const char *const ty_name[] = { "file", "anon" };
enum {
	SH_SCANNED,
	SH_RECLAIMED,
	SH_DIRTY,
	SH_WRITEBACK,
	SH_CONGESTED,
	SH_IMMEDIATE,
	NR_SH
};
static const char *const sh_key[] = { "nr_scanned",   "nr_reclaimed",
				      "nr_dirty",     "nr_writeback",
				      "nr_congested", "nr_immediate" };

struct summary {
	struct ntab events;
	struct tasks tasks;
	struct dvec stall[3]; /* by kind */
	long long reclaimed[3], unfinished[3];
	long long writes[NR_WHO][NR_TY];
	long long shrink[NR_WHO][NR_TY][NR_SH];
	long long kswapd_wake, kswapd_sleep, oom_victims, lost_lines;
	struct ntab throttle; /* a = count, b = delayed usec */
	struct ntab wb; /* a = works, b = pages */
	struct ntab wb_bdi; /* by "MAJ:MIN": a = works, b = pages */
	long long wb_pages_written;
	long long bdp, bdp_paused, bdp_pause_ms, bdp_pause_max, bdp_dirty_max,
		bdp_limit_max;
	double first, last;
	long long lines;
};

static bool ev(const struct trace_line *l, const char *name)
{
	return l->event_len == strlen(name) &&
	       !memcmp(l->event, name, l->event_len);
}

static int who(struct summary *s, const struct trace_line *l)
{
	if (!strncmp(l->comm, "kswapd", 6))
		return WHO_KSWAPD;
	return task_get(&s->tasks, l->pid)->kind ? WHO_DIRECT : WHO_OTHER;
}

static int file_or_anon(const struct trace_line *l)
{
	char flags[128];

	if (trace_arg_str(l, "flags", flags, sizeof(flags)) &&
	    strstr(flags, "RECLAIM_WB_ANON"))
		return TY_ANON;
	return TY_FILE;
}

static void reclaim_begin(struct summary *s, const struct trace_line *l,
			  int kind)
{
	struct task *t = task_get(&s->tasks, l->pid);

	if (t->kind)
		s->unfinished[t->kind]++;
	t->kind = kind;
	t->begin = l->ts;
}

static void reclaim_end(struct summary *s, const struct trace_line *l, int kind)
{
	struct task *t = task_get(&s->tasks, l->pid);
	long long n;

	if (t->kind == kind) {
		dvec_add(&s->stall[kind], (l->ts - t->begin) * 1e6);
		if (trace_arg_num(l, "nr_reclaimed", &n))
			s->reclaimed[kind] += n;
	}
	t->kind = 0;
}

/* "bdi 254:32: ..." -> "254:32" */
static void bdi_of(const struct trace_line *l, char *buf, size_t len)
{
	const char *p = l->args, *e;
	const char *end = l->args + l->args_len;

	snprintf(buf, len, "?");
	if (l->args_len < 5 || memcmp(p, "bdi ", 4))
		return;
	p += 4;
	for (e = p; e < end && *e != ' '; e++)
		;
	if (e > p && e[-1] == ':')
		e--;
	snprintf(buf, len, "%.*s", (int)(e - p), p);
}

static void one(struct summary *s, const struct trace_line *l)
{
	long long n;
	char buf[64];

	ntab_get(&s->events, l->event, l->event_len)->a++;
	if (!s->lines++)
		s->first = l->ts;
	s->last = l->ts;
	if (ev(l, "mm_vmscan_direct_reclaim_begin")) {
		reclaim_begin(s, l, 1);
	} else if (ev(l, "mm_vmscan_direct_reclaim_end")) {
		reclaim_end(s, l, 1);
	} else if (ev(l, "mm_vmscan_memcg_reclaim_begin")) {
		reclaim_begin(s, l, 2);
	} else if (ev(l, "mm_vmscan_memcg_reclaim_end")) {
		reclaim_end(s, l, 2);
	} else if (ev(l, "mm_vmscan_write_folio") ||
		   ev(l, "mm_vmscan_writepage")) {
		s->writes[who(s, l)][file_or_anon(l)]++;
	} else if (ev(l, "mm_vmscan_lru_shrink_inactive")) {
		int w = who(s, l), ty = file_or_anon(l);

		for (int i = 0; i < NR_SH; i++)
			if (trace_arg_num(l, sh_key[i], &n))
				s->shrink[w][ty][i] += n;
	} else if (ev(l, "mm_vmscan_kswapd_wake")) {
		s->kswapd_wake++;
	} else if (ev(l, "mm_vmscan_kswapd_sleep")) {
		s->kswapd_sleep++;
	} else if (ev(l, "mm_vmscan_throttled")) {
		struct named *t;

		if (!trace_arg_str(l, "reason", buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "?");
		t = ntab_get(&s->throttle, buf, strlen(buf));
		t->a++;
		/* 6.1 prints "usect_delayed" (sic). */
		if (trace_arg_num(l, "usec_delayed", &n) ||
		    trace_arg_num(l, "usect_delayed", &n))
			t->b += n;
	} else if (ev(l, "writeback_start")) {
		struct task *t = task_get(&s->tasks, l->pid);

		if (!trace_arg_str(l, "reason", t->wb_reason,
				   sizeof(t->wb_reason)))
			snprintf(t->wb_reason, sizeof(t->wb_reason), "?");
		ntab_get(&s->wb, t->wb_reason, strlen(t->wb_reason))->a++;
		bdi_of(l, t->wb_bdi, sizeof(t->wb_bdi));
		ntab_get(&s->wb_bdi, t->wb_bdi, strlen(t->wb_bdi))->a++;
		if (!trace_arg_num(l, "nr_pages", &t->wb_pages))
			t->wb_pages = -1;
	} else if (ev(l, "writeback_written")) {
		/* nr_pages counts down as the work writes: start - written. */
		struct task *t = task_get(&s->tasks, l->pid);

		if (t->wb_pages >= 0 && trace_arg_num(l, "nr_pages", &n) &&
		    n <= t->wb_pages &&
		    trace_arg_str(l, "reason", buf, sizeof(buf)) &&
		    !strcmp(buf, t->wb_reason)) {
			ntab_get(&s->wb, buf, strlen(buf))->b +=
				t->wb_pages - n;
			ntab_get(&s->wb_bdi, t->wb_bdi, strlen(t->wb_bdi))->b +=
				t->wb_pages - n;
		}
		t->wb_pages = -1;
	} else if (ev(l, "writeback_pages_written")) {
		/* "writeback_pages_written: 123" */
		s->wb_pages_written += strtoll(l->args, NULL, 10);
	} else if (ev(l, "balance_dirty_pages")) {
		s->bdp++;
		if (trace_arg_num(l, "pause", &n) && n > 0) {
			s->bdp_paused++;
			s->bdp_pause_ms += n;
			if (n > s->bdp_pause_max)
				s->bdp_pause_max = n;
		}
		if (trace_arg_num(l, "dirty", &n) && n > s->bdp_dirty_max)
			s->bdp_dirty_max = n;
		if (trace_arg_num(l, "limit", &n) && n > s->bdp_limit_max)
			s->bdp_limit_max = n;
	} else if (ev(l, "mark_victim")) {
		s->oom_victims++;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted vector. */
static double pct(const struct dvec *d, double q)
{
	size_t r = (size_t)ceil(q * d->n);

	return d->n ? d->v[r ? r - 1 : 0] : 0;
}

static json_object *jd(double x)
{
	return json_object_new_double(round(x * 1000) / 1000);
}

#define ADD(o, k, v) json_object_object_add(o, k, v)
#define I64(x) json_object_new_int64(x)

static json_object *stall_json(struct dvec *d, long long reclaimed,
			       long long unfinished)
{
	json_object *o = json_object_new_object(),
		    *lat = json_object_new_object();
	double sum = 0;

	qsort(d->v, d->n, sizeof(*d->v), cmp_double);
	for (size_t i = 0; i < d->n; i++)
		sum += d->v[i];
	ADD(o, "count", I64(d->n));
	ADD(o, "unfinished", I64(unfinished));
	ADD(o, "nr_reclaimed", I64(reclaimed));
	ADD(lat, "mean", jd(d->n ? sum / d->n : 0));
	ADD(lat, "p50", jd(pct(d, 0.50)));
	ADD(lat, "p95", jd(pct(d, 0.95)));
	ADD(lat, "max", jd(d->n ? d->v[d->n - 1] : 0));
	ADD(lat, "total", jd(sum));
	ADD(o, "stall_us", lat);
	return o;
}

/* trace_stats.txt: "# section" headers, per-CPU "PATH:key: value" lines. */
static void parse_stats(const char *text, size_t len, json_object *o,
			long long *lost)
{
	const char *p = text, *end = text + len;
	char section[64] = "";
	long long overrun = 0, dropped = 0, commit_overrun = 0, entries = 0;
	int cpus = 0;
	json_object *enabled = json_object_new_array();
	json_object *missing = json_object_new_array();

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[256];
		const char *v;

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p = nl ? nl + 1 : end;
		if (line[0] == '#' && line[1] == ' ') {
			if (strncmp(line + 2, "(exit", 5))
				snprintf(section, sizeof(section), "%.63s",
					 line + 2);
			continue;
		}
		if (!line[0])
			continue;
		if (!strcmp(section, "set_event")) {
			json_object_array_add(enabled,
					      json_object_new_string(line));
		} else if (!strcmp(section, "buffer_size_kb")) {
			ADD(o, "buffer_size_kb", I64(strtoll(line, NULL, 10)));
		} else if ((v = strstr(line, "/stats:"))) {
			v += 7;
			if (!strncmp(v, "entries:", 8))
				entries += strtoll(v + 8, NULL, 10), cpus++;
			else if (!strncmp(v, "overrun:", 8))
				overrun += strtoll(v + 8, NULL, 10);
			else if (!strncmp(v, "commit overrun:", 15))
				commit_overrun += strtoll(v + 15, NULL, 10);
			else if (!strncmp(v, "dropped events:", 15))
				dropped += strtoll(v + 15, NULL, 10);
		}
	}
	if (cpus) {
		ADD(o, "cpus", I64(cpus));
		ADD(o, "overrun", I64(overrun));
		ADD(o, "commit_overrun", I64(commit_overrun));
		ADD(o, "dropped_events", I64(dropped));
		*lost += overrun + commit_overrun + dropped;
	}
	/* Which requested events did the kernel not have? */
	for (size_t i = 0; trace_events[i]; i++) {
		char want[96], *slash;
		bool found = false;

		snprintf(want, sizeof(want), "%s", trace_events[i]);
		slash = strchr(want, '/');
		*slash = ':';
		for (size_t k = 0; k < json_object_array_length(enabled); k++)
			found |= !strcmp(
				json_object_get_string(
					json_object_array_get_idx(enabled, k)),
				want);
		/* write_folio and writepage are one event under two names. */
		if (!found && strstr(want, "mm_vmscan_write")) {
			const char *other =
				strstr(want, "folio") ?
					"vmscan:mm_vmscan_writepage" :
					"vmscan:mm_vmscan_write_folio";

			for (size_t k = 0;
			     k < json_object_array_length(enabled); k++)
				found |= !strcmp(
					json_object_get_string(
						json_object_array_get_idx(
							enabled, k)),
					other);
		}
		if (!found)
			json_object_array_add(missing,
					      json_object_new_string(want));
	}
	ADD(o, "enabled_events", enabled);
	if (json_object_array_length(enabled))
		ADD(o, "missing_events", missing);
	else
		json_object_put(missing);
}

/* {name: {ka: a, kb: b}} for every entry of a named table. */
static json_object *ntab_json(const struct ntab *t, const char *ka,
			      const char *kb)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < t->n; i++) {
		json_object *r = json_object_new_object();

		ADD(r, ka, I64(t->v[i].a));
		ADD(r, kb, I64(t->v[i].b));
		ADD(o, t->v[i].name, r);
	}
	return o;
}

json_object *trace_summary(const char *text, size_t len, const char *stats,
			   size_t stats_len)
{
	struct summary s = { 0 };
	json_object *o = json_object_new_object(), *j, *k;
	const char *p = text, *end = text + len;
	long long in_buf = -1, written = -1, lost = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct trace_line l;
		const char *h;

		if (n > 40 && p[0] == '#' &&
		    (h = memmem(p, n,
				"entries-in-buffer/entries-written: ", 35)))
			sscanf(h + 35, "%lld/%lld", &in_buf, &written);
		else if (memmem(p, n, " EVENTS]", 8) &&
			 memmem(p, n, "[LOST ", 6))
			s.lost_lines +=
				strtoll((char *)memmem(p, n, "[LOST ", 6) + 6,
					NULL, 10);
		else if (trace_parse_line(p, n, &l))
			one(&s, &l);
		p = nl ? nl + 1 : end;
	}

	ADD(o, "lines", I64(s.lines));
	ADD(o, "duration_s", jd(s.lines ? s.last - s.first : 0));
	if (in_buf >= 0) {
		ADD(o, "entries_in_buffer", I64(in_buf));
		ADD(o, "entries_written", I64(written));
	}
	if (stats)
		parse_stats(stats, stats_len, o, &lost);
	if (in_buf >= 0 && written > in_buf && !stats)
		lost += written - in_buf;
	lost += s.lost_lines;
	ADD(o, "lost_events", I64(lost));
	ADD(o, "complete", json_object_new_boolean(!lost));

	j = json_object_new_object();
	for (size_t i = 0; i < s.events.n; i++)
		ADD(j, s.events.v[i].name, I64(s.events.v[i].a));
	ADD(o, "events", j);

	ADD(o, "direct_reclaim",
	    stall_json(&s.stall[1], s.reclaimed[1], s.unfinished[1]));
	ADD(o, "memcg_reclaim",
	    stall_json(&s.stall[2], s.reclaimed[2], s.unfinished[2]));
	/* A window still open at the end of the trace. */
	for (size_t i = 0; i < s.tasks.n; i++)
		if (s.tasks.v[i].kind) {
			json_object *r = NULL, *u = NULL;

			json_object_object_get_ex(o,
						  s.tasks.v[i].kind == 1 ?
							  "direct_reclaim" :
							  "memcg_reclaim",
						  &r);
			json_object_object_get_ex(r, "unfinished", &u);
			json_object_set_int64(u, json_object_get_int64(u) + 1);
		}

	j = json_object_new_object();
	for (int w = 0; w < NR_WHO; w++) {
		k = json_object_new_object();
		for (int t = 0; t < NR_TY; t++)
			ADD(k, ty_name[t], I64(s.writes[w][t]));
		ADD(j, who_name[w], k);
	}
	ADD(o, "vmscan_write", j);

	j = json_object_new_object();
	for (int w = 0; w < NR_WHO; w++) {
		k = json_object_new_object();
		for (int t = 0; t < NR_TY; t++) {
			json_object *f = json_object_new_object();

			for (int i = 0; i < NR_SH; i++)
				ADD(f, sh_key[i], I64(s.shrink[w][t][i]));
			ADD(k, ty_name[t], f);
		}
		ADD(j, who_name[w], k);
	}
	ADD(o, "shrink_inactive", j);

	ADD(o, "kswapd_wake", I64(s.kswapd_wake));
	ADD(o, "kswapd_sleep", I64(s.kswapd_sleep));
	ADD(o, "oom_victims", I64(s.oom_victims));

	ADD(o, "throttled", ntab_json(&s.throttle, "count", "delayed_us"));

	j = json_object_new_object();
	ADD(j, "by_reason", ntab_json(&s.wb, "works", "pages"));
	ADD(j, "by_bdi", ntab_json(&s.wb_bdi, "works", "pages"));
	ADD(j, "pages_written", I64(s.wb_pages_written));
	ADD(o, "writeback", j);

	j = json_object_new_object();
	ADD(j, "count", I64(s.bdp));
	ADD(j, "paused", I64(s.bdp_paused));
	ADD(j, "pause_ms_total", I64(s.bdp_pause_ms));
	ADD(j, "pause_ms_max", I64(s.bdp_pause_max));
	ADD(j, "dirty_max", I64(s.bdp_dirty_max));
	ADD(j, "limit_max", I64(s.bdp_limit_max));
	ADD(o, "balance_dirty_pages", j);

	for (int i = 0; i < 3; i++)
		free(s.stall[i].v);
	free(s.events.v);
	free(s.tasks.v);
	free(s.tasks.slot);
	free(s.throttle.v);
	free(s.wb.v);
	free(s.wb_bdi.v);
	return o;
}
