/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_NIGHTLY_INT_H
#define WBLAB_NIGHTLY_INT_H

#include <sqlite3.h>

#include "jobs/bisect.h"
#include "jobs/confirm.h"
#include "jobs/family.h"
#include "jobs/jobrun.h"
#include "jobs/nightly.h"
#include "jobs/tree.h"
#include "spec/matrix.h"
#include "util/strbuf.h"

/*
 * Private to wblab nightly's unit: nightly.c (a night: update, build,
 * run, detect, record) and nightly-confirm.c (the candidates' re-run,
 * the bisection and the mail).
 */
struct night {
	const struct nightly_opts *o;
	const struct nightly_tree *t;
	sqlite3 *db;
	long long id; /* the night in wblab.db */
	struct matrix_spec m;
	struct jobrun jr;
	struct tree_kernel k;
	char *run_dir;
	char *host, *accel; /* where tonight's cells ran */
	char *good_run, *good_commit, *good_kernel;
	/*
	 * good_commit is the commit before a change point of the history
	 * (history_change_candidates()), older than the last good night's: the
	 * re-run's reference and the bisection's good end.
	 */
	bool by_change;
	struct strbuf report; /* printed, never mailed */
	struct family det; /* tonight against the last good night */
	/* the confirmation */
	struct tree_kernel gk; /* the last good commit, rebuilt (cached) */
	struct jobrun jc;
	struct family conf;
	char *confirm_run;
	enum confirm_outcome outcome;
	struct bisect_opts b;
	bool bisected;
	double t_detect, t_confirm, t_bisect, t_mail; /* seconds */
};

/*
 * The candidates of n->det: re-run, decided, recorded; a confirmed one
 * bisected and mailed. The night's verdict: 'regression' (1), 'good' when
 * every candidate was rejected (0), 'unconfirmed' (0) or -1 when the lab
 * failed.
 */
int nightly_confirm(struct night *n);
void nightly_confirm_free(struct night *n);

#endif
