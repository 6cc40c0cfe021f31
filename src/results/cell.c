// SPDX-License-Identifier: GPL-2.0
/*
 * The typed results model (cell.h): cell.json and run.json decoded once,
 * with util/json.h's getters, so every reader has the same rule for a
 * field that is missing or of another type.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/cell.h"
#include "results/levers.h"
#include "util/json.h"
#include "util/log.h"
#include "util/str.h"

/* Past this many, a results directory from elsewhere is not believed. */
#define CELL_LIST_MAX 100000
#define CELL_PRIMARY_MAX 64

/* The array at path, its length capped. */
static size_t list_at(json_object *o, const char *path, json_object **a)
{
	return json_list_at(o, path, CELL_LIST_MAX, a);
}

static void decode_events(struct cell_result *c, json_object *cell)
{
	json_object *a;
	size_t n = list_at(cell, "events", &a);

	c->events = n ? xzalloc(n * sizeof(*c->events)) : NULL;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		struct cell_event *d = &c->events[c->nr_events++];

		d->kind = json_dup_at(e, "kind");
		d->title = json_dup_at(e, "title");
		d->victim = json_dup_at(e, "victim");
		d->ended_s = json_int_at(e, "ended_after_s", -1);
		d->io_errors = json_int_at(e, "io_errors_before_end", 0);
		d->line = json_int_at(e, "line", 0);
	}
}

static void decode_blocked(struct cell_result *c, json_object *cell)
{
	json_object *a;
	size_t n = list_at(cell, "metrics.blocked.tasks", &a);

	c->blocked_when = json_dup_at(cell, "metrics.blocked.when");
	c->blocked_count = json_int_at(cell, "metrics.blocked.count", 0);
	c->blocked = n ? xzalloc(n * sizeof(*c->blocked)) : NULL;
	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(a, i);
		struct cell_blocked *d = &c->blocked[c->nr_blocked++];

		d->comm = json_dup_at(t, "comm");
		d->wait = json_dup_at(t, "wait");
		d->work = json_dup_at(t, "work");
		d->pid = json_int_at(t, "pid", 0);
	}
}

static void decode_chain(struct cell_result *c, json_object *cell)
{
	json_object *a;
	size_t n = list_at(cell, "metrics.stack.tracer.chain", &a);

	c->chain = n ? xzalloc(n * sizeof(*c->chain)) : NULL;
	for (size_t i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(a, i);
		struct cell_frame *d = &c->chain[c->chain_len++];

		d->depth = json_int_at(f, "depth", 0);
		d->size = json_int_at(f, "size", 0);
		d->location = json_dup_at(f, "location");
	}
}

/* The workload's primary: rows the cell was run for (cells since 2026-12-04). */
static void decode_primary(struct cell_result *c, json_object *cell)
{
	json_object *a;
	size_t n = list_at(cell, "workload_primary", &a);

	strvec_init(&c->primary);
	for (size_t i = 0; i < n && i < CELL_PRIMARY_MAX; i++) {
		json_object *v = json_object_array_get_idx(a, i);

		if (json_object_is_type(v, json_type_string))
			strvec_push(&c->primary, json_object_get_string(v));
	}
}

static void decode_kernel(struct cell_kernel *k, json_object *cell)
{
	k->name = json_dup_at(cell, "kernel.name");
	k->hash = json_dup_at(cell, "kernel.hash");
	k->version = json_dup_at(cell, "kernel.version");
	k->release = json_dup_at(cell, "kernel.guest_release");
	k->origin = json_dup_at(cell, "kernel.origin");
	k->source = json_dup_at(cell, "kernel.source");
	k->patches = json_dup_at(cell, "kernel.patches");
	k->cmdline = json_dup_at(cell, "kernel.cmdline");
}

static void decode_metrics(struct cell_result *c, json_object *cell)
{
	c->val = xmalloc((metric_nr_rows ? metric_nr_rows : 1) *
			 sizeof(*c->val));
	for_each_metric(m) c->val[metric_index(m)] = metric_value(cell, m);
	c->stack_fraction = json_num_at(cell, "metrics.stack_max_fraction");
	c->thread_size = json_num_at(cell, "metrics.stack.thread_size.bytes");
	c->rw_lossy = !json_bool_at(
		cell, "metrics.stack.reclaim_write.complete", true);
}

struct cell_result *cell_result_decode(json_object *cell)
{
	struct cell_result *c = xzalloc(sizeof(*c));

	c->refs = 1;
	c->id = json_dup_at(cell, "cell");
	c->run = json_dup_at(cell, "run");
	decode_kernel(&c->kernel, cell);
	c->topology = json_dup_at(cell, "topology.name");
	c->workload = json_dup_at(cell, "workload");
	c->accel = json_dup_at(cell, "accel");
	c->host = json_dup_at(cell, "host");
	c->memory_mib = json_int_at(cell, "memory_mib", 0);
	c->vcpus = json_int_at(cell, "vcpus", 0);
	c->rep = json_int_at(cell, "rep", 0);
	c->slot = json_int_at(cell, "slot", 0);
	c->attempt = json_int_at(cell, "attempt", 0);
	c->outcome_name = json_dup_at(cell, "outcome");
	c->outcome = outcome_parse(c->outcome_name);
	c->reason = json_dup_at(cell, "outcome_reason");
	c->console_kind = json_dup_at(cell, "console_kind");
	c->agent.status = json_dup_at(cell, "agent.status");
	c->agent.phase = json_dup_at(cell, "agent.phase");
	c->agent.label = json_dup_at(cell, "agent.label");
	c->agent.rc = json_dup_at(cell, "agent.rc");
	c->err_console = json_dup_at(cell, "metrics.collector_errors.console");
	c->err_channel = json_dup_at(cell, "metrics.collector_errors.channel");
	c->levers = levers_cell_key(cell);
	c->timings.started = json_dup_at(cell, "timings.started");
	c->timings.total_s = json_num_at(cell, "timings.total_s");
	c->timings.boot_s = json_num_at(cell, "timings.boot_s");
	c->timings.workload_s = json_num_at(cell, "timings.workload_s");
	/* results_cell_counts(): any outcome but a host fault */
	c->counts = c->outcome_name && c->outcome != OUTCOME_INFRA_ERROR;
	decode_primary(c, cell);
	decode_events(c, cell);
	decode_blocked(c, cell);
	decode_chain(c, cell);
	decode_metrics(c, cell);
	return c;
}

struct cell_result *cell_result_get(struct cell_result *c)
{
	if (c)
		c->refs++;
	return c;
}

static void free_lists(struct cell_result *c)
{
	for (size_t i = 0; i < c->nr_events; i++) {
		free(c->events[i].kind);
		free(c->events[i].title);
		free(c->events[i].victim);
	}
	for (size_t i = 0; i < c->nr_blocked; i++) {
		free(c->blocked[i].comm);
		free(c->blocked[i].wait);
		free(c->blocked[i].work);
	}
	for (size_t i = 0; i < c->chain_len; i++)
		free(c->chain[i].location);
	free(c->events);
	free(c->blocked);
	free(c->chain);
}

/* The strings of c, for freeing. */
static void free_strings(struct cell_result *c)
{
	char **s[] = {
		&c->id,
		&c->run,
		&c->kernel.name,
		&c->kernel.hash,
		&c->kernel.version,
		&c->kernel.release,
		&c->kernel.origin,
		&c->kernel.source,
		&c->kernel.patches,
		&c->kernel.cmdline,
		&c->topology,
		&c->workload,
		&c->accel,
		&c->host,
		&c->outcome_name,
		&c->reason,
		&c->console_kind,
		&c->agent.status,
		&c->agent.phase,
		&c->agent.label,
		&c->agent.rc,
		&c->err_console,
		&c->err_channel,
		&c->timings.started,
		&c->levers,
		&c->blocked_when,
	};

	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		free(*s[i]);
}

void cell_result_put(struct cell_result *c)
{
	if (!c || --c->refs > 0)
		return;
	free_strings(c);
	free_lists(c);
	strvec_clear(&c->primary);
	free(c->val);
	free(c);
}

static void host_decode(json_object *h, struct run_host *d)
{
	d->hostname = json_dup_at(h, "hostname");
	d->accel = json_dup_at(h, "accel");
	d->cpu = json_dup_at(h, "cpu");
	d->kernel = json_dup_at(h, "kernel");
	d->cpus = json_int_at(h, "cpus", -1);
	d->memory_mib = json_int_at(h, "memory_mib", -1);
	d->qemu_version = json_int_at(h, "qemu_version", -1);
	d->libvirt_version = json_int_at(h, "libvirt_version", -1);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void run_host_copy(struct run_host *dst, const struct run_host *src)
{
	*dst = *src;
	dst->hostname = dup_or_null(src->hostname);
	dst->accel = dup_or_null(src->accel);
	dst->cpu = dup_or_null(src->cpu);
	dst->kernel = dup_or_null(src->kernel);
}

void run_host_release(struct run_host *h)
{
	free(h->hostname);
	free(h->accel);
	free(h->cpu);
	free(h->kernel);
	memset(h, 0, sizeof(*h));
}

void run_result_decode(json_object *run, struct run_result *r)
{
	json_object *ks, *cells;
	size_t nk = list_at(run, "spec.kernels", &ks);
	/* every entry: the reader walks them by index (results_cell.idx) */
	size_t n = json_len_at(run, "cells");

	memset(r, 0, sizeof(*r));
	r->id = json_dup_at(run, "run");
	r->started = json_dup_at(run, "started");
	r->command = json_dup_at(run, "command");
	run_spec_decode(run, &r->spec);
	host_decode(json_path(run, "host"), &r->hostinfo);
	r->topology = json_dup_at(run, "spec.topology");
	r->workload = json_dup_at(run, "spec.workload");
	r->image = json_dup_at(run, "spec.image");
	r->cmdline_extra = json_dup_at(run, "spec.cmdline_extra");
	r->host = json_object_get(json_path(run, "host"));
	strvec_init(&r->kernels);
	for (size_t i = 0; i < nk; i++) {
		json_object *k = json_object_array_get_idx(ks, i);

		if (json_object_is_type(k, json_type_string) &&
		    !strvec_has(&r->kernels, json_object_get_string(k)))
			strvec_push(&r->kernels, json_object_get_string(k));
	}
	cells = json_array_at(run, "cells");
	r->cells = n ? xzalloc(n * sizeof(*r->cells)) : NULL;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(cells, i);
		struct run_entry *d = &r->cells[r->nr_cells++];

		d->id = json_dup_at(e, "id");
		d->dir = json_dup_at(e, "dir");
		d->kernel = json_dup_at(e, "kernel");
		d->outcome = json_dup_at(e, "outcome");
		d->rep = json_int_at(e, "rep", 0);
	}
}

void run_result_release(struct run_result *r)
{
	for (size_t i = 0; i < r->nr_cells; i++) {
		free(r->cells[i].id);
		free(r->cells[i].dir);
		free(r->cells[i].kernel);
		free(r->cells[i].outcome);
	}
	free(r->cells);
	strvec_clear(&r->kernels);
	json_object_put(r->host);
	free(r->id);
	run_host_release(&r->hostinfo);
	run_spec_release(&r->spec);
	free(r->started);
	free(r->command);
	free(r->topology);
	free(r->workload);
	free(r->image);
	free(r->cmdline_extra);
	memset(r, 0, sizeof(*r));
}
