// SPDX-License-Identifier: GPL-2.0
/*
 * The run's record: run.json carries the matrix, the seed, the options
 * that shape results and the whole plan in order, so --resume and
 * add-reps continue exactly the run that was started.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/engine.h"
#include "results/reader.h"
#include "util/build.h"
#include "util/json.h"
#include "util/log.h"

static void copy_list(struct spec_strlist *dst, const struct spec_strlist *src)
{
	for (size_t i = 0; i < src->n; i++)
		spec_strlist_add(dst, src->v[i]);
}

static char *dup0(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void engine_copy_spec(struct matrix_spec *d, const struct matrix_spec *s)
{
	memset(d, 0, sizeof(*d));
	d->name = dup0(s->name ? s->name : "run");
	d->path = dup0(s->path);
	d->description = dup0(s->description);
	copy_list(&d->kernels, &s->kernels);
	copy_list(&d->topologies, &s->topologies);
	copy_list(&d->workloads, &s->workloads);
	copy_list(&d->levers, &s->levers);
	d->reps = s->reps > 0 ? s->reps : 1;
	d->image = xstrdup(s->image ? s->image : SPEC_DEFAULT_IMAGE);
	for (size_t i = 0; i < s->nr_sizes; i++)
		matrix_spec_add_size(d, s->sizes[i].memory, s->sizes[i].vcpus);
	if (!d->nr_sizes)
		matrix_spec_add_size(d, 0, 0);
	d->thresholds =
		xzalloc((s->nr_thresholds + 1) * sizeof(*d->thresholds));
	for (size_t i = 0; i < s->nr_thresholds; i++) {
		d->thresholds[i].row = s->thresholds[i].row;
		d->thresholds[i].metric = xstrdup(s->thresholds[i].metric);
		d->thresholds[i].change_pct = s->thresholds[i].change_pct;
		d->thresholds[i].bad = xstrdup(s->thresholds[i].bad);
	}
	d->nr_thresholds = s->nr_thresholds;
	/* Without them the run is the full product (and run.json says so). */
	d->excludes = s->nr_excludes ?
			      xzalloc(s->nr_excludes * sizeof(*d->excludes)) :
			      NULL;
	for (size_t i = 0; i < s->nr_excludes; i++) {
		copy_list(&d->excludes[i].kernels, &s->excludes[i].kernels);
		copy_list(&d->excludes[i].topologies,
			  &s->excludes[i].topologies);
		copy_list(&d->excludes[i].workloads, &s->excludes[i].workloads);
	}
	d->nr_excludes = s->nr_excludes;
}

static json_object *JS(const char *s)
{
	return json_object_new_string(s ? s : "");
}

static json_object *list_json(const struct spec_strlist *l)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < l->n; i++)
		json_object_array_add(a, JS(l->v[i]));
	return a;
}

static json_object *excludes_json(const struct matrix_spec *m)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < m->nr_excludes; i++) {
		const struct matrix_exclude *x = &m->excludes[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "kernels", list_json(&x->kernels));
		json_object_object_add(o, "topologies",
				       list_json(&x->topologies));
		json_object_object_add(o, "workloads",
				       list_json(&x->workloads));
		json_object_array_add(a, o);
	}
	return a;
}

json_object *engine_spec_json(const struct engine *e)
{
	const struct matrix_spec *m = &e->m;
	json_object *o = json_object_new_object();
	json_object *sizes = json_object_new_array();
	json_object *th = json_object_new_object();

	json_object_object_add(o, "matrix", JS(m->name));
	if (m->path)
		json_object_object_add(o, "matrix_file", JS(m->path));
	json_object_object_add(o, "kernels", list_json(&m->kernels));
	/* One topology and workload: the fields `wblab run` always had. */
	json_object_object_add(o, "topology", JS(m->topologies.v[0]));
	json_object_object_add(o, "workload", JS(m->workloads.v[0]));
	json_object_object_add(o, "topologies", list_json(&m->topologies));
	json_object_object_add(o, "workloads", list_json(&m->workloads));
	json_object_object_add(o, "levers", list_json(&m->levers));
	json_object_object_add(o, "image", JS(m->image));
	json_object_object_add(o, "reps", json_object_new_int64(m->reps));
	json_object_object_add(o, "exclude", excludes_json(m));
	json_object_object_add(o, "memory_mib",
			       json_object_new_int64(m->sizes[0].memory));
	json_object_object_add(o, "vcpus",
			       json_object_new_int64(m->sizes[0].vcpus ?
							     m->sizes[0].vcpus :
							     2));
	for (size_t i = 0; i < m->nr_sizes; i++) {
		json_object *z = json_object_new_object();

		json_object_object_add(
			z, "memory_mib",
			json_object_new_int64(m->sizes[i].memory));
		json_object_object_add(
			z, "vcpus", json_object_new_int64(m->sizes[i].vcpus));
		json_object_array_add(sizes, z);
	}
	json_object_object_add(o, "sizes", sizes);
	for (size_t i = 0; i < m->nr_thresholds; i++) {
		json_object *t = json_object_new_object();

		json_object_object_add(
			t, "change_pct",
			json_object_new_double(m->thresholds[i].change_pct));
		json_object_object_add(t, "bad", JS(m->thresholds[i].bad));
		json_object_object_add(th, m->thresholds[i].metric, t);
	}
	json_object_object_add(o, "thresholds", th);
	json_object_object_add(o, "timeout_s",
			       json_object_new_int(e->o.timeout));
	json_object_object_add(o, "boot_timeout_s",
			       json_object_new_int(e->o.boot_timeout));
	json_object_object_add(o, "deadline_s",
			       json_object_new_int(e->o.deadline));
	json_object_object_add(o, "accel_wanted", JS(e->o.accel));
	json_object_object_add(o, "cmdline_extra", JS(e->o.cmdline_extra));
	json_object_object_add(o, "keep", json_object_new_boolean(e->o.keep));
	json_object_object_add(o, "max_retries",
			       json_object_new_int(e->o.max_retries));
	/* As a string: JSON numbers lose 64-bit integers in many readers. */
	{
		char seed[32];

		snprintf(seed, sizeof(seed), "%llu",
			 (unsigned long long)e->r->seed);
		json_object_object_add(o, "seed", JS(seed));
	}
	return o;
}

json_object *engine_plan_json(const struct engine *e)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < e->plan.n; i++) {
		const struct matrix_cell *c = &e->plan.cells[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "id", JS(c->id));
		json_object_object_add(o, "kernel", JS(c->kernel));
		json_object_object_add(o, "topology", JS(c->topology));
		json_object_object_add(o, "workload", JS(c->workload));
		json_object_object_add(o, "rep", json_object_new_int(c->rep));
		json_object_object_add(o, "memory_mib",
				       json_object_new_int64(c->memory));
		json_object_object_add(o, "vcpus",
				       json_object_new_int64(c->vcpus));
		json_object_object_add(o, "levers", JS(c->levers));
		json_object_object_add(o, "block",
				       json_object_new_int(c->block));
		json_object_array_add(a, o);
	}
	return a;
}

static void list_from(struct spec_strlist *l, const struct strvec *v)
{
	for (size_t i = 0; i < v->nr; i++)
		spec_strlist_add(l, v->v[i]);
}

static void excludes_from(struct matrix_spec *m, const struct run_spec *s)
{
	m->excludes = s->nr_excludes ?
			      xzalloc(s->nr_excludes * sizeof(*m->excludes)) :
			      NULL;
	for (size_t i = 0; i < s->nr_excludes; i++) {
		list_from(&m->excludes[i].kernels, &s->excludes[i].kernels);
		list_from(&m->excludes[i].topologies,
			  &s->excludes[i].topologies);
		list_from(&m->excludes[i].workloads, &s->excludes[i].workloads);
	}
	m->nr_excludes = s->nr_excludes;
}

static void thresholds_from(struct matrix_spec *m, const struct run_spec *s)
{
	for (size_t i = 0; i < s->nr_thresholds; i++) {
		const struct run_threshold *t = &s->thresholds[i];
		const struct metric *row = metric_by_old_key(t->metric);

		/* Recorded by a wblab with a metric this one lacks. */
		if (!row) {
			warn("run.json: spec.thresholds.%s: unknown metric, "
			     "left out",
			     t->metric);
			continue;
		}
		m->thresholds =
			xrealloc(m->thresholds, (m->nr_thresholds + 1) *
							sizeof(*m->thresholds));
		m->thresholds[m->nr_thresholds].row = row;
		m->thresholds[m->nr_thresholds].metric = xstrdup(row->name);
		m->thresholds[m->nr_thresholds].change_pct = t->change_pct;
		m->thresholds[m->nr_thresholds].bad =
			xstrdup(t->bad ? t->bad : "any");
		m->nr_thresholds++;
	}
}

static void spec_from(struct engine *e, const struct run_spec *s)
{
	struct matrix_spec *m = &e->m;

	memset(m, 0, sizeof(*m));
	m->name = xstrdup(s->matrix ? s->matrix : "run");
	list_from(&m->kernels, &s->kernels);
	list_from(&m->topologies, &s->topologies);
	list_from(&m->workloads, &s->workloads);
	/* A run from before the levers: none, every cell at the defaults. */
	list_from(&m->levers, &s->levers);
	m->reps = s->reps;
	m->image = xstrdup(s->image ? s->image : SPEC_DEFAULT_IMAGE);
	for (size_t i = 0; i < s->nr_sizes; i++)
		matrix_spec_add_size(m, s->sizes[i].memory_mib,
				     s->sizes[i].vcpus);
	if (!m->nr_sizes)
		matrix_spec_add_size(m, 0, 0);
	excludes_from(m, s);
	thresholds_from(m, s);
	/* Options that shape results stay those the run started with. */
	e->o.timeout = s->timeout_s;
	if (s->boot_timeout_s >= 0)
		e->o.boot_timeout = s->boot_timeout_s;
	e->o.deadline = s->deadline_s;
	if (s->accel_wanted)
		e->o.accel = s->accel_wanted;
	if (s->cmdline_extra && *s->cmdline_extra)
		e->o.cmdline_extra = s->cmdline_extra;
	e->r->seed = strtoull(s->seed ? s->seed : "0", NULL, 10);
}

static void plan_from(struct matrix_plan *p, const struct run_spec *s)
{
	memset(p, 0, sizeof(*p));
	p->cells = xzalloc((s->nr_plan + 1) * sizeof(*p->cells));
	for (size_t i = 0; i < s->nr_plan; i++) {
		const struct run_plan_entry *o = &s->plan[i];
		struct matrix_cell *c = &p->cells[p->n++];

		c->id = xstrdup(o->id);
		c->kernel = xstrdup(o->kernel);
		c->topology = xstrdup(o->topology);
		c->workload = xstrdup(o->workload);
		c->rep = o->rep;
		c->memory = o->memory_mib;
		c->vcpus = o->vcpus;
		c->levers = xstrdup(o->levers ? o->levers : "default");
		c->block = o->block;
	}
}

/* run.json through the results reader's checks; NULL after an error. */
static json_object *read_record(const char *run_dir)
{
	struct strbuf err = STRBUF_INIT;
	struct results_run rr;
	json_object *o = NULL;

	if (results_open_run(run_dir, &rr, &err))
		error("%s", err.buf);
	else
		o = json_object_get(rr.json);
	results_close_run(&rr);
	strbuf_release(&err);
	return o;
}

int engine_load_run(struct engine *e, const char *run_dir)
{
	struct results_run *rr = xzalloc(sizeof(*rr));
	struct strbuf err = STRBUF_INIT;
	const struct run_result *r = &rr->info;
	size_t len = strlen(run_dir);

	if (results_open_run(run_dir, rr, &err)) {
		error("%s", err.buf);
		goto fail;
	}
	if (!r->id || !r->spec.recorded) {
		error("%s/run.json: not a matrix run's record (no run, spec "
		      "or plan)",
		      run_dir);
		goto fail;
	}
	snprintf(e->r->run_id, sizeof(e->r->run_id), "%s", r->id);
	while (len > 1 && run_dir[len - 1] == '/')
		len--;
	e->r->run_dir = xstrndup(run_dir, len);
	snprintf(e->started, sizeof(e->started), "%s",
		 r->started ? r->started : "");
	if (r->command)
		e->o.command = "matrix";
	spec_from(e, &r->spec);
	plan_from(&e->plan, &r->spec);
	e->plan.seed = e->r->seed;
	/* The results dir is the run dir's parent (wblab.db lives there). */
	{
		char *slash = strrchr(e->r->run_dir, '/');

		e->results_owned =
			slash ? xstrndup(e->r->run_dir, slash - e->r->run_dir) :
				xstrdup(".");
		e->o.results = e->results_owned;
	}
	/*
	 * The strings e->o points at live in the decoded record: keep it
	 * for the engine's lifetime.
	 */
	e->record = rr;
	strbuf_release(&err);
	return 0;
fail:
	results_close_run(rr);
	free(rr);
	strbuf_release(&err);
	return -1;
}

void engine_plan_append(struct matrix_plan *p, struct matrix_plan *more)
{
	int blocks = 0;

	for (size_t i = 0; i < p->n; i++)
		if (p->cells[i].block >= blocks)
			blocks = p->cells[i].block + 1;
	p->cells = xrealloc(p->cells, (p->n + more->n) * sizeof(*p->cells));
	for (size_t i = 0; i < more->n; i++) {
		p->cells[p->n + i] = more->cells[i];
		p->cells[p->n + i].block += blocks;
	}
	p->n += more->n;
	free(more->cells);
	memset(more, 0, sizeof(*more));
}

int matrix_print_run_json(const char *run_dir)
{
	json_object *o = read_record(run_dir);

	if (!o)
		return -1;
	puts(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return 0;
}

json_object *engine_run_json(struct engine *e, const char *finished)
{
	json_object *o = json_object_new_object();
	json_object *host = json_object_new_object();

	host_json(e, host);
	json_object_object_add(o, "run", json_object_new_string(e->r->run_id));
	json_object_object_add(o, "command",
			       json_object_new_string(e->o.command));
	json_object_object_add(o, "wblab", json_object_new_string(wblab_build));
	json_object_object_add(o, "started",
			       json_object_new_string(e->started));
	json_object_object_add(o, "finished",
			       json_object_new_string(finished ? finished :
								 ""));
	json_object_object_add(o, "spec", engine_spec_json(e));
	json_object_object_add(o, "plan", engine_plan_json(e));
	json_object_object_add(o, "host", host);
	json_object_object_add(o, "hosts", hosts_json(e));
	json_object_object_add(o, "jobs", json_object_new_int(e->o.jobs));
	json_object_object_add(o, "cells", cells_json(e));
	return o;
}

/* Returns -1 (and says so once) when the results disk takes no more. */
int engine_save_run(struct engine *e, const char *finished)
{
	json_object *o = engine_run_json(e, finished);
	char *path = xasprintf("%s/run.json", e->r->run_dir);
	int ret = json_write_atomic(path, o);

	if (ret)
		error("cannot write %s: %s", path, strerror(errno));
	free(path);
	json_object_put(o);
	return ret;
}
