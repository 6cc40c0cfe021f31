/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_STACK_H
#define WBLAB_STACK_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

struct numsrc;

/*
 * A figure of the guest's that is not a number in range leaves its line
 * out and is recorded in ns (util/num.h; NULL: not recorded).
 */

/*
 * Kernel stack size on x86_64 without KASAN since v3.15: what a figure is
 * a share of when the kernel's own THREAD_SIZE is unknown. Every parser
 * below takes the THREAD_SIZE of the kernel that ran (0: unknown, this
 * default); collectors-console.c reads it from the guest's /proc/kallsyms.
 */
#define STACK_THREAD_SIZE 16384
/*
 * thread_size if it is one (a power of two, 4-64 KiB), else
 * STACK_THREAD_SIZE: 0 means unknown.
 */
long stack_thread_size(long thread_size);

/*
 * The stack tracer's record: stack_trace (the deepest chain seen since
 * stack_max_size was reset) and stack_max_size (bytes; NULL to take the
 * chain's first depth). Returns {max_bytes, thread_size, fraction,
 * entries, chain: [{depth, size, location}]}, or NULL if text holds no
 * chain and no size.
 */
json_object *stack_trace_summary(const char *trace, size_t len,
				 const char *max_size, size_t max_len,
				 long thread_size, struct numsrc *ns);

/*
 * DEBUG_STACK_USAGE's "COMM (PID) used greatest stack depth: N bytes left"
 * console lines: {count, min_bytes_left, max_depth_bytes, fraction,
 * lines: [{comm, pid, bytes_left, depth_bytes}]} (count 0 when none).
 */
json_object *stack_console_usage(const char *console, size_t len,
				 long thread_size, struct numsrc *ns);

/*
 * Console markers the plan writes to the kernel log (collectors.c): the
 * workload's window and the SysRq-t task dump at its end.
 */
#define STACK_MARK_BEGIN "wblab: workload begin"
#define STACK_MARK_END "wblab: workload end"
#define STACK_MARK_SYSRQ "wblab: sysrq-t"

/*
 * The part of console between the line holding begin and the line holding
 * end (to the end of text when end is missing). Returns false, leaving
 * *out and *out_len unset, when begin is not there.
 */
bool stack_console_window(const char *console, size_t len, const char *begin,
			  const char *end, const char **out, size_t *out_len);

/*
 * SysRq-t's "task:COMM state:S stack:FREE pid:N ..." lines (FREE is
 * DEBUG_STACK_USAGE's never-used bytes; 0 without it): {tasks,
 * kswapd: [..], workload: [..], deepest: {..}}, each task {comm, pid,
 * free_bytes, depth_bytes}; workload tasks are wblab-hog and fio. NULL when
 * there are no task lines or every free figure is 0.
 */
json_object *stack_sysrq_tasks(const char *console, size_t len,
			       long thread_size, struct numsrc *ns);

#endif
