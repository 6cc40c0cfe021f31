// SPDX-License-Identifier: GPL-2.0
/*
 * The trace summary's small tables (collect/trace-int.h): counts by name
 * and state by pid, both bounded however many names and pids the guest's
 * trace holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/trace-int.h"
#include "util/json.h"
#include "util/log.h"
#include "util/utf8.h"

struct named *trace_ntab_get(struct ntab *t, const char *name, size_t len)
{
	char key[64];

	snprintf(key, sizeof(key), "%.*s",
		 (int)utf8_cut(name, len, sizeof(key) - 1), name);
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, key))
			return &t->v[i];
	/* Names come from the guest: past a sane number, lump them. */
	if (t->n >= NTAB_MAX && strcmp(key, "(other)"))
		return trace_ntab_get(t, "(other)", 7);
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 32;
		t->v = xrealloc(t->v, t->alloc * sizeof(*t->v));
	}
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	snprintf(t->v[t->n].name, sizeof(t->v[t->n].name), "%s", key);
	return &t->v[t->n++];
}

static size_t pid_hash(int pid, size_t nslots)
{
	return ((unsigned int)pid * 2654435761u) & (nslots - 1);
}

static void tasks_rehash(struct tasks *t)
{
	free(t->slot);
	t->nslots = t->nslots ? 2 * t->nslots : 256;
	t->slot = xmalloc(t->nslots * sizeof(*t->slot));
	memset(t->slot, 0xff, t->nslots * sizeof(*t->slot));
	for (size_t i = 0; i < t->n; i++) {
		size_t h = pid_hash(t->v[i].pid, t->nslots);

		while (t->slot[h] >= 0)
			h = (h + 1) & (t->nslots - 1);
		t->slot[h] = i;
	}
}

struct task *trace_task_get(struct tasks *t, int pid)
{
	size_t h;

	if (2 * (t->n + 1) > t->nslots)
		tasks_rehash(t);
	for (h = pid_hash(pid, t->nslots); t->slot[h] >= 0;
	     h = (h + 1) & (t->nslots - 1))
		if (t->v[t->slot[h]].pid == pid)
			return &t->v[t->slot[h]];
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 64;
		t->v = xrealloc(t->v, t->alloc * sizeof(*t->v));
	}
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	t->v[t->n].pid = pid;
	t->v[t->n].wb_pages = -1;
	t->slot[h] = t->n;
	return &t->v[t->n++];
}

json_object *trace_ntab_json(const struct ntab *t, const char *ka,
			     const char *kb)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < t->n; i++) {
		json_object *r = json_object_new_object();

		json_put_int(r, ka, t->v[i].a);
		json_put_int(r, kb, t->v[i].b);
		json_put(o, t->v[i].name, r);
	}
	return o;
}
