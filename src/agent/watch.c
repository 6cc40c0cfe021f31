// SPDX-License-Identifier: GPL-2.0
/*
 * wblab-agent watch WINDOW_S GAP_S: stall evidence, not a timer.
 *
 * Once a second the watcher reads progress counters: pswpout and pgpgout
 * (/proc/vmstat; counted at submission, so only while no device holds a
 * write in flight), every block device's completed reads and writes
 * (/sys/block/DEV/stat), and whether tasks wait: /proc/stat's
 * procs_blocked (tasks waiting for I/O) or, when none does, the tasks in
 * D state and the workload's own progress (page faults and bytes read
 * from or sent to storage by the tasks in sessions that started after the
 * watcher: the workload's steps). When nothing moved for WINDOW_S seconds
 * while tasks waited, it writes a marker line to /dev/kmsg and triggers
 * SysRq-t, waits GAP_S seconds and, if still nothing moved, does so
 * again; after that second dump it keeps reading until something moves
 * and says so ("wblab: stall ended: progress after N s"), as a stall
 * that ends is not a deadlock. The console parser
 * (collect/console-stall.c) turns tasks in D state at the same wait site
 * in both dumps into a `stall` event: which tasks wait where is read
 * from the dumps on the host, not here. The marker lines carry the
 * counters and each device's requests in flight (/sys/block/DEV/inflight),
 * so requests issued and never completed in the window show. The
 * readings and the decision: agent/stallwatch.c.
 *
 * Why so careful about memory: in the swap-over-iSCSI deadlock the
 * sampler blocked in throttle_direct_reclaim while writing its tmpfs
 * file, and the watcher itself in md's mempool and in
 * throttle_direct_reclaim while it opened /proc/PID/stat for a scan
 * (proc_alloc_inode; run 20261205-033306-2dd9, two attempts lost their
 * evidence). So: the stack is touched and everything locked in memory
 * before watching, the files it reads are opened once, tasks waiting for
 * I/O are counted without opening anything, and it is an IO_FLUSHER
 * (PF_MEMALLOC_NOIO): an allocation it still makes (writing to /dev/kmsg
 * kmallocs the line) cannot wait for swap-out, and direct reclaim
 * throttles it for at most a second.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "agent/io.h"
#include "agent/proto.h"
#include "agent/stallwatch.h"
#include "agent/watch.h"

#ifndef PR_SET_IO_FLUSHER
#define PR_SET_IO_FLUSHER 57
#endif

/* More stack than a tick uses (the /proc scan's buffers: under 2 KiB). */
#define WATCH_STACK (64 * 1024)

/* Fault the stack in now, so mlockall(MCL_CURRENT) keeps it resident. */
static void __attribute__((noinline)) touch_stack(void)
{
	volatile char pad[WATCH_STACK];

	memset((char *)pad, 0, sizeof(pad));
}

static int usage(void)
{
	say("watch: usage: watch WINDOW_S GAP_S");
	return 2;
}

int watch_main(int argc, char **argv)
{
	static struct watch w;
	unsigned int window, gap;

	if (argc != 3 || proto_uint(argv[1], 3600, &window) ||
	    proto_uint(argv[2], 3600, &gap) || !window || !gap)
		return usage();
	prctl(PR_SET_NAME, "wblab-watch");
	if (prctl(PR_SET_IO_FLUSHER, 1, 0, 0, 0))
		say("watch: PR_SET_IO_FLUSHER: %s", strerror(errno));
	if (watch_open(&w, "", window, gap, getsid(0))) {
		say("watch: cannot open /proc/vmstat, /proc/stat or /dev/kmsg");
		return 1;
	}
	touch_stack();
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		say("watch: mlockall: %s", strerror(errno));
	do
		sleep(1);
	while (!watch_tick(&w));
	/*
	 * Evidence taken: say whether the standstill ends, with the same
	 * pread()s of files opened before it, then stay out of the way
	 * until the phase ends.
	 */
	while (!watch_ended(&w))
		sleep(1);
	for (;;)
		pause();
	return 0;
}
