// SPDX-License-Identifier: GPL-2.0
/*
 * run.json's spec and plan decoded (results/cell.h struct run_spec): what
 * a matrix run was asked, for the engine's --resume.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/cell.h"
#include "util/json.h"
#include "util/log.h"

/* Past this many, a record from elsewhere is not believed. */
#define RUN_LIST_MAX 100000

/* The string elements of the array at path. */
static void strings_at(json_object *o, const char *path, struct strvec *out)
{
	json_object *a;
	size_t n = json_list_at(o, path, RUN_LIST_MAX, &a);

	strvec_init(out);
	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(a, i);

		if (json_object_is_type(v, json_type_string))
			strvec_push(out, json_object_get_string(v));
	}
}

static void decode_sizes(json_object *spec, struct run_spec *s)
{
	json_object *a;
	size_t n = json_list_at(spec, "sizes", RUN_LIST_MAX, &a);

	s->sizes = n ? xzalloc(n * sizeof(*s->sizes)) : NULL;
	for (size_t i = 0; i < n; i++) {
		json_object *z = json_object_array_get_idx(a, i);

		s->sizes[i].memory_mib = json_int_at(z, "memory_mib", 0);
		s->sizes[i].vcpus = json_int_at(z, "vcpus", 0);
	}
	s->nr_sizes = n;
}

/* A run recorded before exclude: existed has none. */
static void decode_excludes(json_object *spec, struct run_spec *s)
{
	json_object *a;
	size_t n = json_list_at(spec, "exclude", RUN_LIST_MAX, &a);

	s->excludes = n ? xzalloc(n * sizeof(*s->excludes)) : NULL;
	for (size_t i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(a, i);

		strings_at(x, "kernels", &s->excludes[i].kernels);
		strings_at(x, "topologies", &s->excludes[i].topologies);
		strings_at(x, "workloads", &s->excludes[i].workloads);
	}
	s->nr_excludes = n;
}

static void decode_thresholds(json_object *spec, struct run_spec *s)
{
	json_object *th = json_path(spec, "thresholds");
	size_t n = json_object_is_type(th, json_type_object) ?
			   (size_t)json_object_object_length(th) :
			   0;

	s->thresholds = n ? xzalloc(n * sizeof(*s->thresholds)) : NULL;
	if (!n)
		return;
	json_object_object_foreach(th, key, val)
	{
		struct run_threshold *t = &s->thresholds[s->nr_thresholds++];
		double pct = json_num_at(val, "change_pct");

		t->metric = xstrdup(key);
		t->change_pct = isnan(pct) ? 0 : pct;
		t->bad = json_dup_at(val, "bad");
	}
}

static void decode_plan(json_object *run, struct run_spec *s)
{
	json_object *a;
	size_t n = json_list_at(run, "plan", RUN_LIST_MAX, &a);

	s->plan = n ? xzalloc(n * sizeof(*s->plan)) : NULL;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i);
		struct run_plan_entry *c = &s->plan[s->nr_plan];

		if (!json_str_at(o, "id") || !json_str_at(o, "kernel") ||
		    !json_str_at(o, "topology") || !json_str_at(o, "workload"))
			continue;
		c->id = json_dup_at(o, "id");
		c->kernel = json_dup_at(o, "kernel");
		c->topology = json_dup_at(o, "topology");
		c->workload = json_dup_at(o, "workload");
		c->levers = json_dup_at(o, "levers");
		c->rep = json_int_at(o, "rep", 0);
		c->memory_mib = json_int_at(o, "memory_mib", 0);
		c->vcpus = json_int_at(o, "vcpus", 0);
		c->block = json_int_at(o, "block", 0);
		s->nr_plan++;
	}
}

void run_spec_decode(json_object *run, struct run_spec *s)
{
	json_object *spec = json_path(run, "spec");

	memset(s, 0, sizeof(*s));
	s->recorded = json_object_is_type(spec, json_type_object) &&
		      json_path(spec, "topologies") && json_path(run, "plan");
	s->matrix = json_dup_at(spec, "matrix");
	s->image = json_dup_at(spec, "image");
	s->accel_wanted = json_dup_at(spec, "accel_wanted");
	s->cmdline_extra = json_dup_at(spec, "cmdline_extra");
	s->seed = json_dup_at(spec, "seed");
	/* A run from before the levers: none, every cell at the defaults. */
	strings_at(spec, "kernels", &s->kernels);
	strings_at(spec, "topologies", &s->topologies);
	strings_at(spec, "workloads", &s->workloads);
	strings_at(spec, "levers", &s->levers);
	s->reps = json_int_at(spec, "reps", 0);
	s->timeout_s = json_int_at(spec, "timeout_s", 0);
	s->boot_timeout_s = json_int_at(spec, "boot_timeout_s", -1);
	s->deadline_s = json_int_at(spec, "deadline_s", 0);
	decode_sizes(spec, s);
	decode_excludes(spec, s);
	decode_thresholds(spec, s);
	decode_plan(run, s);
}

void run_spec_release(struct run_spec *s)
{
	free(s->matrix);
	free(s->image);
	free(s->accel_wanted);
	free(s->cmdline_extra);
	free(s->seed);
	strvec_clear(&s->kernels);
	strvec_clear(&s->topologies);
	strvec_clear(&s->workloads);
	strvec_clear(&s->levers);
	free(s->sizes);
	for (size_t i = 0; i < s->nr_excludes; i++) {
		strvec_clear(&s->excludes[i].kernels);
		strvec_clear(&s->excludes[i].topologies);
		strvec_clear(&s->excludes[i].workloads);
	}
	free(s->excludes);
	for (size_t i = 0; i < s->nr_thresholds; i++) {
		free(s->thresholds[i].metric);
		free(s->thresholds[i].bad);
	}
	free(s->thresholds);
	for (size_t i = 0; i < s->nr_plan; i++) {
		free(s->plan[i].id);
		free(s->plan[i].kernel);
		free(s->plan[i].topology);
		free(s->plan[i].workload);
		free(s->plan[i].levers);
	}
	free(s->plan);
	memset(s, 0, sizeof(*s));
}
