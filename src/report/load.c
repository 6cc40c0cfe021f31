// SPDX-License-Identifier: GPL-2.0
/*
 * Reading run directories for a report, through the results reader
 * (results/reader.h). Only what the report needs is kept (see struct
 * rpt_cell), so a hundred runs cost a few megabytes, not the parsed JSON
 * of each cell.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "results/levers.h"
#include "results/reader.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/str.h"

static char *str_at(json_object *o, const char *path)
{
	json_object *v = json_path(o, path);

	return xstrdup(v && json_object_is_type(v, json_type_string) ?
			       json_object_get_string(v) :
			       "");
}

static int int_at(json_object *o, const char *path)
{
	json_object *v = json_path(o, path);

	return v ? json_object_get_int(v) : 0;
}

/* A number at path, or NAN when absent or not a number. */
static double num_at(json_object *o, const char *path)
{
	json_object *v = json_path(o, path);

	if (!v || !(json_object_is_type(v, json_type_int) ||
		    json_object_is_type(v, json_type_double)))
		return NAN;
	return json_object_get_double(v);
}

static size_t array_len(json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ?
		       json_object_array_length(a) :
		       0;
}

/*
 * The console's events, then a "blocked" event per task the SysRq-t dump
 * at the end of the workload found in D state, titled "COMM in WAIT":
 * a timed-out step beside kswapd in mempool_alloc is the kernel's, and
 * the hung-task detector may never have said so (docs/collectors.md).
 */
static void load_events(struct rpt_cell *c, json_object *cell)
{
	json_object *ev = json_path(cell, "events"),
		    *bl = json_path(cell, "metrics.blocked.tasks");
	size_t n = array_len(ev), nb = array_len(bl);

	c->events = n + nb ? xzalloc((n + nb) * sizeof(*c->events)) : NULL;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(ev, i);
		struct rpt_event *d = &c->events[c->nr_events++];

		d->kind = str_at(e, "kind");
		d->title = str_at(e, "title");
		d->victim = str_at(e, "victim");
		d->ended_s = json_path(e, "ended_after_s") ?
				     int_at(e, "ended_after_s") :
				     -1;
		d->io_errors = int_at(e, "io_errors_before_end");
	}
	for (size_t i = 0; i < nb; i++) {
		json_object *t = json_object_array_get_idx(bl, i);
		struct rpt_event *d = &c->events[c->nr_events++];
		char *comm = str_at(t, "comm"), *wait = str_at(t, "wait"),
		     *work = str_at(t, "work");
		/* A kworker by its work function: no pids or cpu numbers. */
		const char *who = *work ? work : comm;

		d->kind = xstrdup("blocked");
		d->title = xasprintf("%s in %s", *who ? who : "?",
				     *wait ? wait : "?");
		d->victim = xstrdup("");
		d->ended_s = -1;
		free(comm);
		free(wait);
		free(work);
	}
}

static void load_chain(struct rpt_cell *c, json_object *cell)
{
	json_object *ch = json_path(cell, "metrics.stack.tracer.chain");
	size_t n = ch && json_object_is_type(ch, json_type_array) ?
			   json_object_array_length(ch) :
			   0;

	c->chain = n ? xzalloc(n * sizeof(*c->chain)) : NULL;
	for (size_t i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(ch, i);
		struct rpt_frame *d = &c->chain[c->chain_len++];

		d->depth = int_at(f, "depth");
		d->size = int_at(f, "size");
		d->location = str_at(f, "location");
	}
}

/* The workload's primary: rows the cell was run for (cells since 2026-12-04). */
static void load_primary(struct rpt_cell *c, json_object *cell)
{
	json_object *a = json_path(cell, "workload_primary");

	strvec_init(&c->primary);
	if (!a || !json_object_is_type(a, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(a) && i < 64; i++) {
		json_object *v = json_object_array_get_idx(a, i);

		if (json_object_is_type(v, json_type_string))
			strvec_push(&c->primary, json_object_get_string(v));
	}
}

static struct rpt_cell *load_cell(const struct rpt_run *run,
				  const struct results_cell *rc)
{
	json_object *cell = rc->json, *complete;
	struct rpt_cell *c = xzalloc(sizeof(*c));

	c->run = run;
	c->dir = xstrdup(rc->dir);
	c->counts = rc->counts;
	c->id = str_at(cell, "cell");
	c->kernel = str_at(cell, "kernel.name");
	c->side = xstrdup(c->kernel);
	c->hash = str_at(cell, "kernel.hash");
	c->version = str_at(cell, "kernel.version");
	c->release = str_at(cell, "kernel.guest_release");
	c->origin = str_at(cell, "kernel.origin");
	c->source = str_at(cell, "kernel.source");
	c->patches = str_at(cell, "kernel.patches");
	c->cmdline = str_at(cell, "kernel.cmdline");
	c->topology = str_at(cell, "topology.name");
	c->workload = str_at(cell, "workload");
	c->accel = str_at(cell, "accel");
	c->host = str_at(cell, "host");
	c->levers = levers_cell_key(cell);
	c->memory_mib = int_at(cell, "memory_mib");
	c->vcpus = int_at(cell, "vcpus");
	c->rep = int_at(cell, "rep");
	c->outcome = str_at(cell, "outcome");
	c->reason = str_at(cell, "outcome_reason");
	load_primary(c, cell);
	c->val = xmalloc(metric_nr_rows * sizeof(*c->val));
	for_each_metric(mt) c->val[metric_index(mt)] = metric_value(cell, mt);
	c->stack_bytes = metric_value(cell, metric_by_name("stack-max"));
	c->stack_fraction = num_at(cell, "metrics.stack_max_fraction");
	c->thread_size = num_at(cell, "metrics.stack.thread_size.bytes");
	complete = json_path(cell, "metrics.stack.reclaim_write.complete");
	c->rw_lossy = complete && !json_object_get_boolean(complete);
	load_events(c, cell);
	load_chain(c, cell);
	return c;
}

static void push_cell(struct report *r, struct rpt_cell *c)
{
	r->cells = xrealloc(r->cells, (r->nr_cells + 1) * sizeof(*r->cells));
	r->cells[r->nr_cells++] = c;
}

struct load {
	struct report *r;
	const struct rpt_run *run;
};

/* A run.json "cells" entry: keep its cell, or warn why not. */
static int load_listed(const struct results_run *rr,
		       const struct results_cell *rc, void *data)
{
	struct load *l = data;

	if (rc->json)
		push_cell(l->r, load_cell(l->run, rc));
	else
		strvec_push(&l->r->warnings, rc->why);
	return 0;
}

/* An earlier run of the report at the same real path, or NULL. */
static const struct rpt_run *loaded_run(const struct report *r,
					const char *real)
{
	for (size_t i = 0; i < r->nr_runs; i++)
		if (!strcmp(r->runs[i]->real, real))
			return r->runs[i];
	return NULL;
}

/*
 * run.json's spec.kernels, in order: the baseline is the first kernel a
 * run declares (`wblab run -k A -k B`: A), not the first cell read (cells
 * run in a shuffled order).
 */
static void declare_kernels(struct report *r, json_object *run)
{
	json_object *ks = json_path(run, "spec.kernels");

	for (size_t i = 0; ks && json_object_is_type(ks, json_type_array) &&
			   i < json_object_array_length(ks);
	     i++) {
		const char *k = json_object_get_string(
			json_object_array_get_idx(ks, i));

		if (k && !strvec_has(&r->declared, k))
			strvec_push(&r->declared, k);
	}
}

int report_load_run(struct report *r, const char *dir, struct strbuf *err)
{
	const struct rpt_run *seen;
	struct results_run rr;
	struct rpt_run *run;
	struct load l = { r, NULL };

	if (results_open_run(dir, &rr, err))
		return -1;
	/* R R, R R/, a link to R: its cells would count twice. */
	seen = loaded_run(r, rr.real);
	if (seen) {
		strvec_pushf(&r->warnings,
			     "%s: the same run as %s (%s): read once", dir,
			     seen->dir, rr.real);
		results_close_run(&rr);
		return 0;
	}
	run = xzalloc(sizeof(*run));
	run->dir = xstrdup(dir);
	run->real = xstrdup(rr.real);
	run->id = str_at(rr.json, "run");
	run->host = json_object_get(json_path(rr.json, "host"));
	r->runs = xrealloc(r->runs, (r->nr_runs + 1) * sizeof(*r->runs));
	r->runs[r->nr_runs++] = run;
	l.run = run;
	declare_kernels(r, rr.json);
	results_for_each_cell(&rr, load_listed, &l);
	results_close_run(&rr);
	return 0;
}

static void free_cell(struct rpt_cell *c)
{
	char **s[] = { &c->id,	     &c->dir,	  &c->side,    &c->kernel,
		       &c->hash,     &c->version, &c->release, &c->origin,
		       &c->source,   &c->patches, &c->cmdline, &c->topology,
		       &c->workload, &c->accel,	  &c->outcome, &c->reason,
		       &c->host,     &c->levers };

	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		free(*s[i]);
	for (size_t i = 0; i < c->nr_events; i++) {
		free(c->events[i].kind);
		free(c->events[i].title);
		free(c->events[i].victim);
	}
	for (size_t i = 0; i < c->chain_len; i++)
		free(c->chain[i].location);
	free(c->events);
	free(c->chain);
	free(c->val);
	strvec_clear(&c->primary);
	free(c);
}

void report_free_cells(struct report *r)
{
	for (size_t i = 0; i < r->nr_cells; i++)
		free_cell(r->cells[i]);
	free(r->cells);
	r->cells = NULL;
	r->nr_cells = 0;
	for (size_t i = 0; i < r->nr_runs; i++) {
		json_object_put(r->runs[i]->host);
		free(r->runs[i]->id);
		free(r->runs[i]->dir);
		free(r->runs[i]->real);
		free(r->runs[i]);
	}
	free(r->runs);
	r->runs = NULL;
	r->nr_runs = 0;
}

/* The Subject: of a patch file, without "[PATCH ...] ". */
static char *patch_subject(const char *name)
{
	char *path = name[0] == '/' ?
			     xstrdup(name) :
			     xasprintf("%s/lab/patches/%s", wblab_home(), name);
	FILE *f = fopen(path, "r");
	char line[512], *subj = NULL;

	for (int i = 0; f && i < 64 && fgets(line, sizeof(line), f); i++) {
		const char *s;

		if (!skip_prefix(line, "Subject:", &s))
			continue;
		s += strspn(s, " ");
		if (*s == '[' && strchr(s, ']'))
			s = strchr(s, ']') + 1;
		s += strspn(s, " ");
		subj = xstrndup(s, strcspn(s, "\r\n"));
		break;
	}
	if (f)
		fclose(f);
	free(path);
	return subj;
}

void rpt_patch_subjects(const char *patches, struct strvec *out)
{
	char *copy = xstrdup(patches), *save, *p;

	for (p = strtok_r(copy, ",", &save); p;
	     p = strtok_r(NULL, ",", &save)) {
		char *s = patch_subject(p);

		strvec_push(out, s ? s : p);
		free(s);
	}
	free(copy);
}
