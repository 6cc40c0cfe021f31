/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_DVEC_H
#define WBLAB_DVEC_H

#include <stddef.h>

/* A growable vector of doubles: the samples a collector summarises. */
struct dvec {
	double *v;
	size_t n, alloc;
};

#define DVEC_INIT \
	{         \
		0 \
	}

void dvec_push(struct dvec *d, double x);
void dvec_clear(struct dvec *d);
/* Ascending order (qsort with cmp_double). */
void dvec_sort(struct dvec *d);
double dvec_sum(const struct dvec *d);
/*
 * The nearest-rank q-quantile (0 < q <= 1) of a sorted vector: the value
 * at rank ceil(q * n), a sample that occurred, as cell.json's p50/p95
 * are (docs/collectors.md). NAN when the vector is empty: no sample has
 * no percentile (json_number() writes it as null). The report's
 * quantiles of a metric across cells interpolate instead
 * (stats_quantile(), R's type 7).
 */
double dvec_nearest_rank(const struct dvec *d, double q);

/* qsort's comparison of doubles, ascending. */
int cmp_double(const void *a, const void *b);

#endif
