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

struct matrix_args {
	int jobs, boot_timeout, timeout, deadline, retries, add_reps;
	const char *hosts, *results, *seed, *resume, *uri, *accel, *progress;
	const char *cmdline_extra;
	bool json, keep;
};

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
	struct matrix_args a = { .results = "results",
				 .accel = "auto",
				 .progress = "auto",
				 .boot_timeout = 120,
				 .retries = 2 };
	const struct option opts[] = {
		OPT_INT('j', "jobs", &a.jobs, "N", 0, 1024,
			"cells at once at most (default: what the hosts' cores and memory allow)"),
		OPT_STRING(
			0, "hosts", &a.hosts, "FILE",
			"libvirt hosts to run on (lab/hosts.yaml); default one host at --uri"),
		OPT__URI(
			&a.uri,
			"libvirt URI without --hosts (default $WBLAB_URI or qemu:///system)"),
		OPT__RESULTS(0, &a.results, "results directory"),
		OPT_STRING(
			0, "seed", &a.seed, "S",
			"order seed: the same seed gives the same order (default: random, recorded)"),
		OPT_STRING(
			0, "resume", &a.resume, "DIR/RUN",
			"continue this run: cells with a result are kept, the others run"),
		OPT_INT(0, "add-reps", &a.add_reps, "N", 0, 1000,
			"with --resume: add N repetitions of every cell to the run"),
		OPT__RUN_JSON(&a.json),
		OPT_CHOICE(
			0, "progress", &a.progress, "MODE", progress_names,
			"auto (status lines on a TTY), tty, plain (timestamped lines) or quiet"),
		OPT_GROUP("cells"),
		OPT__BOOT_TIMEOUT(&a.boot_timeout,
				  "agent hello deadline (default 120)"),
		OPT_DURATION(0, "timeout", &a.timeout, "S", 0, 86400,
			     "workload wall clock (default: the workload's)"),
		OPT_DURATION(
			0, "deadline", &a.deadline, "S", 0, 7 * 86400,
			"overall deadline per cell (default: the sum of its phase timers)"),
		OPT_INT(0, "retries", &a.retries, "N", 0, 10,
			"infra-error retries per cell (default 2)"),
		OPT__ACCEL(&a.accel, "MODE",
			   "auto (probe KVM, else TCG), kvm or tcg"),
		OPT__KEEP(&a.keep),
		OPT__CMDLINE_EXTRA(&a.cmdline_extra),
		OPT_END(),
	};
	struct matrix_opts o = MATRIX_OPTS_INIT;
	struct matrix_spec m = { 0 };
	struct matrix_run r = { 0 };
	int ret;

	ret = run_accel_env("wblab matrix run", &a.accel);
	if (ret)
		return ret;
	argc = parse_options(argc, argv, "wblab matrix run", opts, matrix_usage,
			     0);
	if (a.resume ? argc != 0 : argc != 1)
		return usage_error("wblab matrix run",
				   a.resume ?
					   "--resume takes no matrix file" :
					   "one matrix file or name is needed");
	if (a.add_reps && !a.resume)
		return usage_error("wblab matrix run",
				   "--add-reps needs --resume DIR/<run-id>");
	if (a.seed && parse_seed(a.seed, &o))
		return 2;
	o.results = a.results;
	o.jobs = a.jobs;
	o.hosts = a.hosts;
	o.uri = a.uri;
	o.accel = a.accel;
	o.boot_timeout = a.boot_timeout;
	o.timeout = a.timeout;
	o.deadline = a.deadline;
	o.max_retries = a.retries;
	o.keep = a.keep;
	o.cmdline_extra = a.cmdline_extra;
	o.progress = progress_mode(a.progress);
	o.command = "matrix";
	if (a.resume && a.add_reps)
		ret = matrix_add_reps(a.resume, a.add_reps, &o, &r);
	else if (a.resume)
		ret = matrix_resume(a.resume, &o, &r);
	else if (matrix_spec_find(argv[0], &m))
		return 2;
	else
		ret = matrix_run(&m, &o, &r);
	if (ret != 2 && a.json && r.run_dir)
		matrix_print_run_json(r.run_dir);
	matrix_run_free(&r);
	matrix_spec_free(&m);
	return ret;
}

/* The cells a matrix expands to, in the order a seed gives. */
static int matrix_show_cmd(int argc, char **argv)
{
	const char *seed = NULL;
	bool json = false;
	const struct option opts[] = {
		OPT_STRING(0, "seed", &seed, "S", "order seed (default 1)"),
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
	o.seed = 1;
	if (seed && parse_seed(seed, &o))
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
