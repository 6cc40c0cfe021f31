// SPDX-License-Identifier: GPL-2.0
/* Vectors of doubles and their nearest-rank percentiles (util/dvec.h). */
#include <math.h>
#include <stdlib.h>

#include "util/dvec.h"
#include "util/log.h"

void dvec_push(struct dvec *d, double x)
{
	if (d->n == d->alloc) {
		d->alloc = d->alloc ? 2 * d->alloc : 256;
		d->v = xrealloc(d->v, d->alloc * sizeof(*d->v));
	}
	d->v[d->n++] = x;
}

void dvec_clear(struct dvec *d)
{
	free(d->v);
	d->v = NULL;
	d->n = d->alloc = 0;
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void dvec_sort(struct dvec *d)
{
	/* qsort(NULL, 0, ...) is undefined (UBSan in make check-asan). */
	if (d->n)
		qsort(d->v, d->n, sizeof(*d->v), cmp_double);
}

double dvec_sum(const struct dvec *d)
{
	double sum = 0;

	for (size_t i = 0; i < d->n; i++)
		sum += d->v[i];
	return sum;
}

double dvec_nearest_rank(const struct dvec *d, double q)
{
	size_t r;

	if (!d->n)
		return NAN;
	r = (size_t)ceil(q * d->n);
	if (r > d->n)
		r = d->n;
	return d->v[r ? r - 1 : 0];
}
