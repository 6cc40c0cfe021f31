// SPDX-License-Identifier: GPL-2.0
/*
 * wblab show RUN_DIR: the key figures of every cell of a run, and per
 * kernel the mean and standard deviation of each, as plain text.
 * For tests and confidence intervals across runs: `wblab report`.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "util/json.h"
#include "util/log.h"
#include "util/parse-options.h"

/* The figures shown, by cell.json path; absent ones print as "-". */
static const struct figure {
	const char *head;
	const char *path;
	double scale;
} figures[] = {
	{ "allocstall", "metrics.allocstall", 1 },
	{ "memcg-recl", "metrics.trace.memcg_reclaim.count", 1 },
	{ "wr-direct", "metrics.vmscan_write_file_direct", 1 },
	{ "wr-kswapd", "metrics.vmscan_write_file_kswapd", 1 },
	{ "oom", "metrics.oom_kill", 1 },
	{ "fio-MiB/s", "metrics.fio.0.write.bw_kib_s", 1.0 / 1024 },
	{ "stack-B", "metrics.stack_max_bytes", 1 },
};

#define NR_FIG (sizeof(figures) / sizeof(figures[0]))
#define MAX_K 8

struct acc {
	char kernel[64];
	int cells, ok;
	double sum[NR_FIG], sq[NR_FIG];
	int n[NR_FIG];
};

static const char *str_at(json_object *o, const char *path)
{
	const char *s = json_object_get_string(json_path(o, path));

	return s ? s : "";
}

static struct acc *acc_for(struct acc *acc, int *nk, const char *kernel)
{
	for (int k = 0; k < *nk; k++)
		if (!strcmp(acc[k].kernel, kernel))
			return &acc[k];
	if (*nk == MAX_K)
		return NULL;
	snprintf(acc[*nk].kernel, sizeof(acc[*nk].kernel), "%s", kernel);
	return &acc[(*nk)++];
}

/* One cell: its row (text, or an element of out) and its kernel's sums. */
static void show_cell(const char *run_dir, json_object *c, struct acc *a,
		      json_object *out)
{
	const char *dir = str_at(c, "dir");
	const char *kernel = str_at(c, "kernel");
	char *cp = xasprintf("%s/%s/cell.json", run_dir, dir);
	json_object *cell = json_object_from_file(cp);
	const char *outcome = cell ? str_at(cell, "outcome") : "missing";
	json_object *row = NULL, *figs = NULL;

	if (out) {
		row = json_object_new_object();
		figs = json_object_new_object();
		json_object_object_add(row, "kernel",
				       json_object_new_string(kernel));
		json_object_object_add(row, "rep",
				       json_object_new_int(json_object_get_int(
					       json_path(c, "rep"))));
		json_object_object_add(row, "outcome",
				       json_object_new_string(outcome));
		json_object_object_add(row, "dir", json_object_new_string(dir));
	} else {
		printf("%-20.20s %-3d %-12s", kernel,
		       json_object_get_int(json_path(c, "rep")), outcome);
	}
	if (a) {
		a->cells++;
		a->ok += !strcmp(outcome, "ok");
	}
	for (size_t f = 0; f < NR_FIG; f++) {
		json_object *v = cell ? json_path(cell, figures[f].path) : NULL;
		double d = v ? json_object_get_double(v) * figures[f].scale : 0;

		if (figs)
			json_object_object_add(figs, figures[f].head,
					       v ? json_object_new_double(d) :
						   NULL);
		else if (v)
			printf(" %9.1f", d);
		else
			printf(" %9s", "-");
		if (v && a) {
			a->sum[f] += d;
			a->sq[f] += d * d;
			a->n[f]++;
		}
	}
	if (row) {
		json_object_object_add(row, "figures", figs);
		json_object_array_add(out, row);
	} else {
		printf("\n");
	}
	json_object_put(cell);
	free(cp);
}

static double acc_sd(const struct acc *a, size_t f, double mean)
{
	double n = a->n[f];

	return n > 1 ? sqrt(fmax(0, (a->sq[f] - n * mean * mean) / (n - 1))) :
		       0;
}

static json_object *kernels_json(const struct acc *acc, int nk)
{
	json_object *arr = json_object_new_array();

	for (int k = 0; k < nk; k++) {
		json_object *o = json_object_new_object();
		json_object *figs = json_object_new_object();

		json_object_object_add(o, "kernel",
				       json_object_new_string(acc[k].kernel));
		json_object_object_add(o, "cells",
				       json_object_new_int(acc[k].cells));
		json_object_object_add(o, "ok", json_object_new_int(acc[k].ok));
		for (size_t f = 0; f < NR_FIG; f++) {
			json_object *s;
			double mean;

			if (!acc[k].n[f])
				continue;
			mean = acc[k].sum[f] / acc[k].n[f];
			s = json_object_new_object();
			json_object_object_add(
				s, "n", json_object_new_int(acc[k].n[f]));
			json_object_object_add(s, "mean",
					       json_object_new_double(mean));
			json_object_object_add(s, "sd",
					       json_object_new_double(acc_sd(
						       &acc[k], f, mean)));
			json_object_object_add(figs, figures[f].head, s);
		}
		json_object_object_add(o, "figures", figs);
		json_object_array_add(arr, o);
	}
	return arr;
}

static void print_kernels(const struct acc *acc, int nk)
{
	printf("\nper kernel: mean (sd) over its cells\n");
	for (int k = 0; k < nk; k++) {
		printf("%-24.24s ok %d/%d\n", acc[k].kernel, acc[k].ok,
		       acc[k].cells);
		for (size_t f = 0; f < NR_FIG; f++) {
			double mean;

			if (!acc[k].n[f])
				continue;
			mean = acc[k].sum[f] / acc[k].n[f];
			printf("    %-10s %12.1f (%.1f)\n", figures[f].head,
			       mean, acc_sd(&acc[k], f, mean));
		}
	}
}

int cmd_show(int argc, char **argv)
{
	static const char *const usage[] = { "wblab show [--json] RUN_DIR",
					     NULL };
	struct acc acc[MAX_K] = { 0 };
	json_object *run, *cells, *out = NULL;
	const char *run_dir;
	bool json = false;
	int nk = 0;
	char *path;
	struct option opts[] = {
		OPT_BOOL(0, "json", &json,
			 "the same figures as JSON: cells, then per kernel"),
		OPT_END(),
	};

	if (parse_options(argc, argv, "wblab show", opts, usage, 0) != 1)
		return usage_error("wblab show", "one RUN_DIR is needed");
	run_dir = argv[0];
	path = xasprintf("%s/run.json", run_dir);
	run = json_object_from_file(path);
	if (!run) {
		error("%s: cannot read run.json", path);
		free(path);
		return 2;
	}
	free(path);
	cells = json_path(run, "cells");
	if (json) {
		out = json_object_new_array();
	} else {
		printf("run %s: %s x %s, accel %s\n", str_at(run, "run"),
		       str_at(run, "spec.topology"),
		       str_at(run, "spec.workload"), str_at(run, "host.accel"));
		printf("\n%-20s %-3s %-12s", "kernel", "rep", "outcome");
		for (size_t f = 0; f < NR_FIG; f++)
			printf(" %9s", figures[f].head);
		printf("\n");
	}
	for (size_t i = 0; i < json_object_array_length(cells); i++) {
		json_object *c = json_object_array_get_idx(cells, i);

		show_cell(run_dir, c, acc_for(acc, &nk, str_at(c, "kernel")),
			  out);
	}
	if (json) {
		json_object *o = json_object_new_object();

		json_object_object_add(
			o, "run", json_object_new_string(str_at(run, "run")));
		json_object_object_add(
			o, "topology",
			json_object_new_string(str_at(run, "spec.topology")));
		json_object_object_add(
			o, "workload",
			json_object_new_string(str_at(run, "spec.workload")));
		json_object_object_add(
			o, "accel",
			json_object_new_string(str_at(run, "host.accel")));
		json_object_object_add(o, "cells", out);
		json_object_object_add(o, "kernels", kernels_json(acc, nk));
		puts(json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PRETTY |
				   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		print_kernels(acc, nk);
	}
	json_object_put(run);
	return 0;
}
