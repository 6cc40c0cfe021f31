/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_SPEC_MATRIX_H
#define WBLAB_SPEC_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"
#include "util/strbuf.h"

/*
 * lab/matrices/<name>.yaml: the cells of a comparison, as the product of
 * kernels x topologies x workloads x guest sizes x reps. Names only: the
 * engine resolves and checks the specs they name.
 */
struct matrix_size {
	long long memory; /* MiB; 0 = the workload's, else 1024 */
	long long vcpus; /* 0 = 2 */
};

/*
 * How much a metric may move before validate calls it a regression, and
 * which way is bad. Read by the jobs (validate, bisect, nightly).
 */
struct matrix_threshold {
	const struct metric *row; /* the registry's (results/metric.h) */
	char *metric; /* its name */
	double change_pct; /* relative change, in percent */
	char *bad; /* "up", "down" or "any" */
};

/*
 * exclude: entries. A cell is left out when every list the entry gives
 * holds its value (an empty list matches anything), as in CI matrices.
 */
struct matrix_exclude {
	struct spec_strlist kernels, topologies, workloads;
};

struct matrix_spec {
	char *name;
	char *path;
	char *description;
	struct spec_strlist kernels, topologies, workloads;
	/*
	 * levers: settings of the noise levers (results/levers.h), each a
	 * side of its own within every block; none: the defaults.
	 */
	struct spec_strlist levers;
	long long reps;
	char *image; /* default debian-12 */
	struct matrix_size *sizes; /* at least one after loading */
	size_t nr_sizes;
	struct matrix_threshold *thresholds;
	size_t nr_thresholds;
	struct matrix_exclude *excludes;
	size_t nr_excludes;
};

/* Load path; every error is "file:line: field: message" into err (or stderr). */
int matrix_spec_load(const char *path, const char *name,
		     struct matrix_spec *out, struct strbuf *err);
/* Resolve a name under lab/matrices/ or take a path; print errors; 0 on success. */
int matrix_spec_find(const char *name_or_path, struct matrix_spec *out);
void matrix_spec_free(struct matrix_spec *m);
/* Append a size or a threshold (for matrices built in code). */
void matrix_spec_add_size(struct matrix_spec *m, long long memory,
			  long long vcpus);
/*
 * A one-off matrix built in code (wblab run, wblab aa): name, one
 * topology, one workload, reps, image, one guest size; the caller adds
 * the kernels (spec_strlist_add(&m->kernels, ...)).
 */
void matrix_spec_one(struct matrix_spec *m, const char *name,
		     const char *topology, const char *workload, long long reps,
		     const char *image, long long memory, long long vcpus);
/* Is the cell (kernel, topology, workload) left out by an exclude: entry? */
bool matrix_spec_excluded(const struct matrix_spec *m, const char *kernel,
			  const char *topology, const char *workload);
/* Is (topology, workload) left out for every kernel: no cell pairs them? */
bool matrix_spec_pair_excluded(const struct matrix_spec *m,
			       const char *topology, const char *workload);
const struct matrix_threshold *
matrix_spec_threshold(const struct matrix_spec *m, const char *metric);

#endif
