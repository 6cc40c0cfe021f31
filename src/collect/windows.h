/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_WINDOWS_H
#define WBLAB_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Writer windows: the intervals in which a task reclaims or writes back,
 * per pid, from trace events (pure; no parsing of its own):
 *
 *   direct   mm_vmscan_direct_reclaim_begin .. _end      (the allocating task)
 *   memcg    mm_vmscan_memcg_reclaim_begin .. _end       (the charging task)
 *   kswapd   mm_vmscan_kswapd_wake .. mm_vmscan_kswapd_sleep (kswapd itself
 *            emits both, so its pid is known from its own events)
 *   flusher  writeback_start .. writeback_written        (a wb work in a
 *            kworker: the kworker is a flusher only inside the window)
 *
 * Feed the events in trace order (tracefs' `trace` is sorted by time),
 * then windows_finish(), then ask windows_at(). A begin whose end never
 * came is closed at the finish time and counted as unfinished; an end
 * without a begin (a window already open when the trace started) opens at
 * the first timestamp fed.
 */
enum wkind { WK_NONE, WK_DIRECT, WK_MEMCG, WK_KSWAPD, WK_FLUSHER, NR_WK };

extern const char *const wkind_name[NR_WK]; /* "none", "direct", ... */

struct window {
	enum wkind kind;
	double begin, end; /* seconds, trace clock */
	long long nr_reclaimed; /* from direct/memcg _end, else 0 */
	bool unfinished; /* closed by windows_finish, not by its end event */
	bool open_at_start; /* its begin was before the trace started */
};

/* One pid's windows, per kind in time order (one kind never overlaps). */
struct pid_windows {
	int pid;
	bool kswapd; /* emitted kswapd_wake or kswapd_sleep */
	struct window *v[NR_WK];
	size_t n[NR_WK], alloc[NR_WK];
	bool open[NR_WK]; /* the kind's last window is still open */
};

struct windows {
	struct pid_windows *p;
	size_t n, alloc;
	int *slot; /* open addressing by pid into p, -1 empty */
	size_t nslots;
	double first, last; /* first and last timestamps fed */
	bool any;
};

void windows_init(struct windows *w);
void windows_free(struct windows *w);

/* Every line's timestamp, so windows know where the trace starts and ends. */
void windows_tick(struct windows *w, double ts);
/* pid is kswapd (known before its first event: a first pass found it). */
void windows_mark_kswapd(struct windows *w, int pid);
void windows_begin(struct windows *w, int pid, double ts, enum wkind kind);
void windows_end(struct windows *w, int pid, double ts, enum wkind kind,
		 long long nr_reclaimed);

/*
 * Feed one trace event by name (e.g. "mm_vmscan_direct_reclaim_begin");
 * nr_reclaimed is used by the reclaim _end events. Returns true when the
 * event is one of the window events above.
 */
bool windows_event(struct windows *w, int pid, double ts, const char *event,
		   size_t event_len, long long nr_reclaimed);

/* Close what is still open at ts (usually the end of the analysed trace). */
void windows_finish(struct windows *w, double ts);

/* The pid's windows, or NULL if the pid has none. */
const struct pid_windows *windows_pid(const struct windows *w, int pid);
bool windows_is_kswapd(const struct windows *w, int pid);

/*
 * Which window holds pid at ts, by precedence direct/memcg (a reclaim
 * inside anything), then kswapd (a kswapd pid, awake or not: kswapd
 * writes only for reclaim), then flusher. WK_NONE if none.
 */
enum wkind windows_at(const struct windows *w, int pid, double ts);

/* Count and total seconds of the windows of one kind (all pids). */
size_t windows_count(const struct windows *w, enum wkind kind, double *total_s);

#endif
