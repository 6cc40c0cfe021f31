/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_TRACELINE_H
#define WBLAB_TRACELINE_H

#include <stdbool.h>
#include <stddef.h>

struct numsrc;

/* One parsed line of `trace` output. Pointers point into the line. */
struct trace_line {
	char comm[32];
	int pid;
	int cpu;
	double ts; /* seconds */
	const char *event; /* event name, not NUL-terminated */
	size_t event_len;
	const char *args; /* the rest of the line, not NUL-terminated */
	size_t args_len;
	struct numsrc *ns; /* where a bad number in args is recorded */
};

/*
 * Parse one line (without its newline, in NUL-terminated text); false for
 * headers and junk. A pid or CPU that does not fit is recorded in ns (may
 * be NULL), which trace_arg_num() records into too.
 */
bool trace_parse_line(const char *line, size_t len, struct trace_line *out,
		      struct numsrc *ns);

/*
 * Numbers in the guest's trace are whatever the guest wrote: sums of them
 * saturate (trace_add) instead of overflowing, and counts from the ring
 * buffer's stats are clamped to +-TRACE_NUM_MAX (fuzz_trace found a sum
 * of writeback_written pages that overflowed).
 */
#define TRACE_NUM_MAX (1LL << 40)
long long trace_clamp(long long v);
void trace_add(long long *acc, long long v);
/*
 * Value of "key=NUMBER" in args (key must start a field; decimal or 0x
 * hex that fits a long long: nr_pages of an unbounded work is LONG_MAX);
 * false if absent, or if NUMBER is not one (recorded in l->ns). trace_arg_str copies "key=VALUE" up to the next space.
 */
bool trace_arg_num(const struct trace_line *l, const char *key, long long *v);
bool trace_arg_str(const struct trace_line *l, const char *key, char *buf,
		   size_t len);

/* The head of args, NUL-terminated, in a bounded buffer (size > 0). */
void trace_args_copy(const struct trace_line *l, char *buf, size_t size);

#endif
