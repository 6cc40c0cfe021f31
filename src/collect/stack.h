/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_STACK_H
#define WBLAB_STACK_H

#include <json-c/json.h>
#include <stddef.h>

/* Kernel stack size on x86_64 (without KASAN): the denominator of fractions. */
#define STACK_THREAD_SIZE 16384

/*
 * The stack tracer's record: stack_trace (the deepest chain seen since
 * stack_max_size was reset) and stack_max_size (bytes; NULL to take the
 * chain's first depth). Returns {max_bytes, thread_size, fraction,
 * entries, chain: [{depth, size, location}]}, or NULL if text holds no
 * chain and no size.
 */
json_object *stack_trace_summary(const char *trace, size_t len,
				 const char *max_size, size_t max_len);

/*
 * DEBUG_STACK_USAGE's "COMM (PID) used greatest stack depth: N bytes left"
 * console lines: {count, min_bytes_left, max_depth_bytes, fraction,
 * lines: [{comm, pid, bytes_left, depth_bytes}]} (count 0 when none).
 */
json_object *stack_console_usage(const char *console, size_t len);

#endif
