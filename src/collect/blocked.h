/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_BLOCKED_H
#define WBLAB_BLOCKED_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * One task line of a SysRq-t dump, "[ 1.2] task:kswapd0 state:D
 * stack:13960 pid:54 ...": the comm, the state letter, the free stack
 * figure (DEBUG_STACK_USAGE's never-used bytes; 0 without it, -1 when
 * the line has no "stack:") and the pid (-1 when absent). False for any
 * other line.
 */
struct sysrq_task {
	char comm[32];
	char state;
	long long stack_free;
	int pid;
};

struct numsrc;

/* A pid or free figure that is not a number is -1 and recorded in ns. */
bool sysrq_task_line(const char *line, size_t len, struct sysrq_task *t,
		     struct numsrc *ns);

/*
 * The other lines of a task's record: a reliable frame's function name
 * ("? " frames are not; 0 for any other line), whether a function is the
 * scheduler's (the wait site is the first frame past those), and a
 * kworker's work function from its "Workqueue: " line (0 for an idle
 * worker's "0x0" or any other line). Lines may carry their timestamp.
 */
int sysrq_frame(const char *line, size_t len, char *name, size_t nsz);
bool sysrq_sched_frame(const char *name);
size_t sysrq_work(const char *line, size_t len, const char **fn);

/* Guest text: at most this many tasks listed, this many frames each. */
#define BLOCKED_MAX_TASKS 32
#define BLOCKED_MAX_FRAMES 24

/*
 * The tasks in D state in a SysRq-t dump ("task:COMM state:D ... pid:N"
 * and its Call Trace) and where each waits: the first reliable frame
 * past the scheduler's (schedule*, __schedule, io_schedule*).
 *
 * Why: a workload step that timed out while kswapd, raid1d and
 * virtio-net's refill worker all wait in mempool_alloc is a memory
 * deadlock, not a slow workload, and the hung-task detector never says
 * so: mempool_alloc sleeps in 5 s slices, and every wakeup is a context
 * switch that resets the detector.
 *
 * Returns {count, tasks: [{comm, pid, work, wait, frames: [..]}]}: count
 * is every D-state task, tasks the first BLOCKED_MAX_TASKS; work is a
 * kworker's work function (its "Workqueue:" line), absent for others;
 * "?" frames are left out. count 0 when the text has none.
 */
json_object *blocked_tasks(const char *console, size_t len, struct numsrc *ns);

#endif
