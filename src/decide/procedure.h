/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_DECIDE_PROCEDURE_H
#define WBLAB_DECIDE_PROCEDURE_H

#include <stdbool.h>
#include <stddef.h>

#include "decide/verdict.h"

/*
 * How validate, bisect and nightly decide: one procedure for all three,
 * and for `wblab decide`, so that a user can re-check a job's verdict.
 *
 * A job looks at its cells several times: n = first, first + step, ...,
 * max per side, adding repetitions while a row is unknown. Looking again
 * is testing again: a 5% test looked at four times says "different" about
 * one time in eight when nothing changed. So the level is spent across
 * the looks (a group-sequential boundary, O'Brien-Fleming by default: very
 * strict early, close to alpha at the last look), and at each look Holm's
 * step-down shares alpha among the rows x groups tested and the events,
 * each step spending alpha / (rows left) over the looks, so that alpha
 * bounds the chance that a harmless patch is called a regression
 * anywhere. Rows that could never reach the level take no share. `same` is an equivalence test (TOST)
 * against each row's threshold at the look's level.
 */
enum dboundary {
	DBOUND_OBF, /* O'Brien-Fleming-like spending */
	DBOUND_POCOCK, /* Pocock-like spending */
	DBOUND_NONE, /* every look at alpha: uncalibrated, for comparison */
};

struct dlooks {
	double alpha; /* family-wise over looks, rows and groups */
	int first, step, max; /* the looks: n per side */
	enum dboundary boundary;
};

#define DLOOKS_INIT                                             \
	{                                                       \
		.alpha = 0.05, .first = 3, .step = 2, .max = 9, \
		.boundary = DBOUND_OBF                          \
	}

/*
 * The looks of a job that starts at first cells a side and adds step
 * while a row is unknown and it has fewer than max_reps: the last look
 * is the first at or past max_reps (3, 5, 7, 9 for a max of 8).
 */
void dlooks_plan(struct dlooks *l, int first, int step, int max_reps);
/* What the level at the look with n per side is (n is rounded down to a look). */
double dlooks_level(const struct dlooks *l, int n);
const char *dboundary_name(enum dboundary b);
int dboundary_parse(const char *s);
/* The names by enum dboundary, NULL-terminated (an OPT_CHOICE list). */
extern const char *const dboundary_names[];

/* One hypothesis a job tests: a thresholded row of a group, or an event. */
struct dhyp {
	char *group;
	char *what; /* registry row name, or "new KIND: title" */
	bool event; /* a new event: one-sided Fisher, no `same` */
	int bad; /* +1: up is bad, -1: down is bad, 0: either */
	double threshold; /* % of the reference (metric), pp (event) */
	struct vdecision d; /* from verdict_metric() / dhyp_event() */
	/*
	 * The level this row's p faced: its Holm step's (the look's level
	 * of alpha / rows left), or the look's when it takes no share
	 */
	double level;
	char holm[96]; /* "Holm step 1 of 3: alpha/3" or why no share */
	/*
	 * different, in the bad direction, and beyond the threshold by a
	 * one-sided test at the row's level (or from no spread: the change)
	 */
	bool regression;
	/*
	 * different the bad way but not shown beyond the threshold: neither
	 * a regression nor cleared; a job counts it with the unknown rows
	 */
	bool unsettled;
};

/*
 * An event's threshold (percentage points of cells) when h has none: an
 * event kind is `same` when the one-sided bound of its rise is below it.
 * At 9 cells a side nothing tighter can be reached: a kind neither side
 * showed in 9 cells is still allowed 36pp at validate's last level.
 */
#define DHYP_EVENT_PP 50

/*
 * An event either side showed: p is Fisher's one-sided p that b has it
 * more often; `same` needs its rise bounded below h->threshold (or
 * DHYP_EVENT_PP when h has none).
 */
void dhyp_event(struct dhyp *h, unsigned fail_a, unsigned runs_a,
		unsigned fail_b, unsigned runs_b);
/*
 * An event's "KIND[: title]" whatever its what says ("new KIND" when the
 * reference never showed it): how a detection finds its re-run's row.
 */
const char *dhyp_event_key(const struct dhyp *h);

/*
 * Decide every hypothesis at the look with n per side: Holm at the
 * look's level over all of them, TOST for `same`, then regression.
 */
void decide_family(struct dhyp *h, size_t nh, const struct dlooks *l, int n);

void dhyp_release(struct dhyp *h, size_t nh);

/*
 * A change of diff (pct % of the reference, NAN from 0) in h's bad
 * direction and beyond its threshold: what makes a different row a
 * regression, and a change point of the nights' history a candidate.
 */
bool dhyp_bad_change(const struct dhyp *h, double diff, double pct);

/*
 * h's decision with its smallest detectable change ("could see", printed
 * on unknown rows) at the level h faced, in its bad direction: worked
 * out when asked (a power solve), not at every look.
 */
void dhyp_sdc(const struct dhyp *h, struct vdecision *d);

/*
 * "different reclaim-wr-direct: 0 -> 241 pages, n 5/5 (log1p-welch
 * p=0.0008, Holm 0.0016 < 0.0064); threshold 10%, bad up".
 */
void dhyp_format(const struct dhyp *h, struct strbuf *out);

#endif
