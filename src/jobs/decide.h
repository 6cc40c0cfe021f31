/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_DECIDE_H
#define WBLAB_DECIDE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "decide/verdict.h"
#include "util/strbuf.h"

struct cell_result;

/*
 * The jobs' view of one decision (decide/verdict.h underneath): the row's
 * registry test, TOST for `same`, at the level the caller passes as
 * alpha (bisect: its look's, decide/procedure.h). validate, nightly and
 * `wblab decide` decide whole families (jobs/family.h) instead. The
 * effect is in % of the reference, +-100% from a reference of 0, and in
 * percentage points for a rate. The options are decide/verdict.h's.
 */

struct decision {
	enum verdict verdict;
	bool rate; /* a fail:runs comparison */
	int na, nb; /* samples (runs) that entered */
	int fa, fb; /* rate: failures */
	double a, b; /* means, or rates in [0, 1] */
	double sa, sb; /* standard deviations (metric) */
	/*
	 * B against A: for a metric in % of |mean A| (of |mean B| when A's mean
	 * is 0, then +-100% means "from nothing"), for a rate in percentage
	 * points. The smallest detectable effect is in the same unit.
	 */
	double effect;
	double p;
	enum metric_test test; /* the test that gave p */
	double sde;
	char why[200];
	struct vdecision v; /* the verdict underneath, for decision_beyond() */
};

/* Values that are NaN are left out (a cell where the metric is absent). */
void decide_metric(const struct metric *m, const double *a, size_t na,
		   const double *b, size_t nb, const struct verdict_opts *o,
		   struct decision *d);
void decide_rate(int fail_a, int runs_a, int fail_b, int runs_b,
		 const struct verdict_opts *o, struct decision *d);

/*
 * d's change is beyond the threshold its options gave (% of the
 * reference, pp for a rate; 0: any change at least the row's floor)
 * either way, by the jobs' one rule (vdecision_beyond(): the estimate and
 * the non-inferiority test at level). From a reference of 0 a metric's
 * effect reads +-100% ("from nothing") but is no percentage: the row's
 * floor is its threshold (before, `bisect --threshold 150` refused the
 * ends of 0 -> 295 pages as a +100% change, and 0 -> 2 pages was beyond
 * any threshold).
 */
bool decision_beyond(const struct decision *d, double level);
/*
 * One line: "different: n=3/3 mean 0 -> 5012 (+100.0%) p=0.0012
 * sde=25.1% (threshold 10%)". what names the metric or event.
 */
void decision_format(const struct decision *d, const char *what,
		     struct strbuf *out);

/*
 * Whether a counting cell had the event: kind is an outcome name
 * ("crashed", "hung") or a console event kind ("oom", "stack_overflow");
 * title (optional) must then be a substring of one such event's title.
 * Returns 1 hit, 0 miss, -1 the cell does not count.
 */
int decide_cell_event(const struct cell_result *cell, const char *kind,
		      const char *title);

#endif
