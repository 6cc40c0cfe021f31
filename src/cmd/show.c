// SPDX-License-Identifier: GPL-2.0
/*
 * wblab show [--json] [--metric NAME]... RUN_DIR: the key figures of every
 * cell of a run, and per kernel their mean and standard deviation over the
 * cells that count (stats_describe), as plain text. Figures are registry
 * rows (wblab metrics), read through the results reader. For tests and
 * confidence intervals across runs: `wblab report`.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "results/metric.h"
#include "results/outcome.h"
#include "results/reader.h"
#include "stats/stats.h"
#include "util/json.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "util/str.h"
#include "util/strvec.h"

/* The figures shown without --metric. */
static const enum metric_id default_figures[] = {
	METRIC_ALLOCSTALL,	  METRIC_MEMCG_RECLAIMS,
	METRIC_RECLAIM_WR_DIRECT, METRIC_RECLAIM_WR_KSWAPD,
	METRIC_OOM_KILLS,	  METRIC_FIO_WRITE,
	METRIC_STACK_MAX,
};

struct kernel_acc {
	char *name;
	int cells, ok;
	double **vals; /* [figure][cell that counts]; NAN left out */
	size_t *n;
};

/* One cell's line, kept until all are read: run.json's order is shuffled. */
struct show_row {
	size_t kernel; /* index in show.k: the run's declared order */
	int rep;
	char *text;
	json_object *json; /* --json */
};

struct show {
	const struct metric **fig;
	size_t nr_fig;
	struct kernel_acc *k; /* declared order, then first-seen */
	size_t nr_k;
	struct show_row *rows;
	size_t nr_rows;
	json_object *cells_out; /* --json */
};

static int width(const struct metric *m)
{
	int w = (int)strlen(m->name);

	return w > 9 ? w : 9;
}

/*
 * A count (or a rate's per-cell count) is a whole number of events or
 * pages: no ".0" after it.
 */
static void print_figure(struct strbuf *sb, const struct metric *m, double v)
{
	if (isnan(v))
		strbuf_addf(sb, " %*s", width(m), "-");
	else if ((m->kind == MK_COUNT || m->kind == MK_RATE) && v == floor(v) &&
		 fabs(v) < 1e15)
		strbuf_addf(sb, " %*.0f", width(m), v);
	else
		strbuf_addf(sb, " %*.1f", width(m), v);
}

static struct kernel_acc *kernel_for(struct show *s, const char *name)
{
	struct kernel_acc *k;

	for (size_t i = 0; i < s->nr_k; i++)
		if (!strcmp(s->k[i].name, name))
			return &s->k[i];
	s->k = xrealloc(s->k, (s->nr_k + 1) * sizeof(*s->k));
	k = &s->k[s->nr_k++];
	memset(k, 0, sizeof(*k));
	k->name = xstrdup(name);
	k->vals = xzalloc(s->nr_fig * sizeof(*k->vals));
	k->n = xzalloc(s->nr_fig * sizeof(*k->n));
	return k;
}

static void keep(struct kernel_acc *k, size_t f, double v)
{
	k->vals[f] = xrealloc(k->vals[f], (k->n[f] + 1) * sizeof(double));
	k->vals[f][k->n[f]++] = v;
}

/* One cell: its row (text, or a JSON object) and its kernel's values. */
static int show_cell(const struct results_run *run,
		     const struct results_cell *c, void *data)
{
	struct show *s = data;
	const char *kernel = str_or(c->info->kernel, "");
	const char *outcome = c->res ? str_or(c->res->outcome_name, "") :
				       "missing";
	struct kernel_acc *k = kernel_for(s, kernel);
	int rep = (int)c->info->rep;
	struct strbuf text = STRBUF_INIT;
	json_object *row = NULL, *figs = NULL;
	struct show_row *r;

	if (c->why && !c->absent)
		warn("%s", c->why);
	if (s->cells_out) {
		row = json_object_new_object();
		figs = json_object_new_object();
		json_put_str(row, "kernel", kernel);
		json_put_int(row, "rep", rep);
		json_put_str(row, "outcome", outcome);
		json_put_str(row, "dir", c->rel);
	} else {
		strbuf_addf(&text, "%-20.20s %-3d %-12s", kernel, rep, outcome);
	}
	k->cells++;
	k->ok += outcome_is(outcome, OUTCOME_OK);
	for (size_t f = 0; f < s->nr_fig; f++) {
		double v = c->res ? cell_metric(c->res, s->fig[f]) : NAN;

		if (figs)
			json_put_num(figs, s->fig[f]->name, v);
		else
			print_figure(&text, s->fig[f], v);
		if (!isnan(v) && c->counts)
			keep(k, f, v);
	}
	if (row)
		json_object_object_add(row, "figures", figs);
	s->rows = xrealloc(s->rows, (s->nr_rows + 1) * sizeof(*s->rows));
	r = &s->rows[s->nr_rows++];
	r->kernel = (size_t)(k - s->k);
	r->rep = rep;
	r->text = strbuf_detach(&text, NULL);
	r->json = row;
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct show_row *x = a, *y = b;

	if (x->kernel != y->kernel)
		return x->kernel < y->kernel ? -1 : 1;
	return (x->rep > y->rep) - (x->rep < y->rep);
}

/* The cells by kernel (as the run declared them), then repetition. */
static void print_rows(struct show *s)
{
	qsort(s->rows, s->nr_rows, sizeof(*s->rows), row_cmp);
	for (size_t i = 0; i < s->nr_rows; i++) {
		if (s->cells_out) {
			json_object_array_add(s->cells_out, s->rows[i].json);
			s->rows[i].json = NULL;
		} else {
			printf("%s\n", s->rows[i].text);
		}
	}
}

/* The run's kernels in its declared order come first (spec.kernels). */
static void declare_kernels(struct show *s, const struct results_run *run)
{
	for (size_t i = 0; i < run->info.kernels.nr; i++)
		kernel_for(s, run->info.kernels.v[i]);
}

static json_object *kernels_json(const struct show *s)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < s->nr_k; i++) {
		const struct kernel_acc *k = &s->k[i];
		json_object *o = json_object_new_object();
		json_object *figs = json_object_new_object();

		json_put_str(o, "kernel", k->name);
		json_put_int(o, "cells", k->cells);
		json_put_int(o, "ok", k->ok);
		for (size_t f = 0; f < s->nr_fig; f++) {
			struct stats_desc d;
			json_object *st;

			if (stats_describe(k->vals[f], k->n[f], &d))
				continue;
			st = json_object_new_object();
			json_put_int(st, "n", (long long)d.n);
			json_object_object_add(st, "mean",
					       json_object_new_double(d.amean));
			json_object_object_add(
				st, "sd", json_object_new_double(d.stddev));
			json_object_object_add(figs, s->fig[f]->name, st);
		}
		json_object_object_add(o, "figures", figs);
		json_object_array_add(arr, o);
	}
	return arr;
}

static void print_kernels(const struct show *s)
{
	printf("\nper kernel: mean (sd) over its cells that count "
	       "(infra-error never does)\n");
	for (size_t i = 0; i < s->nr_k; i++) {
		const struct kernel_acc *k = &s->k[i];

		printf("%-24.24s ok %d/%d\n", k->name, k->ok, k->cells);
		for (size_t f = 0; f < s->nr_fig; f++) {
			struct stats_desc d;

			if (stats_describe(k->vals[f], k->n[f], &d))
				continue;
			printf("    %-18s %12.1f (%.1f)\n", s->fig[f]->name,
			       d.amean, d.stddev);
		}
	}
}

static void print_header(const struct results_run *run, const struct show *s)
{
	const struct run_result *r = &run->info;

	printf("run %s: %s x %s, accel %s\n", str_or(r->id, ""),
	       str_or(r->topology, ""), str_or(r->workload, ""),
	       str_or(r->hostinfo.accel, ""));
	printf("\n%-20s %-3s %-12s", "kernel", "rep", "outcome");
	for (size_t f = 0; f < s->nr_fig; f++)
		printf(" %*s", width(s->fig[f]), s->fig[f]->name);
	printf("\n");
}

static void print_json(const struct results_run *run, struct show *s)
{
	const struct run_result *r = &run->info;
	json_object *o = json_object_new_object();

	json_put_str(o, "run", str_or(r->id, ""));
	json_put_str(o, "topology", str_or(r->topology, ""));
	json_put_str(o, "workload", str_or(r->workload, ""));
	json_put_str(o, "accel", str_or(r->hostinfo.accel, ""));
	json_object_object_add(o, "cells", s->cells_out);
	json_object_object_add(o, "kernels", kernels_json(s));
	puts(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	s->cells_out = NULL;
}

/* The figures: --metric names (each checked), else the default ones. */
static int pick_figures(struct show *s, const struct strvec *names)
{
	size_t n = names->nr ? names->nr : ARRAY_SIZE(default_figures);

	s->fig = xzalloc(n * sizeof(*s->fig));
	for (size_t i = 0; i < n; i++) {
		struct strbuf err = STRBUF_INIT;

		s->fig[i] = names->nr ? metric_lookup(names->v[i], &err) :
					&metric_rows[default_figures[i]];
		if (!s->fig[i])
			usage_error("wblab show", "--metric: %s", err.buf);
		strbuf_release(&err);
		if (!s->fig[i])
			return -1;
	}
	s->nr_fig = n;
	return 0;
}

static void show_free(struct show *s)
{
	for (size_t i = 0; i < s->nr_k; i++) {
		for (size_t f = 0; f < s->nr_fig; f++)
			free(s->k[i].vals[f]);
		free(s->k[i].vals);
		free(s->k[i].n);
		free(s->k[i].name);
	}
	for (size_t i = 0; i < s->nr_rows; i++) {
		free(s->rows[i].text);
		json_object_put(s->rows[i].json);
	}
	free(s->rows);
	free(s->k);
	free(s->fig);
	json_object_put(s->cells_out);
}

int cmd_show(int argc, char **argv)
{
	static const char *const usage[] = {
		"wblab show [--json] [--metric NAME]... RUN_DIR", NULL
	};
	struct strbuf err = STRBUF_INIT;
	struct strvec metrics = STRVEC_INIT;
	struct show s = { 0 };
	struct results_run run;
	bool json = false;
	int ret = 2;
	struct option opts[] = {
		OPT_BOOL(0, "json", &json,
			 "the same figures as JSON: cells, then per kernel"),
		OPT_STRLIST(0, "metric", &metrics, "NAME",
			    "show this metric (wblab metrics); repeatable"),
		OPT_END(),
	};

	if (parse_options(argc, argv, "wblab show", opts, usage, 0) != 1) {
		strvec_clear(&metrics);
		return usage_error("wblab show", "one RUN_DIR is needed");
	}
	if (pick_figures(&s, &metrics))
		goto out;
	if (results_open_run(argv[0], &run, &err)) {
		error("%s", err.buf);
		goto out;
	}
	if (json)
		s.cells_out = json_object_new_array();
	else
		print_header(&run, &s);
	declare_kernels(&s, &run);
	results_for_each_cell(&run, show_cell, &s);
	print_rows(&s);
	if (json)
		print_json(&run, &s);
	else
		print_kernels(&s);
	results_close_run(&run);
	ret = 0;
out:
	show_free(&s);
	strvec_clear(&metrics);
	strbuf_release(&err);
	return ret;
}
