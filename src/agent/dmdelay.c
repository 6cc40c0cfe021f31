// SPDX-License-Identifier: GPL-2.0
/*
 * wblab-agent dm-delay NAME DEV MS: a dm-delay device NAME over the whole
 * of DEV, every bio held MS milliseconds (a topology's dm-delay layer; 0:
 * remapped in the submitter's context, a pass-through).
 *
 * The table is "0 SECTORS delay DEV 0 MS": its length is DEV's size in
 * 512-byte sectors, which only the guest knows when DEV is an md array or
 * an iSCSI LUN, so the agent reads it (BLKGETSIZE64) and hands the table to
 * dmsetup. The guest runs no udev: --noudevsync keeps dmsetup from waiting
 * for a udev cookie that nobody would release, and libdevmapper then makes
 * /dev/mapper/NAME itself.
 *
 * wblab-agent dm-stall NAME AFTER_MS SUSPEND_MS RESUME_MS COUNT: a dm-delay
 * layer's stall: (topology stall:): after AFTER_MS, COUNT times, suspend
 * the device NAME, keep it suspended SUSPEND_MS, resume it, and wait
 * RESUME_MS before the next. On a bio-based device a suspend first waits
 * for every bio in flight (dm-delay's presuspend hands its whole queue to
 * the device below, and the ioctl returns once those completed); from
 * then on dm_submit_bio() puts new bios on the device's deferred list
 * without blocking the submitter, and none completes until the resume:
 * no folio ends writeback while the device is suspended. The suspend
 * skips lock_fs() (DM_SKIP_LOCKFS_FLAG, with DM_NOFLUSH_FLAG as dmsetup
 * suspend --noflush --nolockfs): freezing the filesystem would write
 * every dirty page first and block the writers, a different experiment.
 * The ioctl is issued here rather than by dmsetup, so that the times are
 * those of the suspend itself; each change also goes to the trace
 * (trace_marker, "wblab-stall NAME N suspended" ...) so that the trace
 * shows where block completions must stop. One line per stall on
 * stdout: N, then CLOCK_MONOTONIC seconds when the suspend was asked,
 * done, and when the resume was asked, done. The device is resumed
 * before any exit but SIGKILL (the planner resumes it once more after).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "agent/dmdelay.h"
#include "agent/io.h"
#include "agent/proto.h"

#define TRACE_MARKER "/sys/kernel/tracing/trace_marker"

static int dev_sectors(const char *dev, uint64_t *sectors)
{
	uint64_t bytes = 0;
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes) < 0) {
		fprintf(stderr, "dm-delay: %s: %s\n", dev, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	*sectors = bytes >> 9;
	return 0;
}

/*
 * argv[i], named name on the usage line, as a whole decimal number in
 * min..max (proto_uint: digits only); otherwise say which argument, the
 * value and the range, as "CMD: NAME 'VALUE' is not a number in MIN..MAX".
 */
static int parse_arg(char **argv, int i, const char *name, long min, long max,
		     long *out)
{
	unsigned int v;

	if (proto_uint(argv[i], max, &v) || v < min) {
		fprintf(stderr, "%s: %s '%s' is not a number in %ld..%ld\n",
			argv[0], name, argv[i], min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int dmdelay_main(int argc, char **argv)
{
	char table[512];
	uint64_t sectors;
	long ms;

	if (argc != 4 || !argv[1][0] || strchr(argv[1], '/')) {
		fprintf(stderr, "usage: wblab-agent dm-delay NAME DEV MS\n");
		return 2;
	}
	if (parse_arg(argv, 3, "MS", 0, 60000, &ms))
		return 2;
	if (dev_sectors(argv[2], &sectors))
		return 1;
	if ((size_t)snprintf(table, sizeof(table), "0 %llu delay %s 0 %ld",
			     (unsigned long long)sectors, argv[2],
			     ms) >= sizeof(table)) {
		fprintf(stderr, "dm-delay: device name too long: %s\n",
			argv[2]);
		return 2;
	}
	printf("dm-delay: %s: %s\n", argv[1], table);
	fflush(stdout);
	execlp("dmsetup", "dmsetup", "create", "--noudevsync", argv[1],
	       "--table", table, (char *)NULL);
	fprintf(stderr, "dm-delay: cannot run dmsetup: %s\n", strerror(errno));
	return 127;
}

/* One stall's state: the control device, the trace, the device's name. */
struct stall {
	int ctl, marker;
	const char *name;
	sigset_t stop; /* SIGTERM, SIGINT, SIGHUP: resume and exit */
};

static int dm_suspend(const struct stall *s, bool suspend)
{
	struct dm_ioctl io;

	memset(&io, 0, sizeof(io));
	io.version[0] = DM_VERSION_MAJOR;
	io.data_size = sizeof(io);
	io.data_start = sizeof(io);
	io.flags = suspend ? DM_SUSPEND_FLAG | DM_NOFLUSH_FLAG |
				     DM_SKIP_LOCKFS_FLAG :
			     0;
	snprintf(io.name, sizeof(io.name), "%s", s->name);
	if (ioctl(s->ctl, DM_DEV_SUSPEND, &io) == 0)
		return 0;
	fprintf(stderr, "dm-stall: %s %s: %s\n", suspend ? "suspend" : "resume",
		s->name, strerror(errno));
	return -1;
}

static void mark(const struct stall *s, long n, const char *what)
{
	char line[128];
	int len;

	if (s->marker < 0)
		return;
	len = snprintf(line, sizeof(line), "wblab-stall %s %ld %s", s->name, n,
		       what);
	if (write(s->marker, line, len) < 0) {
		/* the stall goes on: stdout has its times */
	}
}

/* Sleep ms, or less if a stop signal comes: 1 if it came. */
static int wait_ms(const struct stall *s, long ms)
{
	double end = mono() + ms / 1e3;

	for (;;) {
		double left = end - mono();
		struct timespec ts;

		if (left <= 0)
			return 0;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		if (sigtimedwait(&s->stop, NULL, &ts) >= 0)
			return 1;
		if (errno != EINTR && errno != EAGAIN)
			return 1;
	}
}

static int one_stall(struct stall *s, long n, long suspend_ms)
{
	double asked, done, resume, resumed;
	int stop, rc = 0;

	asked = mono();
	mark(s, n, "suspend");
	if (dm_suspend(s, true))
		return -1;
	done = mono();
	mark(s, n, "suspended");
	stop = wait_ms(s, suspend_ms);
	resume = mono();
	mark(s, n, "resume");
	if (dm_suspend(s, false))
		rc = -1;
	resumed = mono();
	mark(s, n, "resumed");
	printf("%ld\t%.6f\t%.6f\t%.6f\t%.6f\n", n, asked, done, resume,
	       resumed);
	fflush(stdout);
	return rc ? rc : stop;
}

int dmstall_main(int argc, char **argv)
{
	struct stall s = { .ctl = -1, .marker = -1 };
	long after, suspend, resume, count, n;
	int rc = 0;

	if (argc != 6 || !argv[1][0] || strchr(argv[1], '/') ||
	    strlen(argv[1]) >= DM_NAME_LEN) {
		fprintf(stderr, "usage: wblab-agent dm-stall NAME AFTER_MS "
				"SUSPEND_MS RESUME_MS COUNT\n");
		return 2;
	}
	/* The bounds of the topology's stall: (spec/topology.c). */
	if (parse_arg(argv, 2, "AFTER_MS", 0, 600000, &after) ||
	    parse_arg(argv, 3, "SUSPEND_MS", 100, 60000, &suspend) ||
	    parse_arg(argv, 4, "RESUME_MS", 100, 600000, &resume) ||
	    parse_arg(argv, 5, "COUNT", 1, 100, &count))
		return 2;
	s.name = argv[1];
	sigemptyset(&s.stop);
	sigaddset(&s.stop, SIGTERM);
	sigaddset(&s.stop, SIGINT);
	sigaddset(&s.stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &s.stop, NULL);
	/* Nothing of ours may wait for a page while the device is stopped. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("dm-stall: mlockall");
	s.ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (s.ctl < 0) {
		fprintf(stderr, "dm-stall: /dev/mapper/control: %s\n",
			strerror(errno));
		return 1;
	}
	s.marker = open(TRACE_MARKER, O_WRONLY | O_CLOEXEC);
	printf("stall\tsuspend_asked_s\tsuspended_s\tresume_asked_s\tresumed_s\n");
	fflush(stdout);
	if (wait_ms(&s, after))
		goto out;
	for (n = 1; n <= count; n++) {
		rc = one_stall(&s, n, suspend);
		if (rc || (n < count && wait_ms(&s, resume)))
			break;
	}
out:
	close(s.ctl);
	if (s.marker >= 0)
		close(s.marker);
	return rc < 0 ? 1 : 0;
}
