// SPDX-License-Identifier: GPL-2.0
/*
 * wblab-agent watch WINDOW_S GAP_S: stall evidence, not a timer.
 *
 * Once a second the watcher reads progress counters: pswpout and pgpgout
 * (/proc/vmstat), every block device's completed reads and writes
 * (/sys/block/DEV/stat), and the workload's own progress (page faults and
 * bytes read from or sent to storage by the tasks in sessions that
 * started after the watcher: the workload's steps). When none of them moved for WINDOW_S seconds while
 * some task sat in D state, it writes a marker line to /dev/kmsg and
 * triggers SysRq-t, waits GAP_S seconds and, if still nothing moved,
 * does so again. The console parser (collect/console-stall.c) turns
 * tasks in D state at the same wait site in both dumps into a `stall`
 * event. The marker lines carry the counters and each device's requests
 * in flight (/sys/block/DEV/inflight), so requests issued and never
 * completed in the window show.
 *
 * Why so careful about memory: in the swap-over-iSCSI deadlock the
 * sampler itself blocked in throttle_direct_reclaim while writing its
 * tmpfs file. The watcher is locked in memory, opens every file it reads
 * repeatedly once (a seq_file keeps its buffer), and reports only to
 * /dev/kmsg, which allocates nothing. Scanning /proc (for D-state tasks
 * and the workload's counters) opens files; it happens only while the
 * global counters stand still.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "agent/io.h"
#include "agent/proto.h"
#include "agent/watch.h"

#define WATCH_MAX_DEVS 16
#define WATCH_MAX_SIDS 256
/* Dumps that found progress again: watching goes on, this many times. */
#define WATCH_MAX_ROUNDS 3

struct wdev {
	char name[32];
	int stat_fd, inflight_fd;
	unsigned long long done; /* reads + writes completed */
	unsigned long long in_r, in_w; /* in flight */
};

struct watch {
	int vmstat_fd, kmsg_fd, sysrq_fd;
	struct wdev dev[WATCH_MAX_DEVS];
	int nr_dev;
	int old_sid[WATCH_MAX_SIDS]; /* sessions before the workload */
	int nr_old_sid, own_sid;
	/* the counters of the last reading */
	long long pswpout, pgpgout, nr_free_pages, nr_writeback;
	unsigned long long workload; /* faults + storage bytes */
	int blocked; /* tasks in D state */
	bool moved; /* a global counter changed in the last reading */
};

static void set(struct watch *w, long long *field, long long v)
{
	w->moved |= *field != v;
	*field = v;
}

static int open_ro(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Re-read a kept-open file from its start; its text, or "" on error. */
static const char *reread(int fd, char *buf, size_t len)
{
	ssize_t n = fd >= 0 ? pread(fd, buf, len - 1, 0) : -1;

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static long long vm_field(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; *p;) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoll(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return -1;
}

/* Block devices worth watching: all but loop, ram and zram devices. */
static void open_devs(struct watch *w)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;

	while (d && (de = readdir(d)) && w->nr_dev < WATCH_MAX_DEVS) {
		struct wdev *v = &w->dev[w->nr_dev];
		char p[300];

		if (de->d_name[0] == '.' || !strncmp(de->d_name, "loop", 4) ||
		    !strncmp(de->d_name, "ram", 3) ||
		    !strncmp(de->d_name, "zram", 4) ||
		    strlen(de->d_name) >= sizeof(v->name))
			continue;
		snprintf(v->name, sizeof(v->name), "%s", de->d_name);
		snprintf(p, sizeof(p), "/sys/block/%s/stat", de->d_name);
		v->stat_fd = open_ro(p);
		snprintf(p, sizeof(p), "/sys/block/%s/inflight", de->d_name);
		v->inflight_fd = open_ro(p);
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
 */
static void read_devs(struct watch *w)
{
	char buf[512];

	for (int i = 0; i < w->nr_dev; i++) {
		struct wdev *v = &w->dev[i];
		unsigned long long f[8] = { 0 };

		/* reads completed, merged, sectors, ms, writes completed ... */
		if (sscanf(reread(v->stat_fd, buf, sizeof(buf)),
			   "%llu %llu %llu %llu %llu", &f[0], &f[1], &f[2],
			   &f[3], &f[4]) == 5) {
			w->moved |= v->done != f[0] + f[4];
			v->done = f[0] + f[4];
		}
		if (sscanf(reread(v->inflight_fd, buf, sizeof(buf)),
			   "%llu %llu", &v->in_r, &v->in_w) != 2)
			v->in_r = v->in_w = 0;
	}
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
static unsigned long long task_io(const char *pid)
{
	char p[64], buf[512];
	const char *r, *w;
	int fd;

	snprintf(p, sizeof(p), "/proc/%.20s/io", pid);
	fd = open_ro(p);
	if (fd < 0)
		return 0;
	reread(fd, buf, sizeof(buf));
	close(fd);
	r = strstr(buf, "\nread_bytes: ");
	w = strstr(buf, "\nwrite_bytes: ");
	return (r ? strtoull(r + 13, NULL, 10) : 0) +
	       (w ? strtoull(w + 14, NULL, 10) : 0);
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
 * seen now are the ones that are not the workload's.
 */
static void scan_tasks(struct watch *w, bool remember)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	w->blocked = 0;
	w->workload = 0;
	while (d && (de = readdir(d))) {
		char p[64], buf[1024], state;
		unsigned long long prog;
		int fd, sid;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%.20s/stat", de->d_name);
		fd = open_ro(p);
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
			w->workload += prog + task_io(de->d_name);
	}
	if (d)
		closedir(d);
}

static void read_vm(struct watch *w)
{
	static char vm[16384];

	reread(w->vmstat_fd, vm, sizeof(vm));
	set(w, &w->pswpout, vm_field(vm, "pswpout"));
	set(w, &w->pgpgout, vm_field(vm, "pgpgout"));
	w->nr_free_pages = vm_field(vm, "nr_free_pages");
	w->nr_writeback = vm_field(vm, "nr_writeback");
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
	kmsg(w,
	     "wblab: stall dump %d: no progress for %d s, %d tasks in D state\n",
	     nr, still_s, w->blocked);
	kmsg(w,
	     "wblab: stall dump %d vm pswpout %lld pgpgout %lld nr_free_pages %lld nr_writeback %lld workload %llu\n",
	     nr, w->pswpout, w->pgpgout, w->nr_free_pages, w->nr_writeback,
	     w->workload);
	for (int i = 0; i < w->nr_dev; i++)
		kmsg(w,
		     "wblab: stall dump %d dev %s done %llu inflight %llu %llu\n",
		     nr, w->dev[i].name, w->dev[i].done, w->dev[i].in_r,
		     w->dev[i].in_w);
	if (w->sysrq_fd < 0 || write(w->sysrq_fd, "t", 1) != 1)
		kmsg(w, "wblab: stall dump %d: sysrq-trigger: %s\n", nr,
		     strerror(errno));
	kmsg(w, "wblab: stall dump %d end\n", nr);
}

/* Read everything; true if nothing moved since the last reading. */
static bool still(struct watch *w)
{
	unsigned long long work = w->workload;

	w->moved = false;
	read_vm(w);
	read_devs(w);
	if (w->moved)
		return false;
	scan_tasks(w, false);
	return w->workload == work;
}

static int usage(void)
{
	say("watch: usage: watch WINDOW_S GAP_S");
	return 2;
}

int watch_main(int argc, char **argv)
{
	struct watch w = { .vmstat_fd = -1 };
	unsigned int window, gap;
	int since = 0, rounds = 0;

	if (argc != 3 || proto_uint(argv[1], 3600, &window) ||
	    proto_uint(argv[2], 3600, &gap) || !window || !gap)
		return usage();
	prctl(PR_SET_NAME, "wblab-watch");
	w.own_sid = getsid(0);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		say("watch: mlockall: %s", strerror(errno));
	w.vmstat_fd = open_ro("/proc/vmstat");
	w.kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	w.sysrq_fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
	if (w.vmstat_fd < 0 || w.kmsg_fd < 0) {
		say("watch: cannot open /proc/vmstat or /dev/kmsg");
		return 1;
	}
	open_devs(&w);
	scan_tasks(&w, true);
	read_vm(&w);
	read_devs(&w);
	for (;;) {
		sleep(1);
		if (!still(&w) || !w.blocked) {
			since = 0;
			continue;
		}
		if (++since < (int)window)
			continue;
		dump(&w, 1, since);
		sleep(gap);
		if (still(&w) && w.blocked) {
			dump(&w, 2, since + (int)gap);
			break;
		}
		kmsg(&w, "wblab: stall recovered: progress within %u s\n", gap);
		since = 0;
		if (++rounds >= WATCH_MAX_ROUNDS)
			break;
	}
	/* Evidence taken: stay out of the way until the phase ends. */
	for (;;)
		pause();
	return 0;
}
