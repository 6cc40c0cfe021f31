// SPDX-License-Identifier: GPL-2.0
/* /proc/vmstat and /proc/meminfo snapshots: pure parsing. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "collect/vmstat.h"
#include "util/log.h"

size_t kvset_parse(struct kvset *set, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t alloc = 0;

	memset(set, 0, sizeof(*set));
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end;
		const char *q = p;
		struct kv kv;
		size_t n = 0;
		char *e;
		char num[32];

		while (q < le &&
		       (isalnum((unsigned char)*q) || *q == '_' || *q == '(' ||
			*q == ')') &&
		       n < sizeof(kv.name) - 1)
			kv.name[n++] = *q++;
		kv.name[n] = '\0';
		if (q < le && *q == ':')
			q++;
		while (q < le && *q == ' ')
			q++;
		n = 0;
		while (q < le &&
		       (isdigit((unsigned char)*q) || (*q == '-' && !n)) &&
		       n < sizeof(num) - 1)
			num[n++] = *q++;
		num[n] = '\0';
		p = nl ? nl + 1 : end;
		if (!kv.name[0] || !n)
			continue;
		kv.value = strtoll(num, &e, 10);
		if (set->n == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			set->v = xrealloc(set->v, alloc * sizeof(*set->v));
		}
		set->v[set->n++] = kv;
	}
	return set->n;
}

void kvset_free(struct kvset *set)
{
	free(set->v);
	memset(set, 0, sizeof(*set));
}

int kvset_has(const struct kvset *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return 1;
	return 0;
}

long long kvset_get(const struct kvset *s, const char *name, long long def)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return s->v[i].value;
	return def;
}

json_object *vmstat_delta_json(const struct kvset *before,
			       const struct kvset *after)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < after->n; i++) {
		const char *name = after->v[i].name;

		if (!kvset_has(before, name))
			continue;
		json_object_object_add(
			o, name,
			json_object_new_int64(after->v[i].value -
					      kvset_get(before, name, 0)));
	}
	return o;
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
		    strstr(k + n, "throttle"))
			continue;
		s += a->v[i].value - kvset_get(b, k, a->v[i].value);
	}
	return s;
}
