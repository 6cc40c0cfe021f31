// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the stack tracer's files and DEBUG_STACK_USAGE console lines. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/stack.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = xstrndup((const char *)data, size);
	size_t n = strlen(t);
	const char *nl = memchr(t, '\n', n);
	size_t ml = nl ? (size_t)(nl - t) : n;
	json_object *o;

	o = stack_trace_summary(t, n, t, ml, NULL);
	json_object_put(o);
	o = stack_console_usage(t, n, NULL);
	json_object_put(o);
	free(t);
	return 0;
}
