// SPDX-License-Identifier: GPL-2.0
/*
 * The cells a job has measured (jobs/pool.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/pool.h"
#include "results/levers.h"
#include "results/reader.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"

static void drop_run(struct pool *p, const char *run_dir)
{
	size_t k = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (strcmp(p->v[i].run_dir, run_dir)) {
			p->v[k++] = p->v[i];
			continue;
		}
		free(p->v[i].run_dir);
		free(p->v[i].kernel);
		free(p->v[i].group);
		cell_result_put(p->v[i].cell);
	}
	p->n = k;
}

static bool has(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

static void add_cell(struct pool *p, const char *run_dir, struct cell_result *c)
{
	const char *k = c->kernel.name;
	char *lv = levers_key_brief(c->levers);
	/* Cells run with other levers are another group, never pooled. */
	char *group = xasprintf("%s/%s/%lld%s%s", c->topology ?: "?",
				c->workload ?: "?", c->memory_mib,
				*lv ? "/" : "", lv);

	free(lv);

	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 64;
		p->v = xrealloc(p->v, p->alloc * sizeof(*p->v));
	}
	p->v[p->n++] = (struct pool_cell){ .run_dir = xstrdup(run_dir),
					   .kernel = xstrdup(k ? k : "?"),
					   .group = group,
					   .cell = c };
	if (!has(&p->groups, group))
		strvec_push(&p->groups, group);
}

struct load {
	struct pool *p;
	const char *run_dir; /* as the caller names it (drop_run, relabel) */
};

static int load_cell(const struct results_run *run,
		     const struct results_cell *c, void *data)
{
	struct load *l = data;

	if (!c->res) {
		/* Listed but never finished is no result; a refused one
		 * (a link, "../x", too big) is said. */
		if (!c->absent)
			warn("%s", c->why);
		return 0;
	}
	if (!c->counts)
		l->p->infra++;
	else
		add_cell(l->p, l->run_dir, cell_result_get(c->res));
	return 0;
}

/* The index of the run loaded from real path real, or -1. */
static int run_index(const struct pool *p, const char *real)
{
	for (size_t i = 0; i < p->real.nr; i++)
		if (!strcmp(p->real.v[i], real))
			return (int)i;
	return -1;
}

int pool_load_run(struct pool *p, const char *run_dir)
{
	struct strbuf err = STRBUF_INIT;
	struct load l = { p, run_dir };
	struct results_run run;
	int i, before;

	if (results_open_run(run_dir, &run, &err)) {
		error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	i = run_index(p, run.real);
	if (i < 0) {
		strvec_push(&p->runs, run_dir);
		strvec_push(&p->real, run.real);
		p->run_infra = xrealloc(p->run_infra,
					p->runs.nr * sizeof(*p->run_infra));
		i = (int)p->runs.nr - 1;
		p->run_infra[i] = 0;
	} else if (strcmp(p->runs.v[i], run_dir)) {
		/* R R/ on a command line: the cells of R, once. */
		warn("%s: the same run as %s (%s): read once", run_dir,
		     p->runs.v[i], run.real);
		l.run_dir = p->runs.v[i];
	}
	drop_run(p, l.run_dir);
	/*
	 * A reload (a job's added repetitions) counts the run's infra-error
	 * cells again from none: before, each reload added them all again
	 * (a validate said "24 infra-error cells" of its 12).
	 */
	before = p->infra - p->run_infra[i];
	p->infra = 0;
	results_for_each_cell(&run, load_cell, &l);
	p->run_infra[i] = p->infra;
	p->infra += before;
	results_close_run(&run);
	return 0;
}

void pool_free(struct pool *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].run_dir);
		free(p->v[i].kernel);
		free(p->v[i].group);
		cell_result_put(p->v[i].cell);
	}
	free(p->v);
	free(p->run_infra);
	strvec_clear(&p->runs);
	strvec_clear(&p->real);
	strvec_clear(&p->groups);
	memset(p, 0, sizeof(*p));
}

void pool_by_topology(struct pool *p)
{
	strvec_clear(&p->groups);
	for (size_t i = 0; i < p->n; i++) {
		struct pool_cell *c = &p->v[i];
		const char *t = c->cell->topology ?: "?";
		/* "topology/workload/memory[/levers]": keep all but the first */
		const char *rest = strchr(c->group, '/');
		char *g = xasprintf("%s%s", c->kernel, rest ? rest : "");

		free(c->group);
		c->group = g;
		free(c->kernel);
		c->kernel = xstrdup(t);
		if (!has(&p->groups, c->group))
			strvec_push(&p->groups, c->group);
	}
}

void pool_relabel(struct pool *p, const char *run_dir, const char *label)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].run_dir, run_dir)) {
			free(p->v[i].kernel);
			p->v[i].kernel = xstrdup(label);
		}
}

static bool match(const struct pool_cell *c, const char *kernel,
		  const char *group)
{
	return !strcmp(c->kernel, kernel) &&
	       (!group || !strcmp(c->group, group));
}

size_t pool_count(const struct pool *p, const char *kernel, const char *group)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += match(&p->v[i], kernel, group);
	return n;
}

size_t pool_fewest(const struct pool *p, const char *ka, const char *kb)
{
	size_t least = 0;

	for (size_t g = 0; g < p->groups.nr; g++) {
		size_t n = pool_count(p, ka, p->groups.v[g]);

		if (kb && pool_count(p, kb, p->groups.v[g]) < n)
			n = pool_count(p, kb, p->groups.v[g]);
		if (!g || n < least)
			least = n;
	}
	return least;
}

double *pool_values(const struct pool *p, const char *kernel, const char *group,
		    const struct metric *m, size_t *n)
{
	double *v = xzalloc((p->n + 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < p->n; i++)
		if (match(&p->v[i], kernel, group))
			v[(*n)++] = cell_metric(p->v[i].cell, m);
	return v;
}

void pool_rate(const struct pool *p, const char *kernel, const char *group,
	       const char *kind, const char *title, int *fail, int *runs)
{
	*fail = *runs = 0;
	for (size_t i = 0; i < p->n; i++) {
		int hit;

		if (!match(&p->v[i], kernel, group))
			continue;
		hit = decide_cell_event(p->v[i].cell, kind, title);
		if (hit < 0)
			continue;
		(*runs)++;
		*fail += hit;
	}
}

void pool_decide_metric(const struct pool *p, const char *ka, const char *kb,
			const char *group, const struct metric *m,
			const struct verdict_opts *o, struct decision *d)
{
	size_t na, nb;
	double *a = pool_values(p, ka, group, m, &na);
	double *b = pool_values(p, kb, group, m, &nb);

	decide_metric(m, a, na, b, nb, o, d);
	free(a);
	free(b);
}

void pool_decide_event(const struct pool *p, const char *ka, const char *kb,
		       const char *group, const char *kind, const char *title,
		       const struct verdict_opts *o, struct decision *d)
{
	struct verdict_opts one = *o;
	int fa, ra, fb, rb;

	one.greater = true;
	pool_rate(p, ka, group, kind, title, &fa, &ra);
	pool_rate(p, kb, group, kind, title, &fb, &rb);
	decide_rate(fa, ra, fb, rb, &one, d);
}

void pool_primary_rows(const struct pool *p, struct matrix_threshold **t,
		       size_t *n)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct strvec *a = &p->v[i].cell->primary;

		for (size_t k = 0; k < a->nr; k++) {
			const struct metric *m = metric_by_name(a->v[k]);
			bool dup = false;

			for (size_t j = 0; m && j < *n; j++)
				dup |= (*t)[j].row == m;
			if (!m || dup)
				continue;
			*t = xrealloc(*t, (*n + 1) * sizeof(**t));
			(*t)[*n] = (struct matrix_threshold){
				.row = m,
				.metric = xstrdup(m->name),
				.change_pct = 10,
				.bad = xstrdup("any"),
			};
			(*n)++;
		}
	}
}

void pool_repro_line(const struct pool *p, const char *kernel,
		     struct strbuf *out)
{
	const struct pool_cell *w = NULL;
	const struct cell_result *c;
	char *dir;

	for (size_t i = 0; i < p->n; i++)
		if ((!kernel || !strcmp(p->v[i].kernel, kernel)) &&
		    results_cell_worse(p->v[i].cell, w ? w->cell : NULL))
			w = &p->v[i];
	/* The id names a path: only a name a results directory may hold. */
	if (!w || !w->cell->id || !is_one_component(w->cell->id))
		return;
	c = w->cell;
	if (results_outcome_severity(c->outcome_name) == 1 && !c->nr_events)
		return;
	strbuf_addf(out, "Worst cell: %s (%s)\n", c->id,
		    c->outcome_name ? c->outcome_name : "?");
	dir = xasprintf("%s/cells/%s", w->run_dir, c->id);
	results_repro_line(out, dir, 80);
	free(dir);
}
