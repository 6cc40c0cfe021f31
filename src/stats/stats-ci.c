// SPDX-License-Identifier: GPL-2.0
/*
 * The interval of a difference of two means (Welch): what the mail's
 * compact column prints beside each row's change, so that "-4.97%" is
 * read with the noise it sits in.
 */
#include <gsl/gsl_cdf.h>
#include <math.h>

#include "stats/stats.h"

double stats_welch_halfwidth(const struct stats_desc *a,
			     const struct stats_desc *b, double level)
{
	double va, vb, se2, df;

	if (a->n < 2 || b->n < 2 || !(level > 0 && level < 1))
		return NAN;
	va = a->stddev * a->stddev / (double)a->n;
	vb = b->stddev * b->stddev / (double)b->n;
	se2 = va + vb;
	if (se2 == 0)
		return 0; /* every cell of both sides holds one value each */
	/* Welch-Satterthwaite, as scipy.stats.ttest_ind(equal_var=False). */
	df = se2 * se2 /
	     (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	return gsl_cdf_tdist_Pinv(0.5 + level / 2, df) * sqrt(se2);
}
