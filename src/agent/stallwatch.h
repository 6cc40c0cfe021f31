/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_AGENT_STALLWATCH_H
#define WBLAB_AGENT_STALLWATCH_H

#include <stdbool.h>

/*
 * The stall watcher's readings and decisions (agent/watch.c runs them
 * once a second in the guest; tests/test_watch.c on a tree of captured
 * files). Every file the watcher reads while the guest may be stuck is
 * opened by watch_open() and re-read with pread().
 */
#define WATCH_MAX_DEVS 16
#define WATCH_MAX_SIDS 256
#define WATCH_ROOT_MAX 128

struct watch_dev {
	char name[32];
	int stat_fd, inflight_fd;
	unsigned long long rd, wr; /* reads, writes completed */
	unsigned long long in_r, in_w; /* in flight */
};

enum watch_phase { WATCH_WAIT, WATCH_GAP, WATCH_DONE };

struct watch {
	char root[WATCH_ROOT_MAX]; /* "" in the guest; a test's tree */
	unsigned int window, gap;
	int vmstat_fd, stat_fd, psi_fd, kmsg_fd, sysrq_fd;
	struct watch_dev dev[WATCH_MAX_DEVS];
	int nr_dev;
	int old_sid[WATCH_MAX_SIDS]; /* sessions before the workload */
	int nr_old_sid, own_sid;
	/* the counters of the last reading */
	long long pswpout, pgpgout, nr_free_pages, nr_writeback;
	unsigned long long workload; /* faults + storage bytes */
	long long io_wait; /* /proc/stat procs_blocked */
	long long memstall; /* /proc/pressure/memory "some" total, us */
	bool mem_wait; /* it grew in the last second: tasks stalled on memory */
	int blocked; /* tasks in D state, or waiting for I/O */
	bool scanned; /* blocked came from a /proc scan */
	bool moved; /* a global counter changed in the last reading */
	bool writes_held; /* a device had a write in flight then */
	/* the decision: seconds still, dumps that found progress again */
	enum watch_phase phase;
	unsigned int since, gap_left, rounds;
	bool evidence; /* dump 2 taken */
	unsigned int after; /* seconds still since dump 2 */
	unsigned int moving; /* seconds of progress in a row since then */
};

/* Seconds of progress in a row that end a stall after dump 2. */
#define WATCH_ENDED_S 3

/*
 * Open every file the watcher re-reads (under root: "" in the guest) and
 * take the first reading; sid is the watcher's own session. 0, or -1 if
 * /proc/vmstat, /proc/stat or /dev/kmsg cannot be opened (a kernel
 * without PSI has no /proc/pressure/memory: then memory stalls are not
 * seen, and a second with nobody waiting for I/O scans /proc).
 */
int watch_open(struct watch *w, const char *root, unsigned int window,
	       unsigned int gap, int sid);
/* One second of watching; true once the evidence is taken. */
bool watch_tick(struct watch *w);
/*
 * After dump 2, one second of watching whether it ends: true once
 * something moved in WATCH_ENDED_S seconds in a row ("wblab: stall
 * ended: progress after N s", N the seconds nothing moved before them),
 * or at once if there was no dump 2. A standstill that ends was a stall,
 * not a deadlock: the host's event says which (collect/console-stall.c).
 */
bool watch_ended(struct watch *w);

#endif
