// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: vmstat/meminfo key-value sets (before and after: the input
 * split at its first NUL or in half), their deltas and Ops, PSI and the
 * sampler's time series.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/ops.h"
#include "collect/vmstat.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;
	const char *nul = memchr(t, '\0', size);
	size_t a = nul ? (size_t)(nul - t) : size / 2;
	size_t b = size - a - (nul ? 1 : 0);
	char *copy = xmalloc(size + 1); /* parsers get NUL-terminated text */
	struct kvset before, after;
	json_object *o;

	memcpy(copy, t, size);
	copy[size] = '\0';
	kvset_parse(&before, t, a);
	kvset_parse(&after, t + size - b, b);
	o = vmstat_delta_json(&before, &after);
	json_object_put(o);
	o = vmstat_ops_json(&before, &after, 12.5);
	json_object_put(o);
	vmstat_counter_delta(&before, &after, "allocstall");
	kvset_free(&before);
	kvset_free(&after);
	o = psi_json(copy, a, copy + size - b, b, NULL);
	json_object_put(o);
	o = timeseries_summary(copy, size);
	if (o)
		json_object_to_json_string(o);
	json_object_put(o);
	free(copy);
	return 0;
}
