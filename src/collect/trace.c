// SPDX-License-Identifier: GPL-2.0
/*
 * Summary of reclaim and writeback tracepoints from tracefs' `trace` text:
 * direct and memcg reclaim stalls (paired begin/end per pid), reclaim
 * writeback split by who wrote (kswapd, a direct reclaimer, other) and
 * file/anon, shrink_inactive_list's view of dirty pages, reclaim
 * throttling, balance_dirty_pages pauses, flusher pages per reason, OOM
 * victims, and how much of the trace was lost. Pure: bytes in, JSON out.
 * trace_stats.txt is read in trace-stats.c; the events, filters and hist
 * triggers the plan enables are trace-plan.c's (a unit with trace-int.h).
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/io.h"
#include "collect/seek.h"
#include "collect/trace-int.h"
#include "collect/trace.h"
#include "collect/traceline.h"
#include "collect/windows.h"
#include "util/dvec.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"
#include "util/str.h"

/* Who reclaims, for the vmscan tables: io's classes without the flusher. */
enum { WHO_DIRECT, WHO_MEMCG, WHO_KSWAPD, WHO_OTHER, NR_WHO };
enum { TY_FILE, TY_ANON, NR_TY };
static const char *const who_name[] = { "direct", "memcg", "kswapd", "other" };
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

/* Writeback control as each writer class used it (the cover letter's ask). */
struct wbctx {
	long long works, works_sync_all, works_kupdate, works_background;
	long long works_bounded, works_asked, works_written;
	long long inodes, inodes_unbounded, inode_to_write, inode_wrote;
	long long ext4_calls, ext4_sync_all, ext4_kupdate, ext4_unbounded;
	long long ext4_to_write, ext4_results, ext4_written;
	long long writepage_calls;
};

/* nr_to_write of WB_SYNC_ALL and background works: LONG_MAX, no ask. */
#define UNBOUNDED (1LL << 40)

struct summary {
	struct ntab events;
	struct tasks tasks;
	struct windows win;
	struct io_state *io;
	struct wbctx ctx[NR_IO];
	long long writes[NR_WHO][NR_TY];
	long long shrink[NR_WHO][NR_TY][NR_SH];
	long long kswapd_wake, kswapd_sleep, oom_victims, lost_lines;
	struct ntab throttle; /* a = count, b = delayed usec */
	struct ntab wb; /* a = works, b = pages */
	struct ntab wb_bdi; /* by "MAJ:MIN": a = works, b = pages */
	/*
	 * By comm: which task's reclaim wrote or met dirty folios (fio and a
	 * hog in one memcg are both memcg reclaim; the class cannot tell).
	 */
	struct ntab wr_comm; /* a = file writepages, b = anon ones */
	struct ntab dirty_comm; /* file LRU: a = nr_dirty, b = nr_scanned */
	long long wb_pages_written;
	long long bdp, bdp_paused, bdp_pause_ms, bdp_pause_max, bdp_dirty_max,
		bdp_limit_max;
	double first, last, cut;
	long long lines, cut_lines;
	/* First pass: each CPU's last timestamp; kswapd's pids. */
	double cpu_last[MAX_CPUS];
	bool cpu_seen[MAX_CPUS], cpu_lost[MAX_CPUS];
	struct numsrc *ns; /* bad numbers of the trace and trace_stats.txt */
};

static bool ev(const struct trace_line *l, const char *name)
{
	return l->event_len == strlen(name) &&
	       !memcmp(l->event, name, l->event_len);
}

static enum io_class cls(struct summary *s, const struct trace_line *l)
{
	return io_class_of(windows_at(&s->win, l->pid, l->ts));
}

static int who(struct summary *s, const struct trace_line *l)
{
	switch (cls(s, l)) {
	case IO_DIRECT:
		return WHO_DIRECT;
	case IO_MEMCG:
		return WHO_MEMCG;
	case IO_KSWAPD:
		return WHO_KSWAPD;
	default:
		return WHO_OTHER;
	}
}

static int file_or_anon(const struct trace_line *l)
{
	char flags[128];

	if (trace_arg_str(l, "flags", flags, sizeof(flags)) &&
	    strstr(flags, "RECLAIM_WB_ANON"))
		return TY_ANON;
	return TY_FILE;
}

/* "bdi 254:32: ..." -> "254:32" */
static void bdi_of(const struct trace_line *l, char *buf, size_t len)
{
	const char *p, *e;
	const char *end = l->args + l->args_len;
	size_t n;

	snprintf(buf, len, "?");
	if (!skip_prefix_mem(l->args, l->args_len, "bdi ", &p, &n) || !n)
		return;
	for (e = p; e < end && *e != ' ' && e - p < 32; e++)
		;
	if (e > p && e[-1] == ':')
		e--;
	snprintf(buf, len, "%.*s", (int)(e - p), p);
}

/*
 * ext4's events say "key value", not "key=value". Any long long, as
 * trace_arg_num() takes: a WB_SYNC_ALL ext4_writepages (an fsync) asks
 * for nr_to_write LONG_MAX, the unbounded sentinel wb_context() counts;
 * sums of them saturate (trace_add).
 */
static bool spaced_num(const struct trace_line *l, const char *key,
		       long long *v)
{
	const char *p = l->args, *end = l->args + l->args_len;
	size_t k = strlen(key);

	for (; (p = memmem(p, end - p, key, k)); p += k)
		if ((p == l->args || p[-1] == ' ') && p + k < end &&
		    p[k] == ' ')
			return !num_ll(l->ns, p + k + 1, 10, LLONG_MIN,
				       LLONG_MAX, v, NULL);
	return false;
}

static void wb_start(struct summary *s, const struct trace_line *l)
{
	struct task *t = trace_task_get(&s->tasks, l->pid);
	struct wbctx *c = &s->ctx[IO_FLUSHER];
	long long n;

	if (!trace_arg_str(l, "reason", t->wb_reason, sizeof(t->wb_reason)))
		snprintf(t->wb_reason, sizeof(t->wb_reason), "?");
	trace_ntab_get(&s->wb, t->wb_reason, strlen(t->wb_reason))->a++;
	bdi_of(l, t->wb_bdi, sizeof(t->wb_bdi));
	trace_ntab_get(&s->wb_bdi, t->wb_bdi, strlen(t->wb_bdi))->a++;
	if (!trace_arg_num(l, "nr_pages", &t->wb_pages))
		t->wb_pages = -1;
	/* Works run in the flusher by definition of its window. */
	c->works++;
	if (trace_arg_num(l, "sync_mode", &n) && n == 1)
		c->works_sync_all++;
	if (trace_arg_num(l, "kupdate", &n) && n)
		c->works_kupdate++;
	if (trace_arg_num(l, "background", &n) && n)
		c->works_background++;
}

static void wb_written(struct summary *s, const struct trace_line *l)
{
	/* nr_pages counts down as the work writes: start - written. */
	struct task *t = trace_task_get(&s->tasks, l->pid);
	struct wbctx *c = &s->ctx[IO_FLUSHER];
	char buf[64];
	long long n;

	if (t->wb_pages >= 0 && trace_arg_num(l, "nr_pages", &n) && n >= 0 &&
	    n <= t->wb_pages && trace_arg_str(l, "reason", buf, sizeof(buf)) &&
	    !strcmp(buf, t->wb_reason)) {
		trace_add(&trace_ntab_get(&s->wb, buf, strlen(buf))->b,
			  t->wb_pages - n);
		trace_add(&trace_ntab_get(&s->wb_bdi, t->wb_bdi,
					  strlen(t->wb_bdi))
				   ->b,
			  t->wb_pages - n);
		if (t->wb_pages < UNBOUNDED) {
			c->works_bounded++;
			trace_add(&c->works_asked, t->wb_pages);
			trace_add(&c->works_written, t->wb_pages - n);
		}
	}
	t->wb_pages = -1;
}

static void wb_context(struct summary *s, const struct trace_line *l)
{
	struct wbctx *c = &s->ctx[cls(s, l)];
	long long n, w;

	if (ev(l, "writeback_single_inode")) {
		c->inodes++;
		if (trace_arg_num(l, "to_write", &n) &&
		    trace_arg_num(l, "wrote", &w)) {
			if (n >= UNBOUNDED) {
				c->inodes_unbounded++;
			} else {
				trace_add(&c->inode_to_write, n);
				trace_add(&c->inode_wrote, w);
			}
		}
	} else if (ev(l, "ext4_writepages")) {
		c->ext4_calls++;
		if (spaced_num(l, "sync_mode", &n) && n == 1)
			c->ext4_sync_all++;
		if (spaced_num(l, "for_kupdate", &n) && n)
			c->ext4_kupdate++;
		if (spaced_num(l, "nr_to_write", &n)) {
			if (n >= UNBOUNDED)
				c->ext4_unbounded++;
			else
				trace_add(&c->ext4_to_write, n);
		}
	} else if (ev(l, "ext4_writepages_result")) {
		c->ext4_results++;
		if (spaced_num(l, "pages_written", &n))
			trace_add(&c->ext4_written, n);
	}
}

static void block_event(struct summary *s, const struct trace_line *l)
{
	if (ev(l, "block_bio_queue"))
		io_bio_queue(s->io, l, cls(s, l));
	else if (ev(l, "block_bio_remap"))
		io_bio_remap(s->io, l);
	else if (ev(l, "block_rq_issue"))
		io_rq_issue(s->io, l);
	else if (ev(l, "block_rq_complete"))
		io_rq_complete(s->io, l);
}

static void one(struct summary *s, const struct trace_line *l)
{
	long long n = 0;
	char buf[64];

	trace_ntab_get(&s->events, l->event, l->event_len)->a++;
	if (!s->lines++)
		s->first = l->ts;
	s->last = l->ts;
	windows_tick(&s->win, l->ts);
	trace_arg_num(l, "nr_reclaimed", &n);
	/* Windows first: a writeback_start opens the flusher's window. */
	windows_event(&s->win, l->pid, l->ts, l->event, l->event_len, n);
	if (l->event_len > strlen("block_") &&
	    starts_with(l->event, "block_")) {
		block_event(s, l);
	} else if (ev(l, "mm_filemap_add_to_page_cache")) {
		seek_folio_cached(io_seek(s->io), l);
	} else if (ev(l, "mm_vmscan_write_folio") ||
		   ev(l, "mm_vmscan_writepage")) {
		struct named *c =
			trace_ntab_get(&s->wr_comm, l->comm, strlen(l->comm));
		int ty = file_or_anon(l);

		seek_folio_written(io_seek(s->io), l, cls(s, l));
		s->writes[who(s, l)][ty]++;
		s->ctx[cls(s, l)].writepage_calls++;
		trace_add(ty == TY_FILE ? &c->a : &c->b, 1);
	} else if (ev(l, "mm_vmscan_lru_shrink_inactive")) {
		int w = who(s, l), ty = file_or_anon(l);
		struct named *c =
			ty == TY_FILE ? trace_ntab_get(&s->dirty_comm, l->comm,
						       strlen(l->comm)) :
					NULL;

		for (int i = 0; i < NR_SH; i++) {
			if (!trace_arg_num(l, sh_key[i], &n))
				continue;
			trace_add(&s->shrink[w][ty][i], n);
			if (c && i == SH_DIRTY)
				trace_add(&c->a, n);
			else if (c && i == SH_SCANNED)
				trace_add(&c->b, n);
		}
	} else if (ev(l, "mm_vmscan_kswapd_wake")) {
		s->kswapd_wake++;
	} else if (ev(l, "mm_vmscan_kswapd_sleep")) {
		s->kswapd_sleep++;
	} else if (ev(l, "mm_vmscan_throttled")) {
		struct named *t;

		if (!trace_arg_str(l, "reason", buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "?");
		t = trace_ntab_get(&s->throttle, buf, strlen(buf));
		t->a++;
		/* 6.1 prints "usect_delayed" (sic). */
		if (trace_arg_num(l, "usec_delayed", &n) ||
		    trace_arg_num(l, "usect_delayed", &n))
			trace_add(&t->b, n);
	} else if (ev(l, "writeback_start")) {
		wb_start(s, l);
	} else if (ev(l, "writeback_written")) {
		wb_written(s, l);
	} else if (ev(l, "writeback_pages_written")) {
		/* "writeback_pages_written: 123" */
		if (!num_ll(s->ns, l->args, 10, 0, TRACE_NUM_MAX, &n, NULL))
			trace_add(&s->wb_pages_written, n);
	} else if (ev(l, "balance_dirty_pages")) {
		s->bdp++;
		if (trace_arg_num(l, "pause", &n) && n > 0) {
			s->bdp_paused++;
			trace_add(&s->bdp_pause_ms, n);
			if (n > s->bdp_pause_max)
				s->bdp_pause_max = n;
		}
		if (trace_arg_num(l, "dirty", &n) && n > s->bdp_dirty_max)
			s->bdp_dirty_max = n;
		if (trace_arg_num(l, "limit", &n) && n > s->bdp_limit_max)
			s->bdp_limit_max = n;
	} else if (ev(l, "mark_victim")) {
		s->oom_victims++;
	} else {
		wb_context(s, l);
	}
}

/* Reclaim stalls of one kind from the windows: complete windows only. */
static json_object *stall_json(const struct windows *w, enum wkind kind)
{
	json_object *o = json_object_new_object(),
		    *lat = json_object_new_object();
	struct dvec d = DVEC_INIT;
	long long reclaimed = 0, unfinished = 0;
	double sum;

	for (size_t i = 0; i < w->n; i++) {
		const struct pid_windows *p = &w->p[i];

		for (size_t k = 0; k < p->n[kind]; k++) {
			const struct window *win = &p->v[kind][k];

			if (win->unfinished) {
				unfinished++;
				continue;
			}
			if (win->open_at_start)
				continue; /* its begin is not in the trace */
			dvec_push(&d, (win->end - win->begin) * 1e6);
			reclaimed += win->nr_reclaimed;
		}
	}
	dvec_sort(&d);
	sum = dvec_sum(&d);
	json_put_int(o, "count", d.n);
	json_put_int(o, "unfinished", unfinished);
	json_put_int(o, "nr_reclaimed", reclaimed);
	json_put_num(lat, "mean", d.n ? sum / d.n : 0);
	/* No stall waited nothing: 0, not null (direct-stall-p95 compares it). */
	json_put_num(lat, "p50", d.n ? dvec_nearest_rank(&d, 0.50) : 0);
	json_put_num(lat, "p95", d.n ? dvec_nearest_rank(&d, 0.95) : 0);
	json_put_num(lat, "max", d.n ? d.v[d.n - 1] : 0);
	json_put_num(lat, "total", sum);
	json_put(o, "stall_us", lat);
	dvec_clear(&d);
	return o;
}

/* Calls fn for each parsable line; header facts go to the summary. */
#define ENTRIES "entries-in-buffer/entries-written: "

/* "# entries-in-buffer/entries-written: 11255/11255   #P:2" */
static void entries_header(struct numsrc *ns, const char *h, long long *in_buf,
			   long long *written)
{
	long long a, b;

	if (!num_ll(ns, h, 10, 0, TRACE_NUM_MAX, &a, &h) && *h == '/' &&
	    !num_ll(ns, h + 1, 10, 0, TRACE_NUM_MAX, &b, NULL)) {
		*in_buf = a;
		*written = b;
	}
}

static void walk(struct summary *s, const char *text, size_t len, bool first,
		 long long *in_buf, long long *written)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct trace_line l;
		const char *h;
		long long lost;

		if (p[0] == '#' && n > 40 &&
		    (h = memmem(p, n < 200 ? n : 200, ENTRIES,
				strlen(ENTRIES)))) {
			if (first)
				entries_header(s->ns, h + strlen(ENTRIES),
					       in_buf, written);
		} else if (p[0] == '#') {
			/* a header line */
		} else if (n < 64 && memmem(p, n, " EVENTS]", 8) &&
			   (h = memmem(p, n, "[LOST ", 6))) {
			if (first && !num_ll(s->ns, h + 6, 10, 0, TRACE_NUM_MAX,
					     &lost, NULL))
				trace_add(&s->lost_lines, lost);
		} else if (trace_parse_line(p, n, &l, first ? s->ns : NULL)) {
			int cpu = l.cpu >= 0 && l.cpu < MAX_CPUS ? l.cpu : 0;

			if (first) {
				s->cpu_seen[cpu] = true;
				s->cpu_last[cpu] = l.ts;
				if (ev(&l, "mm_vmscan_kswapd_wake") ||
				    ev(&l, "mm_vmscan_kswapd_sleep"))
					windows_mark_kswapd(&s->win, l.pid);
			} else if (l.ts > s->cut) {
				s->cut_lines++;
			} else {
				l.ns = s->ns; /* the first pass parsed the header */
				one(s, &l);
			}
		}
		p = nl ? nl + 1 : end;
	}
}

/*
 * Each CPU's ring buffer fills on its own (overwrite off: a full buffer
 * drops what comes next), so past a lossy CPU's last event the trace no
 * longer sees every CPU, and an A and a B cell would cover different
 * parts of the workload. When events were lost, everything is analysed up
 * to the earliest last timestamp of the CPUs that lost some (of all CPUs
 * when the per-CPU stats are missing). A CPU that lost nothing saw
 * everything, so a complete trace is not cut.
 */
static double cut_at(const struct summary *s, long long lost)
{
	double cut = HUGE_VAL;
	bool known = false;

	if (!lost)
		return cut;
	for (int i = 0; i < MAX_CPUS; i++)
		known |= s->cpu_lost[i];
	for (int i = 0; i < MAX_CPUS; i++)
		if (s->cpu_seen[i] && (s->cpu_lost[i] || !known) &&
		    s->cpu_last[i] < cut)
			cut = s->cpu_last[i];
	return cut;
}

static json_object *ctx_json(const struct wbctx *c, enum io_class k)
{
	json_object *o = json_object_new_object(), *r;

	if (k == IO_FLUSHER) {
		r = json_object_new_object();
		json_put_int(r, "count", c->works);
		json_put_int(r, "sync_all", c->works_sync_all);
		json_put_int(r, "for_kupdate", c->works_kupdate);
		json_put_int(r, "for_background", c->works_background);
		json_put_int(r, "bounded", c->works_bounded);
		json_put_int(r, "nr_to_write", c->works_asked);
		json_put_int(r, "written", c->works_written);
		json_put(o, "works", r);
	}
	r = json_object_new_object();
	json_put_int(r, "count", c->inodes);
	json_put_int(r, "unbounded", c->inodes_unbounded);
	json_put_int(r, "nr_to_write", c->inode_to_write);
	json_put_int(r, "written", c->inode_wrote);
	json_put(o, "single_inode", r);
	r = json_object_new_object();
	json_put_int(r, "count", c->ext4_calls);
	json_put_int(r, "sync_all", c->ext4_sync_all);
	json_put_int(r, "for_kupdate", c->ext4_kupdate);
	json_put_int(r, "unbounded", c->ext4_unbounded);
	json_put_int(r, "nr_to_write", c->ext4_to_write);
	json_put_int(r, "results", c->ext4_results);
	json_put_int(r, "written", c->ext4_written);
	json_put(o, "ext4_writepages", r);
	/* pageout() is the one caller with wbc.for_reclaim = 1. */
	json_put_int(o, "for_reclaim", c->writepage_calls);
	return o;
}

json_object *trace_summary(const char *text, size_t len, const char *stats,
			   size_t stats_len)
{
	return trace_summary_dev(text, len, stats, stats_len, NULL, NULL);
}

json_object *trace_summary_dev(const char *text, size_t len, const char *stats,
			       size_t stats_len, const char *fs_dev,
			       struct numsrc *ns)
{
	struct summary s = { .ns = ns };
	json_object *o = json_object_new_object(), *j, *k;
	long long in_buf = -1, written = -1, lost = 0;

	windows_init(&s.win);
	s.io = io_new(fs_dev);
	if (stats)
		trace_parse_stats(stats, stats_len, o, &lost, s.cpu_lost, ns);
	walk(&s, text, len, true, &in_buf, &written);
	if (in_buf >= 0 && written > in_buf && !stats)
		lost += written - in_buf;
	lost += s.lost_lines;
	s.cut = cut_at(&s, lost);
	walk(&s, text, len, false, &in_buf, &written);
	windows_finish(&s.win, s.last);

	json_put_int(o, "lines", s.lines);
	json_put_num(o, "duration_s", s.lines ? s.last - s.first : 0);
	json_put_int(o, "cut_lines", s.cut_lines);
	json_put(o, "cut_s", s.cut_lines ? json_number(s.cut - s.first) : NULL);
	if (in_buf >= 0) {
		json_put_int(o, "entries_in_buffer", in_buf);
		json_put_int(o, "entries_written", written);
	}
	json_put_int(o, "lost_events", lost);
	json_put(o, "complete", json_object_new_boolean(!lost));

	j = json_object_new_object();
	for (size_t i = 0; i < s.events.n; i++)
		json_put_int(j, s.events.v[i].name, s.events.v[i].a);
	json_put(o, "events", j);

	json_put(o, "direct_reclaim", stall_json(&s.win, WK_DIRECT));
	json_put(o, "memcg_reclaim", stall_json(&s.win, WK_MEMCG));

	j = json_object_new_object();
	for (int w = 0; w < NR_WHO; w++) {
		k = json_object_new_object();
		for (int t = 0; t < NR_TY; t++)
			json_put_int(k, ty_name[t], s.writes[w][t]);
		json_put(j, who_name[w], k);
	}
	json_put(o, "vmscan_write", j);
	json_put(o, "vmscan_write_by_comm",
		 trace_ntab_json(&s.wr_comm, "file", "anon"));

	j = json_object_new_object();
	for (int w = 0; w < NR_WHO; w++) {
		k = json_object_new_object();
		for (int t = 0; t < NR_TY; t++) {
			json_object *f = json_object_new_object();

			for (int i = 0; i < NR_SH; i++)
				json_put_int(f, sh_key[i], s.shrink[w][t][i]);
			json_put(k, ty_name[t], f);
		}
		json_put(j, who_name[w], k);
	}
	json_put(o, "shrink_inactive", j);
	json_put(o, "shrink_file_by_comm",
		 trace_ntab_json(&s.dirty_comm, "nr_dirty", "nr_scanned"));

	json_put_int(o, "kswapd_wake", s.kswapd_wake);
	json_put_int(o, "kswapd_sleep", s.kswapd_sleep);
	json_put_int(o, "oom_victims", s.oom_victims);

	json_put(o, "throttled",
		 trace_ntab_json(&s.throttle, "count", "delayed_us"));

	j = json_object_new_object();
	json_put(j, "by_reason", trace_ntab_json(&s.wb, "works", "pages"));
	json_put(j, "by_bdi", trace_ntab_json(&s.wb_bdi, "works", "pages"));
	json_put_int(j, "pages_written", s.wb_pages_written);
	json_put(o, "writeback", j);

	j = json_object_new_object();
	json_put_int(j, "count", s.bdp);
	json_put_int(j, "paused", s.bdp_paused);
	json_put_int(j, "pause_ms_total", s.bdp_pause_ms);
	json_put_int(j, "pause_ms_max", s.bdp_pause_max);
	json_put_int(j, "dirty_max", s.bdp_dirty_max);
	json_put_int(j, "limit_max", s.bdp_limit_max);
	json_put(o, "balance_dirty_pages", j);

	j = json_object_new_object();
	for (int i = 0; i < NR_IO; i++)
		json_put(j, io_class_name[i], ctx_json(&s.ctx[i], i));
	json_put(o, "writeback_context", j);
	if (io_seen(s.io))
		json_put(o, "io", io_json(s.io, !lost));
	io_free(s.io);
	windows_free(&s.win);
	free(s.events.v);
	free(s.tasks.v);
	free(s.tasks.slot);
	free(s.throttle.v);
	free(s.wb.v);
	free(s.wb_bdi.v);
	free(s.wr_comm.v);
	free(s.dirty_comm.v);
	return o;
}
