// SPDX-License-Identifier: GPL-2.0
/*
 * Cells for the jobs, through the matrix engine (jobs/jobrun.h).
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/jobrun.h"
#include "util/log.h"

static void copy_list(struct spec_strlist *d, const struct spec_strlist *s)
{
	for (size_t i = 0; i < s->n; i++)
		spec_strlist_add(d, s->v[i]);
}

/* The template with its kernels replaced (and its thresholds left out). */
static void with_kernels(const struct matrix_spec *t, const char *const *k,
			 size_t n, int reps, struct matrix_spec *m)
{
	memset(m, 0, sizeof(*m));
	m->name = xstrdup(t->name);
	m->path = t->path ? xstrdup(t->path) : NULL;
	m->description = t->description ? xstrdup(t->description) : NULL;
	for (size_t i = 0; i < n; i++)
		spec_strlist_add(&m->kernels, k[i]);
	copy_list(&m->topologies, &t->topologies);
	copy_list(&m->workloads, &t->workloads);
	m->reps = reps;
	m->image = xstrdup(t->image ? t->image : SPEC_DEFAULT_IMAGE);
	for (size_t i = 0; i < t->nr_sizes; i++)
		matrix_spec_add_size(m, t->sizes[i].memory, t->sizes[i].vcpus);
}

int jobrun_add_kernel(struct jobrun *j, const struct kernel_spec *s)
{
	size_t i;

	if (kernel_spec_check_name(s->name))
		return -1;
	for (i = 0; i < j->nr_kernels; i++)
		if (!strcmp(j->kernels[i].name, s->name))
			break;
	if (i == j->nr_kernels)
		j->kernels = xrealloc(j->kernels,
				      ++j->nr_kernels * sizeof(*j->kernels));
	else
		kernel_spec_free(&j->kernels[i]);
	kernel_spec_copy(&j->kernels[i], s);
	j->mo.kernels = j->kernels;
	j->mo.nr_kernels = j->nr_kernels;
	return 0;
}

int jobrun_kernels(struct jobrun *j, const char *const *kernels, size_t n,
		   int reps, char **run_dir)
{
	struct matrix_spec m;
	struct matrix_run r;
	int ret;

	with_kernels(j->tmpl, kernels, n, reps, &m);
	memset(&r, 0, sizeof(r));
	ret = matrix_run(&m, &j->mo, &r);
	matrix_spec_free(&m);
	*run_dir = r.run_dir ? xstrdup(r.run_dir) : NULL;
	matrix_run_free(&r);
	if (ret == 2 || !*run_dir)
		return -1;
	return pool_load_run(&j->pool, *run_dir);
}

int jobrun_more(struct jobrun *j, const char *run_dir, int extra)
{
	struct matrix_run r;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = matrix_add_reps(run_dir, extra, &j->mo, &r);
	matrix_run_free(&r);
	if (ret == 2)
		return -1;
	return pool_load_run(&j->pool, run_dir);
}

void jobrun_free(struct jobrun *j)
{
	pool_free(&j->pool);
	for (size_t i = 0; i < j->nr_kernels; i++)
		kernel_spec_free(&j->kernels[i]);
	free(j->kernels);
	j->kernels = NULL;
	j->nr_kernels = 0;
}
