// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the tracefs trace summary (with its stats captured after a NUL). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/trace.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = xstrndup((const char *)data, size);
	size_t n = strlen(t);
	const char *stats = n < size ? (const char *)data + n + 1 : NULL;
	char *s = stats ? xstrndup(stats, size - n - 1) : NULL;
	json_object *o;

	o = trace_summary_dev(t, n, s, s ? strlen(s) : 0, "254:16", NULL);
	json_object_to_json_string(o);
	json_object_put(o);
	free(s);
	free(t);
	return 0;
}
