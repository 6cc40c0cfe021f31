/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_VMSTAT_H
#define WBLAB_VMSTAT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Guest text is bounded: at most KVSET_MAX entries (real vmstat has ~200),
 * values within +-KVSET_VALUE_MAX (2^53: exact in any JSON reader, and a
 * difference of two cannot overflow); sums saturate at KVSET_SUM_MAX.
 */
#define KVSET_MAX 4096
#define KVSET_VALUE_MAX (1LL << 53)
#define KVSET_SUM_MAX (1LL << 61)

/* "name value" lines, as in /proc/vmstat (and "Name: value kB" in meminfo). */
struct kv {
	char name[48];
	long long value;
};

struct kvset {
	struct kv *v;
	size_t n;
	size_t *idx; /* v's indices sorted by name */
	bool truncated; /* more than KVSET_MAX entries */
};

/* Parse text into set; malformed lines are skipped. Returns entries read. */
size_t kvset_parse(struct kvset *set, const char *text, size_t len);
void kvset_free(struct kvset *set);
/* Value of name, or def when absent. */
long long kvset_get(const struct kvset *s, const char *name, long long def);
int kvset_has(const struct kvset *s, const char *name);
/*
 * after - before of one counter. Where the kernel splits it (allocstall_*,
 * pgscan_direct_* on older kernels), the parts are summed, never *_throttle.
 */
long long vmstat_counter_delta(const struct kvset *before,
			       const struct kvset *after, const char *name);
/* {"name": after - before} for every counter in both. */
json_object *vmstat_delta_json(const struct kvset *before,
			       const struct kvset *after);

#endif
