// SPDX-License-Identifier: GPL-2.0
/*
 * wblab matrix run FILE [--jobs N] [--hosts FILE] [--results DIR]
 *                       [--seed S] [--json] [--resume DIR/<run-id>]
 * Runs a matrix spec (lab/matrices/NAME.yaml, or a bare NAME) with the
 * matrix engine; --resume continues a run that was killed or interrupted.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/run-options.h"
#include "matrix/matrix.h"
#include "spec/matrix.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "virt/virt.h"

static const char *const matrix_usage[] = {
	"wblab matrix run (FILE | NAME) [options]",
	"wblab matrix run --resume DIR/<run-id> [options]",
	"wblab matrix show [--json] (FILE | NAME)",
	NULL,
};

static const char *const progress_names[] = { "auto", "tty", "plain", "quiet",
					      NULL };

static int parse_seed(const char *s, struct matrix_opts *o)
{
	char *end;

	o->seed = strtoull(s, &end, 0);
	o->has_seed = true;
	if (!*s || *end || *s == '-')
		return usage_error("wblab matrix run",
				   "--seed: '%s' is not an unsigned integer",
				   s);
	return 0;
}

static enum matrix_progress progress_mode(const char *s)
{
	for (int i = 0; progress_names[i]; i++)
		if (!strcmp(s, progress_names[i]))
			return (enum matrix_progress)i;
	return MATRIX_PROGRESS_AUTO;
}

static int matrix_run_cmd(int argc, char **argv)
{
	struct matrix_opts o = MATRIX_OPTS_INIT;
	const char *seed = NULL, *resume = NULL, *progress = "auto";
	int add_reps = 0;
	bool json = false;
	const struct option opts[] = {
		OPT__JOBS('j', &o.jobs),
		OPT_STRING(
			0, "hosts", &o.hosts, "FILE",
			"libvirt hosts to run on (lab/hosts.yaml); default one host at --uri"),
		OPT__URI(
			&o.uri,
			"libvirt URI without --hosts; $WBLAB_URI sets the default"),
		OPT__RESULTS(0, &o.results, "results directory"),
		OPT_STRING(
			0, "seed", &seed, "S",
			"order seed: the same seed gives the same order (without it: random, recorded)"),
		OPT_STRING(
			0, "resume", &resume, "DIR/RUN",
			"continue this run: cells with a result are kept, the others run"),
		OPT_INT(0, "add-reps", &add_reps, "N", 0, 1000,
			"with --resume: add N repetitions of every cell to the run"),
		OPT__RUN_JSON(&json),
		OPT_CHOICE(
			0, "progress", &progress, "MODE", progress_names,
			"auto (status lines on a TTY), tty, plain (timestamped lines) or quiet"),
		OPT_GROUP("cells"),
		OPT__BOOT_TIMEOUT(&o.boot_timeout, "agent hello deadline"),
		OPT_DURATION(0, "timeout", &o.timeout, "S", 0, 86400,
			     "workload wall clock (0: the workload's)"),
		OPT_DURATION(
			0, "deadline", &o.deadline, "S", 0, 7 * 86400,
			"overall deadline per cell (0: the sum of its phase timers)"),
		OPT_INT(0, "retries", &o.max_retries, "N", 0, 10,
			"infra-error retries per cell"),
		OPT__ACCEL(&o.accel, "MODE",
			   "auto (probe KVM, else TCG), kvm or tcg"),
		OPT__KEEP(&o.keep),
		OPT__CMDLINE_EXTRA(&o.cmdline_extra),
		OPT_END(),
	};
	struct matrix_spec m = { 0 };
	struct matrix_run r = { 0 };
	int ret;

	o.uri = virt_default_uri();
	ret = run_accel_env("wblab matrix run", &o.accel);
	if (ret)
		return ret;
	argc = parse_options(argc, argv, "wblab matrix run", opts, matrix_usage,
			     0);
	if (resume ? argc != 0 : argc != 1)
		return usage_error("wblab matrix run",
				   resume ?
					   "--resume takes no matrix file" :
					   "one matrix file or name is needed");
	if (add_reps && !resume)
		return usage_error("wblab matrix run",
				   "--add-reps needs --resume DIR/<run-id>");
	if (seed && parse_seed(seed, &o))
		return 2;
	o.progress = progress_mode(progress);
	if (resume && add_reps)
		ret = matrix_add_reps(resume, add_reps, &o, &r);
	else if (resume)
		ret = matrix_resume(resume, &o, &r);
	else if (matrix_spec_find(argv[0], &m))
		return 2;
	else
		ret = matrix_run(&m, &o, &r);
	if (ret != 2 && json && r.run_dir)
		matrix_print_run_json(r.run_dir);
	matrix_run_free(&r);
	matrix_spec_free(&m);
	return ret;
}

/* The cells a matrix expands to, in the order a seed gives. */
static int matrix_show_cmd(int argc, char **argv)
{
	const char *seed = "1";
	bool json = false;
	const struct option opts[] = {
		OPT_STRING(0, "seed", &seed, "S", "order seed"),
		OPT_BOOL(0, "json", &json, "print the cells as JSON"),
		OPT_END(),
	};
	struct matrix_opts o = MATRIX_OPTS_INIT;
	struct matrix_spec m;
	struct matrix_plan p;

	argc = parse_options(argc, argv, "wblab matrix show", opts,
			     matrix_usage, 0);
	if (argc != 1)
		return usage_error("wblab matrix show",
				   "one matrix file or name is needed");
	if (parse_seed(seed, &o))
		return 2;
	if (matrix_spec_find(argv[0], &m))
		return 2;
	matrix_expand(&m, o.seed, 1, (int)m.reps, &p);
	if (json) {
		json_object *jo = json_object_new_object();
		json_object *cells = json_object_new_array();

		json_object_object_add(jo, "matrix",
				       json_object_new_string(m.name));
		json_object_object_add(jo, "seed",
				       json_object_new_uint64(o.seed));
		for (size_t i = 0; i < p.n; i++) {
			json_object *c = json_object_new_object();

			json_object_object_add(
				c, "id", json_object_new_string(p.cells[i].id));
			json_object_object_add(
				c, "block",
				json_object_new_int(p.cells[i].block));
			json_object_array_add(cells, c);
		}
		json_object_object_add(jo, "cells", cells);
		puts(json_object_to_json_string_ext(
			jo, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(jo);
	} else {
		printf("# %s: %zu cells, seed %llu\n", m.name, p.n,
		       (unsigned long long)o.seed);
		for (size_t i = 0; i < p.n; i++)
			printf("%4zu  block %-4d %s\n", i + 1, p.cells[i].block,
			       p.cells[i].id);
	}
	matrix_plan_free(&p);
	matrix_spec_free(&m);
	return 0;
}

int cmd_matrix(int argc, char **argv)
{
	static const struct subcommand subs[] = {
		{ "run", matrix_run_cmd },
		{ "show", matrix_show_cmd },
		{ NULL, NULL },
	};
	const struct option opts[] = { OPT_END() };

	return parse_subcommand(argc, argv, "wblab matrix", opts, matrix_usage,
				subs);
}
