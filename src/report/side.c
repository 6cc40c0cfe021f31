// SPDX-License-Identifier: GPL-2.0
/*
 * What the report reads off one side's cells, shared by the groups'
 * tables (model.c) and the claims section (claims.c).
 */
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "results/outcome.h"

/* Cells of a side with an event of kind, each cell counted once. */
unsigned rpt_side_cells_with(const struct rpt_side *s, const char *kind)
{
	unsigned n = 0;

	for (size_t i = 0; i < s->n; i++)
		for (size_t e = 0; e < s->cells[i]->nr_events; e++)
			if (!strcmp(s->cells[i]->events[e].kind, kind)) {
				n++;
				break;
			}
	return n;
}

/* Figures of finished workloads only: a failed cell's partial numbers
 * would mix two populations. out holds s->n values. */
size_t rpt_side_row_values(const struct rpt_side *s, size_t m, double *out)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++)
		if (!isnan(s->cells[i]->val[m]) &&
		    outcome_is(s->cells[i]->outcome, OUTCOME_OK))
			out[k++] = s->cells[i]->val[m];
	return k;
}
