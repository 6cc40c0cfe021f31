// SPDX-License-Identifier: GPL-2.0
/*
 * wblab show RUN_DIR: the key figures of every cell of a run, and per
 * kernel the mean and standard deviation of each, as plain text.
 * The statistics and the full reports come with `wblab report`.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "util/json.h"
#include "util/log.h"

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

int cmd_show(int argc, char **argv)
{
	struct acc acc[MAX_K] = { 0 };
	int nk = 0;
	json_object *run, *cells;
	char *path;

	if (argc != 2 || !strcmp(argv[1], "--help")) {
		fprintf(argc == 2 ? stdout : stderr,
			"usage: wblab show RUN_DIR\n");
		return argc == 2 ? 0 : 2;
	}
	path = xasprintf("%s/run.json", argv[1]);
	run = json_object_from_file(path);
	if (!run) {
		error("%s: cannot read run.json", path);
		free(path);
		return 2;
	}
	free(path);
	cells = json_path(run, "cells");
	printf("run %s: %s x %s, accel %s\n",
	       json_object_get_string(json_path(run, "run")),
	       json_object_get_string(json_path(run, "spec.topology")),
	       json_object_get_string(json_path(run, "spec.workload")),
	       json_object_get_string(json_path(run, "host.accel")));
	printf("\n%-20s %-3s %-12s", "kernel", "rep", "outcome");
	for (size_t f = 0; f < NR_FIG; f++)
		printf(" %9s", figures[f].head);
	printf("\n");
	for (size_t i = 0; i < json_object_array_length(cells); i++) {
		json_object *c = json_object_array_get_idx(cells, i);
		const char *dir = json_object_get_string(json_path(c, "dir"));
		const char *kernel =
			json_object_get_string(json_path(c, "kernel"));
		char *cp = xasprintf("%s/%s/cell.json", argv[1], dir);
		json_object *cell = json_object_from_file(cp);
		const char *outcome = cell ? json_object_get_string(json_path(
						     cell, "outcome")) :
					     "missing";
		struct acc *a = NULL;

		for (int k = 0; k < nk; k++)
			if (!strcmp(acc[k].kernel, kernel))
				a = &acc[k];
		if (!a && nk < MAX_K) {
			a = &acc[nk++];
			snprintf(a->kernel, sizeof(a->kernel), "%s", kernel);
		}
		printf("%-20.20s %-3d %-12s", kernel,
		       json_object_get_int(json_path(c, "rep")), outcome);
		if (a) {
			a->cells++;
			a->ok += !strcmp(outcome, "ok");
		}
		for (size_t f = 0; f < NR_FIG; f++) {
			json_object *v =
				cell ? json_path(cell, figures[f].path) : NULL;
			double d = v ? json_object_get_double(v) *
						   figures[f].scale :
				       0;

			if (!v) {
				printf(" %9s", "-");
				continue;
			}
			printf(" %9.1f", d);
			if (a) {
				a->sum[f] += d;
				a->sq[f] += d * d;
				a->n[f]++;
			}
		}
		printf("\n");
		json_object_put(cell);
		free(cp);
	}
	printf("\nper kernel: mean (sd) over its cells\n");
	for (int k = 0; k < nk; k++) {
		printf("%-24.24s ok %d/%d\n", acc[k].kernel, acc[k].ok,
		       acc[k].cells);
		for (size_t f = 0; f < NR_FIG; f++) {
			double n = acc[k].n[f], mean, sd;

			if (!n)
				continue;
			mean = acc[k].sum[f] / n;
			sd = n > 1 ? sqrt(fmax(0, (acc[k].sq[f] -
						   n * mean * mean) /
							  (n - 1))) :
				     0;
			printf("    %-10s %12.1f (%.1f)\n", figures[f].head,
			       mean, sd);
		}
	}
	json_object_put(run);
	return 0;
}
