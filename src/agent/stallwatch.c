// SPDX-License-Identifier: GPL-2.0
/*
 * The stall watcher's readings and decisions (agent/watch.c has the why
 * and runs them once a second).
 *
 * The rule for memory: once the global counters stood still the guest
 * may be stuck in reclaim, and any allocation the watcher makes may
 * enter it and never return (it did: proc_alloc_inode while opening
 * /proc/PID/stat, run 20261205-033306-2dd9; alloc_empty_file in openat,
 * run 20261205-083330-7fbb, whose agent was built before that fix). So
 * every file read then is opened here up front and re-read with pread()
 * (a seq_file keeps its buffer), the buffers are static or on the stack,
 * and whether tasks wait comes from kept-open files: /proc/stat's
 * procs_blocked (tasks waiting for I/O: mempool_alloc's and wbt's waits)
 * and /proc/pressure/memory's "some" total (it grows while any task is
 * stalled in reclaim, io_schedule or not: throttle_direct_reclaim's
 * killable wait is not I/O wait). Only when neither shows a waiter (a
 * frozen fs, a lock: nothing waits for memory there) does the watcher
 * scan /proc for tasks in D state and the workload's progress, which
 * opens files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/stallwatch.h"
#include "util/num.h"

/*
 * Dumps that found progress again: watching goes on, this many times.
 * A round is at least window + gap (35 s in the lab), so five cover a
 * whole 150 s hold step; debian-6.1 stood still again after two
 * recoveries (run 20261205-103949-5c22, cell 2, attempt 1).
 */
#define WATCH_MAX_ROUNDS 5

static int open_at(const struct watch *w, const char *path, int flags)
{
	char p[WATCH_ROOT_MAX + 256];

	if ((size_t)snprintf(p, sizeof(p), "%s%s", w->root, path) >= sizeof(p))
		return -1;
	return open(p, flags | O_CLOEXEC);
}

static int open_ro(const struct watch *w, const char *path)
{
	return open_at(w, path, O_RDONLY);
}

/* Re-read a kept-open file from its start; its text, or "" on error. */
static const char *reread(int fd, char *buf, size_t len)
{
	ssize_t n = fd >= 0 ? pread(fd, buf, len - 1, 0) : -1;

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Block devices worth watching: all but loop, ram and zram devices. */
static void open_devs(struct watch *w)
{
	char p[WATCH_ROOT_MAX + 32];
	struct dirent *de;
	DIR *d;

	snprintf(p, sizeof(p), "%s/sys/block", w->root);
	d = opendir(p);
	while (d && (de = readdir(d)) && w->nr_dev < WATCH_MAX_DEVS) {
		struct watch_dev *v = &w->dev[w->nr_dev];
		char f[300];

		if (de->d_name[0] == '.' || !strncmp(de->d_name, "loop", 4) ||
		    !strncmp(de->d_name, "ram", 3) ||
		    !strncmp(de->d_name, "zram", 4) ||
		    strlen(de->d_name) >= sizeof(v->name))
			continue;
		snprintf(v->name, sizeof(v->name), "%s", de->d_name);
		snprintf(f, sizeof(f), "/sys/block/%s/stat", de->d_name);
		v->stat_fd = open_ro(w, f);
		snprintf(f, sizeof(f), "/sys/block/%s/inflight", de->d_name);
		v->inflight_fd = open_ro(w, f);
		if (v->stat_fd >= 0)
			w->nr_dev++;
		else if (v->inflight_fd >= 0)
			close(v->inflight_fd);
	}
	if (d)
		closedir(d);
}

/*
 * Each device's completed reads and writes, and its requests in flight.
 * The devices are the ones there when the watcher starts: the setup
 * phase made the stack (iSCSI sessions included) before the workload.
 *
 * A completed write is progress. A completed read is progress only while
 * no device holds a write in flight: in md's stuck mempool (shape A) the
 * writers wait for good while swap-in reads still complete below md0,
 * and counting them reset the watcher (debian-6.1, run
 * 20261205-103949-5c22, cell 2, attempt 1: md0 kept 3 writes in flight,
 * no dump in the last 35 s, wblab's SysRq-w found shape A). A read-only
 * workload has no write in flight, so its reads still count.
 */
static void read_devs(struct watch *w)
{
	bool reads = false;
	char buf[512];

	w->writes_held = false;
	for (int i = 0; i < w->nr_dev; i++) {
		struct watch_dev *v = &w->dev[i];
		unsigned long long f[8] = { 0 };

		/* reads completed, merged, sectors, ms, writes completed ... */
		if (sscanf(reread(v->stat_fd, buf, sizeof(buf)),
			   "%llu %llu %llu %llu %llu", &f[0], &f[1], &f[2],
			   &f[3], &f[4]) == 5) {
			reads |= v->rd != f[0];
			w->moved |= v->wr != f[4];
			v->rd = f[0];
			v->wr = f[4];
		}
		if (sscanf(reread(v->inflight_fd, buf, sizeof(buf)),
			   "%llu %llu", &v->in_r, &v->in_w) != 2)
			v->in_r = v->in_w = 0;
		w->writes_held |= v->in_w > 0;
	}
	w->moved |= reads && !w->writes_held;
}

/* "pid (comm) S ppid pgrp session tty tpgid flags minflt cminflt majflt" */
static bool task_stat(const char *text, char *state, int *sid,
		      unsigned long long *faults)
{
	const char *rp = strrchr(text, ')');
	unsigned long long minflt, majflt;
	int ppid, pgrp;

	if (!rp || sscanf(rp + 2, "%c %d %d %d %*d %*d %*u %llu %*u %llu",
			  state, &ppid, &pgrp, sid, &minflt, &majflt) != 6)
		return false;
	*faults = minflt + majflt;
	return true;
}

/*
 * The bytes a task had read from and sent to storage (page cache dirtied
 * counts), /proc/PID/io. Not rchar or wchar: fio's disk-util thread reads
 * /sys/block/DEV/stat all along, and not CPU time: fio's main process
 * polls its jobs while they sit in D state (a frozen fs ran 50 s that way
 * without a dump).
 */
static unsigned long long task_io(const struct watch *w, const char *pid)
{
	char p[64], buf[512];
	long long r, wr;
	int fd;

	snprintf(p, sizeof(p), "/proc/%.20s/io", pid);
	fd = open_ro(w, p);
	if (fd < 0)
		return 0;
	reread(fd, buf, sizeof(buf));
	close(fd);
	r = num_field(buf, "read_bytes:");
	wr = num_field(buf, "write_bytes:");
	return (r > 0 ? r : 0) + (wr > 0 ? wr : 0);
}

static bool old_session(const struct watch *w, int sid)
{
	if (sid == w->own_sid)
		return true;
	for (int i = 0; i < w->nr_old_sid; i++)
		if (w->old_sid[i] == sid)
			return true;
	return false;
}

/*
 * One pass over /proc: tasks in D state (kernel threads too), and the
 * summed progress of the workload's tasks. With remember, the sessions
 * seen now are the ones that are not the workload's. Opens a file for
 * every task: never while tasks wait for I/O that no device completes.
 */
static void scan_tasks(struct watch *w, bool remember)
{
	char dir[WATCH_ROOT_MAX + 8];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/proc", w->root);
	d = opendir(dir);
	w->blocked = 0;
	w->workload = 0;
	w->scanned = true;
	while (d && (de = readdir(d))) {
		char p[64], buf[1024], state;
		unsigned long long prog;
		int fd, sid;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%.20s/stat", de->d_name);
		fd = open_ro(w, p);
		if (fd < 0)
			continue;
		reread(fd, buf, sizeof(buf));
		close(fd);
		if (!task_stat(buf, &state, &sid, &prog))
			continue;
		w->blocked += state == 'D';
		if (remember && sid > 0 && !old_session(w, sid) &&
		    w->nr_old_sid < WATCH_MAX_SIDS)
			w->old_sid[w->nr_old_sid++] = sid;
		else if (!remember && sid > 0 && !old_session(w, sid))
			w->workload += prog + task_io(w, de->d_name);
	}
	if (d)
		closedir(d);
}

/*
 * Swap-out and page-out are counted when a write is submitted, not when
 * it completes, so they are progress only while no device holds a write
 * in flight (read_devs() reads first). In a lab 6.12 cell stuck on a lost
 * network (run 20261206-103428-342a, cell 13) md0's writes in flight grew
 * from 36 to 588 and pswpout from 58 to 616 while no device completed
 * any I/O for 120 s: counted as progress, each of four first dumps
 * "recovered" and the cell had no `stall`.
 */
static void read_vm(struct watch *w)
{
	static char vm[16384];
	long long out, pg;

	reread(w->vmstat_fd, vm, sizeof(vm));
	out = num_field(vm, "pswpout");
	pg = num_field(vm, "pgpgout");
	w->moved |= (out != w->pswpout || pg != w->pgpgout) && !w->writes_held;
	w->pswpout = out;
	w->pgpgout = pg;
	w->nr_free_pages = num_field(vm, "nr_free_pages");
	w->nr_writeback = num_field(vm, "nr_writeback");
}

/* Tasks waiting for I/O now (nr_iowait): /proc/stat's procs_blocked. */
static void read_io_wait(struct watch *w)
{
	static char st[32768];

	w->io_wait =
		num_field(reread(w->stat_fd, st, sizeof(st)), "procs_blocked");
}

/*
 * Tasks stalled on memory in the last second: the "some" line's total
 * (microseconds, only ever growing) of /proc/pressure/memory changed.
 */
static void read_mem_wait(struct watch *w)
{
	char buf[256];
	const char *t;
	long long v = -1;

	if (w->psi_fd < 0)
		return;
	reread(w->psi_fd, buf, sizeof(buf));
	t = strncmp(buf, "some ", 5) ? NULL : strstr(buf, " total=");
	if (t && (!strchr(buf, '\n') || t < strchr(buf, '\n')))
		v = strtoll(t + 7, NULL, 10);
	w->mem_wait = v >= 0 && w->memstall >= 0 && v != w->memstall;
	w->memstall = v;
}

static void kmsg(struct watch *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void kmsg(struct watch *w, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	if (n > 0 && write(w->kmsg_fd, line, n) < 0) {
		/* the console is the only record: nothing else to tell */
	}
}

/* The marker, the counters and the devices, then SysRq-t. */
static void dump(struct watch *w, int nr, int still_s)
{
	kmsg(w, "wblab: stall dump %d: no progress for %d s, %d tasks %s%s\n",
	     nr, still_s, w->blocked,
	     w->scanned ? "in D state" : "waiting for I/O",
	     w->mem_wait ? ", tasks stalled on memory" : "");
	kmsg(w,
	     "wblab: stall dump %d vm pswpout %lld pgpgout %lld nr_free_pages %lld nr_writeback %lld memstall_us %lld workload %llu\n",
	     nr, w->pswpout, w->pgpgout, w->nr_free_pages, w->nr_writeback,
	     w->memstall, w->workload);
	for (int i = 0; i < w->nr_dev; i++)
		kmsg(w,
		     "wblab: stall dump %d dev %s done %llu inflight %llu %llu\n",
		     nr, w->dev[i].name, w->dev[i].rd + w->dev[i].wr,
		     w->dev[i].in_r, w->dev[i].in_w);
	if (w->sysrq_fd < 0 || write(w->sysrq_fd, "t", 1) != 1)
		kmsg(w, "wblab: stall dump %d: sysrq-trigger: %s\n", nr,
		     strerror(errno));
	kmsg(w, "wblab: stall dump %d end\n", nr);
}

/*
 * Read everything; true if nothing moved since the last reading and
 * tasks wait. Tasks waiting for I/O or stalled on memory while no device
 * completed any and swap-out and page-out stood still are enough,
 * without looking at them: that is where a guest stuck in reclaim is,
 * and where a scan could join them.
 */
static bool still(struct watch *w)
{
	unsigned long long work = w->workload;

	w->moved = false;
	read_devs(w);
	read_vm(w);
	read_io_wait(w);
	read_mem_wait(w);
	if (w->moved)
		return false;
	if (w->io_wait > 0 || w->mem_wait) {
		w->blocked = w->io_wait;
		w->scanned = false;
		return true;
	}
	scan_tasks(w, false);
	return w->blocked && w->workload == work;
}

int watch_open(struct watch *w, const char *root, unsigned int window,
	       unsigned int gap, int sid)
{
	memset(w, 0, sizeof(*w));
	w->vmstat_fd = w->stat_fd = w->psi_fd = w->kmsg_fd = w->sysrq_fd = -1;
	w->memstall = -1;
	if (strlen(root) >= sizeof(w->root))
		return -1;
	strcpy(w->root, root);
	w->window = window;
	w->gap = gap;
	w->own_sid = sid;
	w->vmstat_fd = open_ro(w, "/proc/vmstat");
	w->stat_fd = open_ro(w, "/proc/stat");
	w->psi_fd = open_ro(w, "/proc/pressure/memory");
	w->kmsg_fd = open_at(w, "/dev/kmsg", O_WRONLY);
	w->sysrq_fd = open_at(w, "/proc/sysrq-trigger", O_WRONLY);
	if (w->vmstat_fd < 0 || w->stat_fd < 0 || w->kmsg_fd < 0)
		return -1;
	open_devs(w);
	scan_tasks(w, true);
	read_devs(w);
	read_vm(w);
	read_io_wait(w);
	read_mem_wait(w);
	return 0;
}

/* WATCH_GAP over: dump 2 if still nothing moved, else watch on. */
static bool gap_over(struct watch *w)
{
	if (still(w)) {
		dump(w, 2, w->since + w->gap);
		w->phase = WATCH_DONE;
		w->evidence = true;
		return true;
	}
	kmsg(w, "wblab: stall recovered: progress within %u s\n", w->gap);
	w->since = 0;
	w->phase = ++w->rounds >= WATCH_MAX_ROUNDS ? WATCH_DONE : WATCH_WAIT;
	return w->phase == WATCH_DONE;
}

bool watch_tick(struct watch *w)
{
	switch (w->phase) {
	case WATCH_DONE:
		return true;
	case WATCH_GAP:
		return --w->gap_left ? false : gap_over(w);
	case WATCH_WAIT:
		break;
	}
	if (!still(w)) {
		w->since = 0;
		return false;
	}
	if (++w->since < w->window)
		return false;
	dump(w, 1, w->since);
	w->phase = WATCH_GAP;
	w->gap_left = w->gap;
	return false;
}

/*
 * Ended is WATCH_ENDED_S seconds of progress in a row, not one: in a lab
 * 6.12 cell stuck until iSCSI failed every request, one counter moved
 * once right after dump 2 and nothing else for 80 s (run
 * 20261206-085251-545a, cell 3).
 */
bool watch_ended(struct watch *w)
{
	if (!w->evidence)
		return true;
	if (still(w)) {
		w->after += w->moving + 1;
		w->moving = 0;
		return false;
	}
	if (++w->moving < WATCH_ENDED_S)
		return false;
	kmsg(w, "wblab: stall ended: progress after %u s\n",
	     w->since + w->gap + w->after);
	w->evidence = false;
	return true;
}
