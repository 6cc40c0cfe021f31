// SPDX-License-Identifier: GPL-2.0
/*
 * Writer windows per pid (direct and memcg reclaim, kswapd awake, flusher
 * work) from trace events. Pure: the caller parses the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/windows.h"
#include "util/log.h"

const char *const wkind_name[NR_WK] = { "none", "direct", "memcg", "kswapd",
					"flusher" };

void windows_init(struct windows *w)
{
	memset(w, 0, sizeof(*w));
}

void windows_free(struct windows *w)
{
	for (size_t i = 0; i < w->n; i++)
		for (int k = 0; k < NR_WK; k++)
			free(w->p[i].v[k]);
	free(w->p);
	free(w->slot);
	memset(w, 0, sizeof(*w));
}

static size_t pid_hash(int pid, size_t nslots)
{
	return ((unsigned int)pid * 2654435761u) & (nslots - 1);
}

static void rehash(struct windows *w)
{
	free(w->slot);
	w->nslots = w->nslots ? 2 * w->nslots : 256;
	w->slot = xmalloc(w->nslots * sizeof(*w->slot));
	memset(w->slot, 0xff, w->nslots * sizeof(*w->slot));
	for (size_t i = 0; i < w->n; i++) {
		size_t h = pid_hash(w->p[i].pid, w->nslots);

		while (w->slot[h] >= 0)
			h = (h + 1) & (w->nslots - 1);
		w->slot[h] = i;
	}
}

/* The guest picks the pids: hashed, never indexed by them. */
static int find_slot(const struct windows *w, int pid, size_t *h)
{
	if (!w->nslots)
		return -1;
	for (*h = pid_hash(pid, w->nslots); w->slot[*h] >= 0;
	     *h = (*h + 1) & (w->nslots - 1))
		if (w->p[w->slot[*h]].pid == pid)
			return w->slot[*h];
	return -1;
}

static struct pid_windows *get(struct windows *w, int pid)
{
	size_t h;
	int i;

	if (2 * (w->n + 1) > w->nslots)
		rehash(w);
	i = find_slot(w, pid, &h);
	if (i >= 0)
		return &w->p[i];
	if (w->n == w->alloc) {
		w->alloc = w->alloc ? 2 * w->alloc : 64;
		w->p = xrealloc(w->p, w->alloc * sizeof(*w->p));
	}
	memset(&w->p[w->n], 0, sizeof(w->p[w->n]));
	w->p[w->n].pid = pid;
	w->slot[h] = w->n;
	return &w->p[w->n++];
}

const struct pid_windows *windows_pid(const struct windows *w, int pid)
{
	size_t h;
	int i = find_slot(w, pid, &h);

	return i >= 0 ? &w->p[i] : NULL;
}

bool windows_is_kswapd(const struct windows *w, int pid)
{
	const struct pid_windows *p = windows_pid(w, pid);

	return p && p->kswapd;
}

void windows_tick(struct windows *w, double ts)
{
	if (!w->any)
		w->first = ts;
	w->any = true;
	w->last = ts;
}

static struct window *add(struct pid_windows *p, enum wkind k)
{
	struct window *win;

	if (p->n[k] == p->alloc[k]) {
		p->alloc[k] = p->alloc[k] ? 2 * p->alloc[k] : 16;
		p->v[k] = xrealloc(p->v[k], p->alloc[k] * sizeof(*p->v[k]));
	}
	win = &p->v[k][p->n[k]++];
	memset(win, 0, sizeof(*win));
	win->kind = k;
	return win;
}

void windows_mark_kswapd(struct windows *w, int pid)
{
	get(w, pid)->kswapd = true;
}

/* pid's windows at an event at ts of kind (a kswapd's marks it one). */
static struct pid_windows *at_event(struct windows *w, int pid, double ts,
				    enum wkind kind)
{
	struct pid_windows *p = get(w, pid);

	windows_tick(w, ts);
	if (kind == WK_KSWAPD)
		p->kswapd = true;
	return p;
}

void windows_begin(struct windows *w, int pid, double ts, enum wkind kind)
{
	struct pid_windows *p = at_event(w, pid, ts, kind);
	struct window *win;

	/* A second begin without an end: the first one never finished. */
	if (p->open[kind]) {
		win = &p->v[kind][p->n[kind] - 1];
		win->end = ts;
		win->unfinished = true;
	}
	win = add(p, kind);
	win->begin = ts;
	win->end = ts;
	p->open[kind] = true;
}

void windows_end(struct windows *w, int pid, double ts, enum wkind kind,
		 long long nr_reclaimed)
{
	struct pid_windows *p = at_event(w, pid, ts, kind);
	struct window *win;

	if (p->open[kind]) {
		win = &p->v[kind][p->n[kind] - 1];
	} else {
		/* Open before the trace started (or its begin was lost). */
		win = add(p, kind);
		win->begin = w->first;
		win->open_at_start = true;
	}
	win->end = ts;
	win->nr_reclaimed = nr_reclaimed;
	p->open[kind] = false;
}

static const struct {
	const char *name;
	enum wkind kind;
	bool begin;
} events[] = {
	{ "mm_vmscan_direct_reclaim_begin", WK_DIRECT, true },
	{ "mm_vmscan_direct_reclaim_end", WK_DIRECT, false },
	{ "mm_vmscan_memcg_reclaim_begin", WK_MEMCG, true },
	{ "mm_vmscan_memcg_reclaim_end", WK_MEMCG, false },
	{ "mm_vmscan_kswapd_wake", WK_KSWAPD, true },
	{ "mm_vmscan_kswapd_sleep", WK_KSWAPD, false },
	{ "writeback_start", WK_FLUSHER, true },
	{ "writeback_written", WK_FLUSHER, false },
};

bool windows_event(struct windows *w, int pid, double ts, const char *event,
		   size_t len, long long nr_reclaimed)
{
	for (size_t i = 0; i < ARRAY_SIZE(events); i++) {
		if (strlen(events[i].name) != len ||
		    memcmp(events[i].name, event, len))
			continue;
		if (events[i].begin)
			windows_begin(w, pid, ts, events[i].kind);
		else
			windows_end(w, pid, ts, events[i].kind, nr_reclaimed);
		return true;
	}
	return false;
}

void windows_finish(struct windows *w, double ts)
{
	for (size_t i = 0; i < w->n; i++)
		for (int k = 0; k < NR_WK; k++) {
			struct pid_windows *p = &w->p[i];

			if (!p->open[k])
				continue;
			p->v[k][p->n[k] - 1].end = ts;
			p->v[k][p->n[k] - 1].unfinished = true;
			p->open[k] = false;
		}
}

/*
 * Is ts inside one of the (sorted, disjoint) windows? Binary search. The
 * last window, while still open, holds everything after its begin.
 */
static bool inside(const struct window *v, size_t n, bool open, double ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].begin <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && (ts <= v[lo - 1].end || (open && lo == n));
}

enum wkind windows_at(const struct windows *w, int pid, double ts)
{
	const struct pid_windows *p = windows_pid(w, pid);

	if (!p)
		return WK_NONE;
	if (inside(p->v[WK_DIRECT], p->n[WK_DIRECT], p->open[WK_DIRECT], ts))
		return WK_DIRECT;
	if (inside(p->v[WK_MEMCG], p->n[WK_MEMCG], p->open[WK_MEMCG], ts))
		return WK_MEMCG;
	if (p->kswapd)
		return WK_KSWAPD;
	if (inside(p->v[WK_FLUSHER], p->n[WK_FLUSHER], p->open[WK_FLUSHER], ts))
		return WK_FLUSHER;
	return WK_NONE;
}

size_t windows_count(const struct windows *w, enum wkind kind, double *total_s)
{
	size_t n = 0;
	double t = 0;

	for (size_t i = 0; i < w->n; i++) {
		const struct pid_windows *p = &w->p[i];

		for (size_t k = 0; k < p->n[kind]; k++)
			t += p->v[kind][k].end - p->v[kind][k].begin;
		n += p->n[kind];
	}
	if (total_s)
		*total_s = t;
	return n;
}
