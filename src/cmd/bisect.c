// SPDX-License-Identifier: GPL-2.0
/*
 * wblab bisect --tree DIR --good G --bad B --matrix M
 *              (--metric NAME [--threshold PCT] | --event KIND[:TITLE])
 *              [--max-reps N] [--resume LOG]
 * wblab bisect-step ...: the same comparison for the tree's HEAD, for
 * `git bisect run` (exit 0 good, 1 bad, 125 skip, 128 abort).
 * NAME is a metric of the registry (wblab metrics: reclaim-wr-direct);
 * an unknown one is bad usage, with the names it was close to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/run-options.h"
#include "jobs/bisect.h"
#include "results/metric.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "virt/virt.h"

static int parse(int argc, char **argv, const char *prefix,
		 struct bisect_opts *o, bool step)
{
	struct strbuf err = STRBUF_INIT;
	const char *metric = NULL;
	const struct option opts[] = {
		OPT_STRING(0, "tree", &o->tree, "DIR",
			   step ? "the git tree (default: .)" : "the git tree"),
		OPT_STRING(0, "good", &o->good, "G", "a good commit"),
		OPT_STRING(0, "bad", &o->bad, "B", "a bad commit"),
		OPT_STRING(0, "matrix", &o->matrix, "M",
			   "lab/matrices/<M>.yaml or a path"),
		OPT_STRING(0, "metric", &metric, "NAME",
			   "metric to bisect (wblab metrics lists them)"),
		OPT_DOUBLE(
			0, "threshold", &o->threshold, "PCT",
			"change that matters (default: half the ends' change)"),
		OPT_STRING(
			0, "event", &o->event, "KIND[:TITLE]",
			"event or outcome rate to bisect (oom, crashed:BUG...)"),
		OPT__MAX_REPS(&o->max_reps),
		OPT_STRING(0, "resume", &o->resume, "LOG",
			   "continue the bisection that wrote LOG"),
		OPT_STRING(0, "results", &o->results, "DIR",
			   "results directory"),
		OPT__CONFIG_FROM(
			&o->cfg,
			"lab kernel whose config base and fragments to use"),
		OPT__JOBS(0, &o->mo.jobs),
		OPT_END(),
	};
	const char *const usage[] = {
		step ? "git bisect run wblab bisect-step --good G --bad B --matrix M (--metric NAME [--threshold PCT] | --event KIND[:TITLE])" :
		       "wblab bisect --tree DIR --good G --bad B --matrix M (--metric NAME [--threshold PCT] | --event KIND[:TITLE]) [--max-reps N] [--resume LOG]",
		NULL
	};
	int n = parse_options_noexit(argc, argv, prefix, opts, usage, 0, stdout,
				     stderr);

	if (n == PARSE_OPT_HELP)
		return -1;
	if (n == PARSE_OPT_ERROR)
		return -2;
	if (n) {
		usage_error(prefix, "unexpected argument '%s'", argv[0]);
		return -2;
	}
	if (step && !o->tree)
		o->tree = ".";
	if (!o->tree || !o->good || !o->bad || !o->matrix) {
		usage_error(prefix,
			    "--tree, --good, --bad and --matrix are needed");
		return -2;
	}
	if (!metric == !o->event) {
		usage_error(prefix,
			    "give --metric NAME or --event KIND (one of them)");
		return -2;
	}
	if (o->threshold < 0) {
		usage_error(prefix, "--threshold: %g is negative",
			    o->threshold);
		return -2;
	}
	if (metric && !(o->metric = metric_lookup(metric, &err))) {
		usage_error(prefix, "--metric: %s", err.buf);
		strbuf_release(&err);
		return -2;
	}
	if (tree_config_check(&o->cfg))
		return -2;
	return 0;
}

#define BISECT_OPTS_INIT                                              \
	{                                                             \
		.results = "results",                                 \
		.cfg = { .from = SPEC_DEFAULT_CONFIG_FROM,            \
			 .fragments = STRVEC_INIT },                  \
		.max_reps = MAX_REPS_DEFAULT, .mo = MATRIX_OPTS_INIT, \
		.out = stdout                                         \
	}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_opts o = BISECT_OPTS_INIT;
	int r = parse(argc, argv, "wblab bisect", &o, false);

	if (r)
		return r == -1 ? 0 : 2;
	virt_install_signal_handlers();
	r = bisect_run(&o);
	bisect_opts_release(&o);
	strvec_clear(&o.cfg.fragments);
	return r;
}

/*
 * git bisect run exports GIT_DIR (the bisected worktree's git directory)
 * to the command: every git wblab runs inherited it, whatever its -C, so
 * the kernel build's own clone was checked out through the worktree's
 * index and sparse patterns and cleaned (the e2e's sparse worktree left
 * it with its top-level files only: "config fragment kvm_guest.config is
 * neither in lab/configs nor in the kernel's kernel/configs", a skip).
 * The tree is --tree's (default ".", where git runs the step): git finds
 * its repository from there.
 */
static void forget_git_repo_env(void)
{
	static const char *const vars[] = {
		"GIT_DIR",
		"GIT_WORK_TREE",
		"GIT_INDEX_FILE",
		"GIT_COMMON_DIR",
		"GIT_OBJECT_DIRECTORY",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES",
		"GIT_PREFIX",
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(*vars); i++)
		unsetenv(vars[i]);
}

/* Never 127 (git bisect run reads it as "cannot run"); bad usage aborts. */
int cmd_bisect_step(int argc, char **argv)
{
	struct bisect_opts o = BISECT_OPTS_INIT;
	int r;

	forget_git_repo_env();
	r = parse(argc, argv, "wblab bisect-step", &o, true);

	if (r)
		return r == -1 ? 0 : 128;
	virt_install_signal_handlers();
	return bisect_step(&o);
}
