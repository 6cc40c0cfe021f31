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
#include "util/mailhdr.h"
#include "util/str.h"

/* A string of the cell, "" when absent: the report prints every one. */
static char *dup_or_empty(const char *s)
{
	return xstrdup(s ? s : "");
}

/*
 * The console's events, then a "blocked" event per task the SysRq-t dump
 * at the end of the workload found in D state, titled "COMM in WAIT":
 * a timed-out step beside kswapd in mempool_alloc is the kernel's, and
 * the hung-task detector may never have said so (docs/collectors.md).
 */
static void load_events(struct rpt_cell *c, const struct cell_result *cr)
{
	size_t n = cr->nr_events, nb = cr->nr_blocked;

	c->events = n + nb ? xzalloc((n + nb) * sizeof(*c->events)) : NULL;
	for (size_t i = 0; i < n; i++) {
		const struct cell_event *e = &cr->events[i];
		struct rpt_event *d = &c->events[c->nr_events++];

		d->kind = dup_or_empty(e->kind);
		d->title = dup_or_empty(e->title);
		d->victim = dup_or_empty(e->victim);
		d->ended_s = (int)e->ended_s;
		d->io_errors = (int)e->io_errors;
	}
	for (size_t i = 0; i < nb; i++) {
		const struct cell_blocked *t = &cr->blocked[i];
		struct rpt_event *d = &c->events[c->nr_events++];
		/* A kworker by its work function: no pids or cpu numbers. */
		const char *who = t->work && *t->work ? t->work : t->comm;

		d->kind = xstrdup("blocked");
		d->title = xasprintf("%s in %s", who && *who ? who : "?",
				     t->wait && *t->wait ? t->wait : "?");
		d->victim = xstrdup("");
		d->ended_s = -1;
	}
}

static void load_chain(struct rpt_cell *c, const struct cell_result *cr)
{
	size_t n = cr->chain_len;

	c->chain = n ? xzalloc(n * sizeof(*c->chain)) : NULL;
	for (size_t i = 0; i < n; i++) {
		struct rpt_frame *d = &c->chain[c->chain_len++];

		d->depth = (int)cr->chain[i].depth;
		d->size = (int)cr->chain[i].size;
		d->location = dup_or_empty(cr->chain[i].location);
	}
}

static struct rpt_cell *load_cell(const struct rpt_run *run,
				  const struct results_cell *rc)
{
	const struct cell_result *cr = rc->res;
	struct rpt_cell *c = xzalloc(sizeof(*c));
	char **s[] = { &c->id,	    &c->kernel,	  &c->hash,	&c->version,
		       &c->release, &c->origin,	  &c->source,	&c->patches,
		       &c->cmdline, &c->topology, &c->workload, &c->accel,
		       &c->host,    &c->outcome,  &c->reason };
	const char *v[] = { cr->id,
			    cr->kernel.name,
			    cr->kernel.hash,
			    cr->kernel.version,
			    cr->kernel.release,
			    cr->kernel.origin,
			    cr->kernel.source,
			    cr->kernel.patches,
			    cr->kernel.cmdline,
			    cr->topology,
			    cr->workload,
			    cr->accel,
			    cr->host,
			    cr->outcome_name,
			    cr->reason };

	c->run = run;
	c->dir = xstrdup(rc->dir);
	c->counts = rc->counts;
	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		*s[i] = dup_or_empty(v[i]);
	c->side = xstrdup(c->kernel);
	c->levers = xstrdup(cr->levers);
	c->memory_mib = (int)cr->memory_mib;
	c->vcpus = (int)cr->vcpus;
	c->rep = (int)cr->rep;
	strvec_init(&c->primary);
	for (size_t i = 0; i < cr->primary.nr; i++)
		strvec_push(&c->primary, cr->primary.v[i]);
	c->val = xmalloc(metric_nr_rows * sizeof(*c->val));
	memcpy(c->val, cr->val, metric_nr_rows * sizeof(*c->val));
	c->stack_bytes = cell_metric(cr, METRIC(STACK_MAX));
	c->stack_fraction = cr->stack_fraction;
	c->thread_size = cr->thread_size;
	c->rw_lossy = cr->rw_lossy;
	load_events(c, cr);
	load_chain(c, cr);
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

	if (rc->res)
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
static void declare_kernels(struct report *r, const struct run_result *run)
{
	for (size_t i = 0; i < run->kernels.nr; i++)
		if (!strvec_has(&r->declared, run->kernels.v[i]))
			strvec_push(&r->declared, run->kernels.v[i]);
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
	run->id = dup_or_empty(rr.info.id);
	run->host = json_object_get(rr.info.host);
	run_host_copy(&run->facts, &rr.info.hostinfo);
	r->runs = xrealloc(r->runs, (r->nr_runs + 1) * sizeof(*r->runs));
	r->runs[r->nr_runs++] = run;
	l.run = run;
	declare_kernels(r, &rr.info);
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
		run_host_release(&r->runs[i]->facts);
		free(r->runs[i]->id);
		free(r->runs[i]->dir);
		free(r->runs[i]->real);
		free(r->runs[i]);
	}
	free(r->runs);
	r->runs = NULL;
	r->nr_runs = 0;
}

/* The Subject: of a patch file, without "[PATCH ...] " (util/mailhdr.h). */
static char *patch_subject(const char *name)
{
	char *path = name[0] == '/' ?
			     xstrdup(name) :
			     xasprintf("%s/lab/patches/%s", wblab_home(), name);
	struct mail_headers h;
	char *subj = NULL;

	if (!mail_headers_read(path, &h) && h.subject)
		subj = xstrdup(mail_subject_bare(h.subject));
	mail_headers_release(&h);
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
