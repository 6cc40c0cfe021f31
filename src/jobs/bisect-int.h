/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_BISECT_INT_H
#define WBLAB_BISECT_INT_H

#include <stdbool.h>

#include "jobs/bisect.h"
#include "jobs/decide.h"
#include "jobs/jobrun.h"
#include "spec/matrix.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/strvec.h"

/*
 * Private to wblab bisect's unit: bisect.c (the search, the summary and
 * the commands), bisect-measure.c (building and measuring a commit, the
 * ends), bisect-log.c (bisect.json).
 */

enum mark { MARK_UNTESTED, MARK_GOOD, MARK_BAD, MARK_SKIP };

struct bstep {
	char commit[41];
	char subject[256];
	char kernel[80];
	char image[HASH_HEX_LEN + 1];
	char *run_dir;
	enum mark mark;
	char reason[256];
	char figures[1024];
	bool built; /* built by this bisection (not cached) */
	double build_s;
	int order; /* 1, 2, ...: when it was tested; 0 untested */
};

/*
 * Where a bisection's cells come from: NULL in bctx, the matrix engine
 * (jobrun_kernels(), jobrun_more()); tests/test_jobs_infra.c passes
 * captured runs, so that the real steps and ends are driven. Each loads
 * what ran into b->jr.pool; 0, or -1 when nothing could run.
 */
struct bisect_cells {
	int (*run)(void *ctx, const char *const *kernels, size_t n, int reps,
		   char **run_dir);
	int (*more)(void *ctx, const char *run_dir, int extra);
	void *ctx;
};

struct bctx {
	struct bisect_opts *o;
	const struct bisect_cells *cells; /* NULL: the matrix engine */
	struct matrix_spec m;
	struct jobrun jr;
	char *dir; /* results/bisect-<ts> */
	char *log;
	struct bstep good, bad;
	struct bstep *c; /* the range, oldest first; c[n - 1] is bad */
	size_t n;
	char *ends_run;
	char kind[64], title[256]; /* event mode */
	double ends_effect; /* B against G, % or pp, of the group decided */
	const char *ends_group;
	struct strvec groups; /* where the ends differ */
	double threshold;
	int reps, builds, steps;
};

/* mark_names[mark] */
extern const char *const mark_names[];

/* bisect-log.c: what is bisected, and the log */
bool bisect_event_mode(const struct bctx *b);
/* "metric NAME" or "event KIND[:TITLE]": what the bisection follows */
const char *bisect_what(const struct bctx *b);
/* Rewrite bisect.json (b->log) from b. */
void bisect_save_log(struct bctx *b);
/* Load a log: the ends' run and every tested step (their runs into the pool). */
int bisect_load_log(struct bctx *b, const char *path);

/* bisect-measure.c: one commit, and the ends */
/* Kernel ka against kb in one group (the bisection's metric or event). */
void bisect_compare(struct bctx *b, const char *ka, const char *kb,
		    const char *group, struct decision *d);
/* Build s's commit (and hand its kernel to the jobrun); -2 infra. */
int bisect_build(struct bctx *b, struct bstep *s);
/* A tested step, or an end, whose kernel image is s's, else NULL. */
const struct bstep *bisect_same_image(const struct bctx *b,
				      const struct bstep *s);
/* Build, run and mark s; -1 when the lab failed. */
int bisect_test_commit(struct bctx *b, struct bstep *s);
/*
 * Run s's cells (s->kernel, built) and mark it against the ends, adding
 * repetitions while unknown; -1 when the lab failed: a round (the first,
 * or 2 more) that brought s or the ends no cell with a kernel result
 * (every cell infra-error). s is then left untested, its reason saying
 * so, for --resume to test again: a host fault is no commit's verdict.
 */
int bisect_measure(struct bctx *b, struct bstep *s);
/*
 * Run the ends and check they differ where the bisection looks: 0; -1
 * not confirmed; -2 the lab failed (no cells, or a round of them all
 * infra-error).
 */
int bisect_confirm_ends(struct bctx *b);

/*
 * bisect-mail.c: the first bad commit c[first] as the 0-day robot's
 * report: the body appended to out, the mail written to DIR/first-bad.mail
 * (its path appended too), first_bad, subject and body set in b->o.
 */
void bisect_mail(struct bctx *b, long first, struct strbuf *out);

#endif
