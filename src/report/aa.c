// SPDX-License-Identifier: GPL-2.0
/*
 * The A/A split of `wblab aa --from` (report/report.h): existing cells of
 * one kernel put on two sides at random. Here, not in cmd/aa.c, so that
 * tests/test_calibration.c measures the split the command makes.
 */
#include <gsl/gsl_randist.h>
#include <stdlib.h>

#include "report/report.h"
#include "util/log.h"

static void set_side(struct rpt_cell *c, const char *side)
{
	free(c->side);
	c->side = xstrdup(side);
}

/*
 * Pairs of cells of the same run, so that both sides of a split sample
 * the same stretches of time, as `wblab run` interleaves kernels: a host
 * whose load drifts between runs then moves both sides alike. Returns
 * the number of pairs (pairs[2k], pairs[2k + 1]).
 */
size_t rpt_aa_pairs(const struct report *r, const size_t *ok, size_t pool,
		    gsl_rng *rng, size_t *pairs)
{
	size_t np = 0, *run = xmalloc((pool + 1) * sizeof(*run));

	for (size_t i = 0; i < pool;) {
		size_t k = 0, j = i;

		while (j < pool && r->cells[ok[j]]->run == r->cells[ok[i]]->run)
			run[k++] = ok[j++];
		gsl_ran_shuffle(rng, run, k, sizeof(*run));
		for (size_t p = 0; p + 1 < k; p += 2) {
			pairs[2 * np] = run[p];
			pairs[2 * np++ + 1] = run[p + 1];
		}
		i = j;
	}
	free(run);
	return np;
}

/* Side A and B of one split: n random pairs, a coin flip in each. */
static void split_paired(struct report *r, const size_t *ok, size_t pool,
			 gsl_rng *rng, size_t n)
{
	size_t *pairs = xmalloc((pool + 1) * sizeof(*pairs));
	size_t np = rpt_aa_pairs(r, ok, pool, rng, pairs);
	size_t *order = xmalloc((np + 1) * sizeof(*order));

	for (size_t i = 0; i < np; i++)
		order[i] = i;
	gsl_ran_shuffle(rng, order, np, sizeof(*order));
	for (size_t i = 0; i < n && i < np; i++) {
		int flip = gsl_rng_uniform_int(rng, 2);

		set_side(r->cells[pairs[2 * order[i] + flip]], "A");
		set_side(r->cells[pairs[2 * order[i] + !flip]], "B");
	}
	free(order);
	free(pairs);
}

void rpt_aa_split(struct report *r, size_t *ok, size_t pool, gsl_rng *rng,
		  size_t n, bool mixed)
{
	for (size_t i = 0; i < r->nr_cells; i++)
		set_side(r->cells[i], "");
	if (!mixed) {
		split_paired(r, ok, pool, rng, n);
		return;
	}
	gsl_ran_shuffle(rng, ok, pool, sizeof(*ok));
	for (size_t i = 0; i < 2 * n; i++)
		set_side(r->cells[ok[i]], i < n ? "A" : "B");
}
