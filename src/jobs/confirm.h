/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_CONFIRM_H
#define WBLAB_JOBS_CONFIRM_H

#include <json-c/json.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>

#include "jobs/family.h"
#include "util/strbuf.h"

/*
 * Confirmation of a night's candidate regression (after Chromium's
 * Pinpoint): detection (tonight's cells against the last good night's,
 * one look) only names candidates; the last good commit and tonight's are
 * then run again, interleaved in one run, and decided with the jobs'
 * procedure (jobs/family.h, decide/procedure.h), repetitions added while
 * a candidate is unknown. Only a regression there (different, in the bad
 * direction, beyond the threshold) is bisected and mailed.
 */
enum confirm_outcome {
	CONFIRM_REGRESSION, /* the re-run has a regression */
	CONFIRM_REJECTED, /* every candidate same, or not in the bad direction */
	CONFIRM_UNKNOWN, /* a candidate still unknown */
};

const char *confirm_outcome_name(enum confirm_outcome c);

/*
 * A candidate of the detection: a regression of its family, or any event
 * kind tonight showed that the last good night never did (a crash in one
 * cell of three is no significant rate yet, but it is news to confirm).
 */
bool confirm_is_candidate(const struct dhyp *h);
size_t confirm_candidates(const struct family *det);

/*
 * The outcome of the candidates of det (the detection)
 * in conf, the confirmation's family at its look; *unknown gets how many
 * candidates conf leaves unknown. An event kind the re-run never showed
 * is rejected (no hypothesis in conf). Pure.
 */
enum confirm_outcome confirm_decide(const struct family *det,
				    const struct family *conf, size_t *unknown);

/* conf's hypothesis of a candidate, or NULL. */
const struct dhyp *confirm_find(const struct family *conf,
				const struct dhyp *cand);

/*
 * candidates(night, grp, what, outcome, verdict, ref, mean, pct, p, na,
 * nb, detect_p, run_dir, ref_commit): one row per candidate of a night,
 * with the confirmation's figures (ref: the last good commit's mean or
 * rate, mean: tonight's; verdict same, different, unknown or absent) and
 * the commit re-run as the reference (the last good night's, or the one
 * before a change point; NULL in rows of before the column). The table is
 * made by resdb_schema() (results/db.c), as the database is opened.
 */
int confirm_record(sqlite3 *db, long long night, const struct family *det,
		   const struct family *conf, const char *run_dir,
		   const char *ref_commit);
/*
 * The first earlier night of the same tree, host and accelerator as night
 * whose candidate grp/what was confirmed (so bisected and mailed) since
 * their last good night: the regression is known, and a night that finds
 * it again is not bisected or mailed again. Its id, 0 if none, -1 error.
 */
long long confirm_known(sqlite3 *db, long long night, const char *grp,
			const char *what);
/*
 * Rows of det (tonight against the last good night) that are no
 * regression of the detection but were confirmed as one since the last
 * good night (confirm_known()): each becomes a candidate (its regression
 * flag set), a line in report says so. A regression stays a candidate
 * until a re-run clears it: the detection's one look at 3 cells a side
 * can miss it, and a missed night would become the last good night.
 * Returns how many rows were carried, -1 on error.
 */
int confirm_carry(sqlite3 *db, long long night, struct family *det,
		  struct strbuf *report);
/*
 * The first night after `since` (inclusive) and before night, of night's
 * tree, host and accelerator, whose candidate grp/what was confirmed, or
 * rejected by a re-run whose reference was ref (the commit of the
 * change's last night before it), or left unknown by such a re-run
 * fewer than 3 nights before night: a change point since which the row
 * was confirmed (bisected, mailed), or re-run across the same change and
 * found the same or not settled, is no candidate again (until 3 nights
 * more, for an unknown one) (history_change_candidates()).
 * 0 none, -1 error.
 */
long long confirm_since(sqlite3 *db, long long night, const char *grp,
			const char *what, long long since, const char *ref);
/*
 * wblab history: the candidates of the nights shown, as a table; "against"
 * is ref_commit, the commit the re-run compared tonight's with ("-" in a
 * wblab.db of before it).
 */
int confirm_print(sqlite3 *db, const char *tree, FILE *out);
/*
 * The same as a JSON array (wblab history --json): night, commit,
 * ref_commit, group, candidate, outcome, verdict, na, nb, ref_mean, mean,
 * change_pct, p, detect_p, run_dir; NULL (said) on a database error.
 */
json_object *confirm_json(sqlite3 *db, const char *tree);
/* The same as an HTML table (escaped), appended to html. */
int confirm_html(sqlite3 *db, const char *tree, struct strbuf *html);

#endif
