// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the stack tracer's files, DEBUG_STACK_USAGE console lines and
 * the stack sites' instance traces and ring-buffer stats.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/stack.h"
#include "collect/stackwrite.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = xstrndup((const char *)data, size);
	size_t n = strlen(t);
	const char *nl = memchr(t, '\n', n);
	size_t ml = nl ? (size_t)(nl - t) : n;
	json_object *o;

	o = stack_trace_summary(t, n, t, ml, 0, NULL);
	json_object_put(o);
	o = stack_console_usage(t, n, 0, NULL);
	json_object_put(o);
	{
		struct stack_rw_input in = { .trace = t,
					     .trace_len = n,
					     .leaf = t + ml,
					     .leaf_len = n - ml,
					     .stats = t,
					     .stats_len = n,
					     .thread_size = 8192 };

		o = stack_reclaim_write(&in);
		json_object_put(o);
	}
	free(t);
	return 0;
}
