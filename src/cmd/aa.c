// SPDX-License-Identifier: GPL-2.0
/*
 * wblab aa: the A/A self-check. The same kernel runs as two sides, cells
 * interleaved (odd reps are side A, even reps side B), and the report of
 * A against B says how many rows came out significant: every star is a
 * false alarm. With --from, existing cells of one kernel are split at
 * random into two sides many times (--splits), to measure the average
 * and the worst share of flagged rows the report's defaults give.
 */
#include <gsl/gsl_rng.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/run-options.h"
#include "matrix/matrix.h"
#include "report/report.h"
#include "results/levers.h"
#include "results/outcome.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "virt/virt.h"

struct aa_args {
	const char *kernel, *topology, *workload, *results, *test, *levers;
	struct strvec from;
	int n, splits, seed;
	bool verbose, show, mixed;
};

static void set_side(struct rpt_cell *c, const char *side)
{
	free(c->side);
	c->side = xstrdup(side);
}

static void print_flags(const struct report *r)
{
	const struct rpt_group *g = &r->groups[0];

	for (size_t s = 1; s < g->nr_sides; s++)
		for (size_t m = 0; m < metric_nr_rows; m++)
			if (g->cmp[s][m].star)
				printf("  flagged: %s (p %.3g, q %.3g)\n",
				       metric_rows[m].name,
				       g->cmp[s][m].welch.p, g->cmp[s][m].q);
}

/*
 * Run the cells with the matrix engine, as wblab run would (its defaults,
 * $WBLAB_ACCEL): *dir is the run, or NULL when nothing ran. The engine's
 * exit status (2: a spec or an option was wrong, nothing started).
 */
static int aa_run(const struct aa_args *a, char **dir)
{
	struct matrix_opts o = MATRIX_OPTS_INIT;
	struct matrix_spec m;
	struct matrix_run r = { 0 };
	int ret;

	*dir = NULL;
	o.results = a->results;
	o.uri = virt_default_uri();
	o.command = "aa";
	ret = run_accel_env("wblab aa", &o.accel);
	if (ret)
		return ret;
	matrix_spec_one(&m, "aa", a->topology, a->workload, 2 * a->n,
			SPEC_DEFAULT_IMAGE, 0, 2);
	spec_strlist_add(&m.kernels, a->kernel);
	if (a->levers)
		spec_strlist_add(&m.levers, a->levers);
	info("aa: %d cells of %s, interleaved into two sides", 2 * a->n,
	     a->kernel);
	ret = matrix_run(&m, &o, &r);
	if (ret != 2 && r.run_dir)
		*dir = xstrdup(r.run_dir);
	else
		error("wblab aa: the cells did not run");
	matrix_run_free(&r);
	matrix_spec_free(&m);
	return *dir ? ret : 2;
}

static int aa_interleaved(const struct aa_args *a, struct report *r)
{
	struct strbuf err = STRBUF_INIT, mail = STRBUF_INIT;
	char *dir, side[2][128];
	const struct rpt_group *g;
	int ret = aa_run(a, &dir) == 2 ? 2 : 1;

	if (!dir)
		return ret;
	ret = 1;
	if (report_load_run(r, dir, &err))
		goto fail;
	snprintf(side[0], sizeof(side[0]), "%s:A", a->kernel);
	snprintf(side[1], sizeof(side[1]), "%s:B", a->kernel);
	for (size_t i = 0; i < r->nr_cells; i++)
		set_side(r->cells[i], side[r->cells[i]->rep % 2 == 0]);
	if (report_build(r, &err))
		goto fail;
	report_mail(r, &mail);
	fwrite(mail.buf, 1, mail.len, stdout);
	g = &r->groups[0];
	printf("\nA/A %s: %zu of %zu tested rows flagged (%.1f%%), test %s\n",
	       dir, g->starred, g->tested,
	       g->tested ? 100.0 * g->starred / g->tested : 0,
	       rpt_test_names[r->o.test]);
	print_flags(r);
	ret = 0;
	goto out;
fail:
	error("wblab aa: %s", err.buf);
out:
	strbuf_release(&err);
	strbuf_release(&mail);
	free(dir);
	return ret;
}

/* Random splits of existing cells of one kernel into two sides of n. */
static int aa_splits(const struct aa_args *a, struct report *r)
{
	struct strbuf err = STRBUF_INIT;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t *idx = NULL, *mix = NULL, pool = 0, *flags;
	double sum = 0, worst = 0;
	int n = a->n, ret = 2;

	flags = xzalloc(metric_nr_rows * sizeof(*flags));
	gsl_rng_set(rng, a->seed);
	for (size_t i = 0; i < a->from.nr; i++)
		if (report_load_run(r, a->from.v[i], &err))
			goto fail;
	idx = xmalloc((r->nr_cells + 1) * sizeof(*idx));
	for (size_t i = 0; i < r->nr_cells; i++) {
		const struct rpt_cell *c = r->cells[i], *c0 = r->cells[0];

		if (strcmp(c->kernel, c0->kernel) ||
		    strcmp(c->topology, c0->topology) ||
		    strcmp(c->workload, c0->workload) ||
		    c->memory_mib != c0->memory_mib ||
		    strcmp(c->levers, c0->levers)) {
			strbuf_addf(&err,
				    "%s: cell %s is not %s/%s/%s/%d MiB/%s "
				    "like the first: an A/A split needs one "
				    "kernel in one group",
				    c->run->dir, c->id, c0->kernel,
				    c0->topology, c0->workload, c0->memory_mib,
				    c0->levers);
			goto fail;
		}
		if (outcome_is(c->outcome, OUTCOME_OK))
			idx[pool++] = i;
	}
	{
		size_t *pairs = xmalloc((pool + 1) * sizeof(*pairs));
		size_t np = a->mixed ? pool / 2 :
				       rpt_aa_pairs(r, idx, pool, rng, pairs);

		free(pairs);
		if (!n)
			n = np;
		if ((size_t)n > np)
			n = INT_MAX;
	}
	if (n < STATS_MIN_N || 2 * (size_t)n > pool) {
		strbuf_addf(&err,
			    "%zu ok cells: cannot split into two "
			    "sides of %d (at least %d each)",
			    pool, n, STATS_MIN_N);
		goto fail;
	}
	mix = xmalloc((pool + 1) * sizeof(*mix));
	memcpy(mix, idx, pool * sizeof(*mix));
	printf("A/A: %d random %s splits of %zu ok cells into %d vs %d, "
	       "test %s, alpha %.2f\n",
	       a->splits, a->mixed ? "mixed" : "run-paired", pool, n, n,
	       rpt_test_names[r->o.test], r->o.alpha);
	for (int s = 0; s < a->splits; s++) {
		const struct rpt_group *g;
		double frac;

		rpt_aa_split(r, a->mixed ? mix : idx, pool, rng, n, a->mixed);
		if (report_build(r, &err))
			goto fail;
		g = &r->groups[0];
		frac = g->tested ? (double)g->starred / g->tested : 0;
		sum += frac;
		worst = frac > worst ? frac : worst;
		printf("split %2d: %zu of %zu rows flagged (%.1f%%)\n", s + 1,
		       g->starred, g->tested, 100 * frac);
		for (size_t m = 0; m < metric_nr_rows; m++)
			flags[m] += g->cmp[1][m].star;
		if (a->verbose)
			print_flags(r);
		if (a->show && !s) {
			struct strbuf mail = STRBUF_INIT;

			report_mail(r, &mail);
			fwrite(mail.buf, 1, mail.len, stdout);
			strbuf_release(&mail);
		}
	}
	printf("A/A over %d splits: mean %.1f%% of rows flagged, worst "
	       "report %.1f%%\n",
	       a->splits, 100 * sum / a->splits, 100 * worst);
	for (size_t m = 0; m < metric_nr_rows; m++)
		if (flags[m])
			printf("  %-20s flagged in %zu splits\n",
			       metric_rows[m].name, flags[m]);
	ret = 0;
	goto out;
fail:
	error("wblab aa: %s", err.buf);
out:
	gsl_rng_free(rng);
	free(idx);
	free(mix);
	free(flags);
	strbuf_release(&err);
	return ret;
}

int cmd_aa(int argc, char **argv)
{
	struct aa_args a = { .results = "results",
			     .test = "fit",
			     .splits = 20,
			     .seed = 1,
			     .from = STRVEC_INIT };
	const struct option opts[] = {
		OPT_STRING(0, "kernel", &a.kernel, "K", "the kernel"),
		OPT_STRING(0, "topology", &a.topology, "T", "the topology"),
		OPT_STRING(0, "workload", &a.workload, "W", "the workload"),
		OPT_INT('n', NULL, &a.n, "N", 0, 500,
			"cells per side (runs 2N; with --from default: half)"),
		OPT_STRING(0, "results", &a.results, "DIR",
			   "results directory for the run"),
		OPT_STRING(0, "levers", &a.levers, "SET",
			   "run every cell with these noise levers "
			   "(docs/report.md, Noise)"),
		OPT_CHOICE(
			0, "test", &a.test, "TEST", rpt_test_names,
			"what earns a star: fit (each row's own test), welch-bh, welch or bands"),
		OPT_GROUP("Splitting existing cells instead of running"),
		OPT_STRLIST(0, "from", &a.from, "RUN_DIR",
			    "cells of these runs (one kernel, one group)"),
		OPT_INT(0, "splits", &a.splits, "N", 1, 10000,
			"random splits to evaluate"),
		OPT_INT(0, "seed", &a.seed, "S", 0, 1000000000,
			"random seed of the splits"),
		OPT_BOOL('v', "verbose", &a.verbose,
			 "name the flagged rows of each split"),
		OPT_BOOL(0, "mixed", &a.mixed,
			 "split across runs at random (default: pairs of "
			 "cells of the same run, one to each side)"),
		OPT_BOOL(0, "show", &a.show,
			 "print the mail report of the first split"),
		OPT_END(),
	};
	const char *const usage[] = {
		"wblab aa --kernel K --topology T --workload W -n N",
		"wblab aa --from RUN_DIR... [--splits N] [-n N] [--seed S]",
		NULL
	};
	struct report_opts o = REPORT_OPTS_INIT;
	struct report r;
	int n = parse_options(argc, argv, "wblab aa", opts, usage, 0), ret;

	if (n)
		return usage_error("wblab aa", "unexpected argument '%s'",
				   argv[0]);
	if (a.levers) {
		struct strbuf err = STRBUF_INIT;
		struct levers lv;

		if (levers_parse(a.levers, &lv, &err)) {
			n = usage_error("wblab aa", "--levers '%s': %s",
					a.levers, err.buf);
			strbuf_release(&err);
			return n;
		}
		strbuf_release(&err);
	}
	for (int i = 0; rpt_test_names[i]; i++)
		if (!strcmp(a.test, rpt_test_names[i]))
			o.test = i;
	if (!a.from.nr &&
	    (!a.kernel || !a.topology || !a.workload || a.n < STATS_MIN_N))
		return usage_error("wblab aa",
				   "--kernel, --topology, --workload and -n "
				   "(at least %d) are needed",
				   STATS_MIN_N);
	report_init(&r, &o);
	ret = a.from.nr ? aa_splits(&a, &r) : aa_interleaved(&a, &r);
	report_release(&r);
	strvec_clear(&a.from);
	return ret;
}
