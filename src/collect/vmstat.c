// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/vmstat and /proc/meminfo snapshots: pure parsing. The text is the
 * guest's: entries are capped, names that do not fit are dropped rather
 * than truncated (a truncated name could alias a real counter), values
 * are bounded so differences and sums cannot overflow, and look-ups go
 * through a sorted index so a delta costs n log n, not n * m.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "collect/vmstat.h"
#include "util/log.h"
#include "util/num.h"

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '(' || c == ')';
}

/* One "name[:] value" line into kv; false if it is not one. */
static bool parse_line(const char *p, const char *le, struct kv *kv)
{
	const char *q = p;
	char val[64];
	size_t n;

	while (q < le && name_char(*q))
		q++;
	if (q == p || (size_t)(q - p) >= sizeof(kv->name))
		return false;
	memcpy(kv->name, p, q - p);
	kv->name[q - p] = '\0';
	if (q < le && *q == ':')
		q++;
	if (q >= le)
		return false;
	/*
	 * The guest's text is not NUL-terminated where the line ends (nor
	 * at all, from a fuzzer): strtoll must see a bounded copy. A value
	 * field longer than the copy is no number of /proc/vmstat's.
	 */
	n = le - q < (ptrdiff_t)sizeof(val) ? (size_t)(le - q) :
					      sizeof(val) - 1;
	memcpy(val, q, n);
	val[n] = '\0';
	return !num_ll(NULL, val, 10, -KVSET_VALUE_MAX, KVSET_VALUE_MAX,
		       &kv->value, NULL);
}

static const struct kvset *sort_set;

static int cmp_idx(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(sort_set->v[i].name, sort_set->v[j].name);

	/* Ties by position: a look-up finds the first of duplicate names. */
	return c ? c : i < j ? -1 : i > j;
}

size_t kvset_parse(struct kvset *set, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t alloc = 0;

	memset(set, 0, sizeof(*set));
	while (p < end && set->n < KVSET_MAX) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end;
		struct kv kv;

		if (parse_line(p, le, &kv)) {
			if (set->n == alloc) {
				alloc = alloc ? 2 * alloc : 256;
				set->v = xrealloc(set->v,
						  alloc * sizeof(*set->v));
			}
			set->v[set->n++] = kv;
		}
		p = nl ? nl + 1 : end;
	}
	set->truncated = p < end;
	set->idx = xmalloc((set->n ? set->n : 1) * sizeof(*set->idx));
	for (size_t i = 0; i < set->n; i++)
		set->idx[i] = i;
	/* qsort has no context argument; parsing is single-threaded. */
	sort_set = set;
	qsort(set->idx, set->n, sizeof(*set->idx), cmp_idx);
	sort_set = NULL;
	return set->n;
}

void kvset_free(struct kvset *set)
{
	free(set->v);
	free(set->idx);
	memset(set, 0, sizeof(*set));
}

/* Index (into v) of the first entry named name, or -1. */
static long find(const struct kvset *s, const char *name)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->v[s->idx[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && !strcmp(s->v[s->idx[lo]].name, name) ?
		       (long)s->idx[lo] :
		       -1;
}

int kvset_has(const struct kvset *s, const char *name)
{
	return s->n && find(s, name) >= 0;
}

long long kvset_get(const struct kvset *s, const char *name, long long def)
{
	long i = s->n ? find(s, name) : -1;

	return i >= 0 ? s->v[i].value : def;
}

json_object *vmstat_delta_json(const struct kvset *before,
			       const struct kvset *after)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < after->n; i++) {
		const char *name = after->v[i].name;
		long j = before->n ? find(before, name) : -1;

		/* Duplicates in after: the first one counts, as in kvset_get. */
		if (j < 0 || find(after, name) != (long)i)
			continue;
		json_object_object_add(
			o, name,
			json_object_new_int64(after->v[i].value -
					      before->v[j].value));
	}
	return o;
}

static long long add_sat(long long s, long long d)
{
	long long r;

	if (__builtin_add_overflow(s, d, &r))
		return d > 0 ? KVSET_SUM_MAX : -KVSET_SUM_MAX;
	return r;
}

long long vmstat_counter_delta(const struct kvset *b, const struct kvset *a,
			       const char *name)
{
	size_t n = strlen(name);
	long long s = 0;

	if (kvset_has(a, name))
		return kvset_get(a, name, 0) -
		       kvset_get(b, name, kvset_get(a, name, 0));
	for (size_t i = 0; i < a->n; i++) {
		const char *k = a->v[i].name;

		if (strncmp(k, name, n) || k[n] != '_' ||
		    strstr(k + n, "throttle") || find(a, k) != (long)i)
			continue;
		s = add_sat(s, a->v[i].value - kvset_get(b, k, a->v[i].value));
	}
	return s;
}
