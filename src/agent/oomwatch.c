// SPDX-License-Identifier: GPL-2.0
/*
 * wblab-agent oomwatch CGROUP FILE: the memcg's state at each OOM.
 *
 * The console cannot say what a memcg held when it killed: dump_header()
 * is rate limited (10 reports in 5 s), and its memory.stat dump is the
 * one the OOM killer printed, not one per kill. memory.events is a cgroup
 * file that raises a "modified" event (inotify IN_MODIFY) whenever one
 * of its counters moves, the oom and oom_kill counters included, so the
 * watcher sleeps on inotify and, each time oom or oom_kill has moved,
 * reads memory.stat at once and appends one row to FILE:
 *
 *   mono_s oom oom_kill current max anon file file_dirty file_writeback
 *
 * mono_s is CLOCK_MONOTONIC (the console's clock), the rest bytes or
 * counts as the kernel printed them. The first row is the state when the
 * watcher started. Rows are bounded (OOMWATCH_MAX_ROWS), each written
 * with one write(2), since the watcher is SIGKILLed when the workload
 * phase ends. memory.stat is read after the kill, not inside it: what it
 * shows of file pages is at most the time of a read later than the kill
 * (rows carry that time), and 6.1 flushes the per-CPU stat deltas only
 * past a threshold (64 pages per CPU), which bounds its staleness.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "agent/io.h"
#include "agent/oomwatch.h"
#include "agent/proto.h"
#include "util/num.h"

#define OOMWATCH_MAX_ROWS 4096

struct cg_state {
	long long oom, oom_kill;
};

static int read_file(const char *dir, const char *name, char *buf, size_t len)
{
	char path[320];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* One row: the state at this moment. */
static int write_row(int out, const char *dir, const struct cg_state *s)
{
	static char stat[16384];
	char cur[64], max[64], row[512];
	int n;

	if (read_file(dir, "memory.stat", stat, sizeof(stat)) ||
	    read_file(dir, "memory.current", cur, sizeof(cur)) ||
	    read_file(dir, "memory.max", max, sizeof(max)))
		return -1;
	cur[strcspn(cur, "\n")] = '\0';
	max[strcspn(max, "\n")] = '\0';
	n = snprintf(row, sizeof(row),
		     "%.6f\t%lld\t%lld\t%s\t%s\t%lld\t%lld\t%lld\t%lld\n",
		     mono(), s->oom, s->oom_kill, cur, max,
		     num_field(stat, "anon"), num_field(stat, "file"),
		     num_field(stat, "file_dirty"),
		     num_field(stat, "file_writeback"));
	return write(out, row, n) == n ? 0 : -1;
}

static int watch(const char *dir, int out)
{
	static char ev[4096];
	char path[320], buf[1024];
	struct cg_state last = { -1, -1 }, now;
	int in, rows = 0;

	in = inotify_init1(IN_CLOEXEC);
	snprintf(path, sizeof(path), "%s/memory.events", dir);
	if (in < 0 || inotify_add_watch(in, path, IN_MODIFY) < 0) {
		say("oomwatch: %s: %s", path, strerror(errno));
		return 1;
	}
	for (;;) {
		if (read_file(dir, "memory.events", buf, sizeof(buf)))
			return 1;
		now.oom = num_field(buf, "oom");
		now.oom_kill = num_field(buf, "oom_kill");
		if (now.oom != last.oom || now.oom_kill != last.oom_kill) {
			if (rows++ == OOMWATCH_MAX_ROWS) {
				say("oomwatch: %d rows, no more", rows - 1);
				return 0;
			}
			if (write_row(out, dir, &now))
				return 1;
			last = now;
		}
		/* Events coalesce: one read wakes for all that came. */
		if (read(in, ev, sizeof(ev)) < 0 && errno != EINTR)
			return 1;
	}
}

int oomwatch_main(int argc, char **argv)
{
	static const char hdr[] = "mono_s\toom\toom_kill\tcurrent\tmax\tanon"
				  "\tfile\tfile_dirty\tfile_writeback\n";
	char dir[300];
	int out, fd;

	if (argc != 3 || !argv[1][0] || strchr(argv[1], '/') ||
	    argv[1][0] == '.') {
		say("oomwatch: usage: oomwatch CGROUP FILE");
		return 2;
	}
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/%s", argv[1]);
	prctl(PR_SET_NAME, "wblab-oomwatch");
	/* An observer: never the victim, never charged to the memcg. */
	fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "-1000", 5) < 0)
			say("oomwatch: oom_score_adj: %s", strerror(errno));
		close(fd);
	}
	fd = open("/sys/fs/cgroup/cgroup.procs", O_WRONLY);
	if (fd < 0 || write(fd, "0", 1) != 1)
		say("oomwatch: cannot leave %s: %s", argv[1], strerror(errno));
	if (fd >= 0)
		close(fd);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		say("oomwatch: mlockall: %s", strerror(errno));
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || write(out, hdr, sizeof(hdr) - 1) < 0) {
		say("oomwatch: %s: %s", argv[2], strerror(errno));
		return 1;
	}
	return watch(dir, out);
}
