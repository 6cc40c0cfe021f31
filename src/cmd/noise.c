// SPDX-License-Identifier: GPL-2.0
/*
 * wblab noise RUN_DIR... [--row ROW]... [--at N]...: the spread of each
 * row, per group (topology, workload, guest memory, levers) and side
 * (kernel), and the smallest change a comparison of N cells a side could
 * show at that spread: the report's model and the decision code's
 * smallest detectable change (decide/verdict.h, verdict_sdc_n()), at the
 * report's alpha and power. bench/noise runs it on an A/A run of one
 * kernel under each lever setting (issue 46).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "decide/verdict.h"
#include "report/report.h"
#include "results/metric.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "util/strvec.h"

/* Issue 46's rows: throughput, time, pressure, stall and latency. */
static const enum metric_id default_rows[] = {
	METRIC_FIO_WRITE, METRIC_WORKLOAD_TIME, METRIC_PSI_MEM_SOME,
	METRIC_MEMCG_STALL_P95, METRIC_WRITE_LAT_P99
};

struct noise_args {
	struct strvec rows, at;
	const struct metric **m;
	size_t nm;
	int *n;
	size_t nn;
};

static int parse_rows(struct noise_args *a)
{
	struct strbuf err = STRBUF_INIT;
	size_t want = a->rows.nr ? a->rows.nr : ARRAY_SIZE(default_rows);

	a->m = xzalloc((want + 1) * sizeof(*a->m));
	for (size_t i = 0; i < want; i++) {
		a->m[i] = a->rows.nr ? metric_lookup(a->rows.v[i], &err) :
				       &metric_rows[default_rows[i]];
		if (!a->m[i]) {
			usage_error("wblab noise", "--row: %s", err.buf);
			strbuf_release(&err);
			return -1;
		}
		a->nm++;
	}
	strbuf_release(&err);
	return 0;
}

static int parse_at(struct noise_args *a)
{
	static const char *const dflt[] = { "5", "9" };
	size_t want = a->at.nr ? a->at.nr : ARRAY_SIZE(dflt);

	a->n = xzalloc((want + 1) * sizeof(*a->n));
	for (size_t i = 0; i < want; i++) {
		const char *s = a->at.nr ? a->at.v[i] : dflt[i];
		char *end;
		long v = strtol(s, &end, 10);

		if (*end || end == s || v < 2 || v > 1000)
			return usage_error("wblab noise",
					   "--at: '%s' is not a number of "
					   "cells in 2..1000",
					   s);
		a->n[a->nn++] = (int)v;
	}
	return 0;
}

static void print_side(const struct report *r, const struct noise_args *a,
		       const struct rpt_side *sd)
{
	printf("  %s, %zu cells\n", sd->name, sd->n);
	printf("    %-18s %3s %12s %-8s %9s", "row", "n", "mean", "unit",
	       "CoeffVar");
	for (size_t k = 0; k < a->nn; k++)
		printf("  sdc n=%-3d", a->n[k]);
	printf("\n");
	for (size_t i = 0; i < a->nm; i++) {
		size_t m = metric_index(a->m[i]);
		const struct stats_desc *d = &sd->desc[m];

		printf("    %-18s %3zu %12.4g %-8s %8.1f%%", a->m[i]->name,
		       d->n, d->n ? d->amean : NAN, a->m[i]->unit,
		       d->n ? d->coeffvar : NAN);
		for (size_t k = 0; k < a->nn; k++) {
			double abs = verdict_sdc_n(a->m[i]->test,
						   metric_log_offset(a->m[i]),
						   sd->vals[m], d->n,
						   (size_t)a->n[k], r->o.alpha,
						   r->o.power);

			printf("  %8.1f%%",
			       d->amean ? 100 * abs / fabs(d->amean) : NAN);
		}
		printf("\n");
	}
}

static void print_report(const struct report *r, const struct noise_args *a)
{
	printf("# spread per group and side; sdc n=N: the smallest change "
	       "(%% of the mean) two sides of N cells spread like these "
	       "show at alpha %.3g with power %.2g (the report's)\n",
	       r->o.alpha, r->o.power);
	for (size_t g = 0; g < r->nr_groups; g++) {
		const struct rpt_group *gr = &r->groups[g];

		printf("\n%s / %s / %d MiB / levers %s\n", gr->topology,
		       gr->workload, gr->memory_mib,
		       *gr->levers_brief ? gr->levers_brief : "default");
		for (size_t s = 0; s < gr->nr_sides; s++)
			print_side(r, a, &gr->sides[s]);
	}
	if (r->nr_infra)
		printf("\n%zu infra-error cells left out\n", r->nr_infra);
}

int cmd_noise(int argc, char **argv)
{
	struct noise_args a = { .rows = STRVEC_INIT, .at = STRVEC_INIT };
	const struct option opts[] = {
		OPT_STRLIST(0, "row", &a.rows, "ROW",
			    "a registry row (default: fio-write, "
			    "workload-time, psi-mem-some, memcg-stall-p95, "
			    "write-lat-p99); repeatable"),
		OPT_STRLIST(0, "at", &a.at, "N",
			    "cells a side for the smallest detectable change "
			    "(default 5 and 9); repeatable"),
		OPT_END(),
	};
	const char *const usage[] = {
		"wblab noise RUN_DIR... [--row ROW]... [--at N]...", NULL
	};
	struct report_opts o = REPORT_OPTS_INIT;
	struct strbuf err = STRBUF_INIT;
	struct report r;
	int n = parse_options(argc, argv, "wblab noise", opts, usage, 0);
	int ret = 2;

	report_init(&r, &o);
	if (n < 1) {
		usage_error("wblab noise", "no run directory given");
		goto out;
	}
	if (parse_rows(&a) || parse_at(&a))
		goto out;
	for (int i = 0; i < n; i++)
		if (report_load_run(&r, argv[i], &err))
			goto fail;
	if (report_build(&r, &err))
		goto fail;
	print_report(&r, &a);
	ret = 0;
	goto out;
fail:
	error("wblab noise: %s", err.buf);
out:
	report_release(&r);
	strbuf_release(&err);
	strvec_clear(&a.rows);
	strvec_clear(&a.at);
	free(a.m);
	free(a.n);
	return ret;
}
