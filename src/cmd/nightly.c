// SPDX-License-Identifier: GPL-2.0
/*
 * wblab nightly lab/nightly.yaml: update the trees named there, build
 * their heads, run the matrix, store the night, compare with the last good
 * one, bisect a regression, write the mail (jobs/nightly.c).
 * wblab history [--metric M] [--tree NAME] [--html FILE]: the nights as a
 * table, and plots over nights in HTML (jobs/history.c).
 * Exit (nightly): 0 no regression, 1 regression, 2 bad usage or spec, 3
 * the lab failed.
 */
#include <stdio.h>

#include "cmd/cmds.h"
#include "cmd/run-options.h"
#include "jobs/history.h"
#include "jobs/nightly.h"
#include "results/metric.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "virt/virt.h"

int cmd_nightly(int argc, char **argv)
{
	struct nightly_opts o = { .cfg = { .from = SPEC_DEFAULT_CONFIG_FROM,
					   .fragments = STRVEC_INIT },
				  .max_reps = MAX_REPS_DEFAULT,
				  .mo = MATRIX_OPTS_INIT,
				  .out = stdout };
	struct nightly_spec s;
	const struct option opts[] = {
		OPT__CONFIG_FROM(
			&o.cfg,
			"lab kernel whose config base and fragments to use"),
		OPT__MAX_REPS(&o.max_reps),
		OPT__JOBS(0, &o.mo.jobs),
		OPT_END(),
	};
	const char *const usage[] = { "wblab nightly lab/nightly.yaml", NULL };
	int n = parse_options(argc, argv, "wblab nightly", opts, usage, 0);
	int ret;

	if (n != 1)
		return usage_error("wblab nightly",
				   "one nightly spec file is needed");
	if (tree_config_check(&o.cfg) || nightly_spec_load(argv[0], &s, NULL))
		return 2;
	o.spec = &s;
	virt_install_signal_handlers();
	ret = nightly_run(&o);
	nightly_spec_free(&s);
	strvec_clear(&o.cfg.fragments);
	return ret;
}

int cmd_history(int argc, char **argv)
{
	struct history_opts o = { .results = "results" };
	const struct option opts[] = {
		OPT_STRING(0, "metric", &o.metric, "M",
			   "only this metric (wblab metrics lists them)"),
		OPT_STRING(0, "tree", &o.tree, "NAME", "only this tree"),
		OPT_STRING(0, "html", &o.html, "FILE",
			   "also write plots over nights (gnuplot SVG) here"),
		OPT_STRING(0, "results", &o.results, "DIR",
			   "results directory (its wblab.db)"),
		OPT_BOOL(0, "changes", &o.changes,
			 "list the change points of every series instead"),
		OPT_BOOL(
			0, "json", &o.json,
			"as JSON: the nights and candidates, or the change points"),
		OPT_INT(0, "min-nights", &o.min_nights, "N", 2, 1000,
			"the shortest segment between change points (3)"),
		OPT_END(),
	};
	const char *const usage[] = {
		"wblab history [--json] [--metric M] [--tree NAME] [--html FILE] [--results DIR]",
		"wblab history --changes [--json] [--min-nights N] [--metric M] [--tree NAME]",
		NULL
	};
	int n = parse_options(argc, argv, "wblab history", opts, usage, 0);
	struct strbuf err = STRBUF_INIT;
	const struct metric *m;

	if (n)
		return usage_error("wblab history", "unexpected argument '%s'",
				   argv[0]);
	if (o.json && o.html)
		return usage_error("wblab history",
				   "--json and --html: one at a time");
	if (o.metric) {
		m = metric_lookup(o.metric, &err);
		if (!m) {
			usage_error("wblab history", "--metric: %s", err.buf);
			strbuf_release(&err);
			return 2;
		}
		o.metric = m->name;
	}
	return history_print(&o, stdout);
}
