// SPDX-License-Identifier: GPL-2.0
/*
 * Building and measuring one commit against the ends (jobs/bisect-int.h):
 * a commit is good, bad, or unknown until more repetitions decide, and
 * the ends are confirmed different first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/procedure.h"
#include "jobs/bisect-int.h"
#include "jobs/decide.h"
#include "jobs/tree.h"
#include "results/outcome.h"
#include "stats/stats.h"
#include "util/json.h"
#include "util/log.h"

/*
 * The level of a comparison at the look its cells are at: bisect adds
 * repetitions while unknown (n = reps, reps + 2, ... max), so it spends
 * alpha over those looks as validate does (decide/procedure.h), but with
 * Pocock's spending: a bisection's steps face the change its ends
 * confirmed, usually clear, and every step that can stop at n = 3 (level
 * 0.0226 there, against O'Brien-Fleming's 0.000207) saves four cells.
 */
static double look_level(const struct bctx *b, const char *ka, const char *kb,
			 const char *group)
{
	struct dlooks l = DLOOKS_INIT;
	size_t na = pool_count(&b->jr.pool, ka, group);
	size_t nb = pool_count(&b->jr.pool, kb, group);

	dlooks_plan(&l, b->reps, 2, b->o->max_reps);
	l.boundary = DBOUND_POCOCK;
	return dlooks_level(&l, (int)(na < nb ? na : nb));
}

void bisect_compare(struct bctx *b, const char *ka, const char *kb,
		    const char *group, struct decision *d)
{
	struct verdict_opts o = VERDICT_OPTS_INIT;

	o.alpha = look_level(b, ka, kb, group);
	o.threshold = b->threshold;
	if (bisect_event_mode(b))
		pool_decide_event(&b->jr.pool, ka, kb, group, b->kind,
				  *b->title ? b->title : NULL, &o, d);
	else
		pool_decide_metric(&b->jr.pool, ka, kb, group, b->o->metric, &o,
				   d);
}

static int sign(double x)
{
	return x > 0 ? 1 : x < 0 ? -1 : 0;
}

/* ---- building and measuring one commit ---- */

int bisect_build(struct bctx *b, struct bstep *s)
{
	struct tree_kernel k;
	int ret;

	info("bisect: building %.12s (\"%s\")", s->commit, s->subject);
	ret = tree_kernel_ensure(b->o->tree, s->commit, NULL, 0, &b->o->cfg,
				 &k);
	snprintf(s->kernel, sizeof(s->kernel), "%s", k.name);
	if (ret) {
		s->mark = MARK_SKIP;
		snprintf(s->reason, sizeof(s->reason),
			 "does not build (%s): %.200s",
			 kbuild_fail_name(k.fail), k.fail_msg);
		tree_kernel_release(&k);
		return k.fail == KBUILD_INFRA ? -2 : -1;
	}
	memcpy(s->image, k.image, sizeof(s->image));
	s->built = !k.cached;
	s->build_s = k.build_s;
	b->builds += s->built;
	ret = jobrun_add_kernel(&b->jr, &k.spec) ? -2 : 0;
	tree_kernel_release(&k);
	return ret;
}

/* The cells: the matrix engine's, or the caller's (struct bisect_cells). */
static int cells_run(struct bctx *b, const char *const *k, size_t n, int reps,
		     char **run_dir)
{
	if (b->cells)
		return b->cells->run(b->cells->ctx, k, n, reps, run_dir);
	return jobrun_kernels(&b->jr, k, n, reps, run_dir);
}

static int cells_more(struct bctx *b, const char *run_dir, int extra)
{
	if (b->cells)
		return b->cells->more(b->cells->ctx, run_dir, extra);
	return jobrun_more(&b->jr, run_dir, extra);
}

/*
 * 2 more repetitions of run's cells, for kernels ka and kb (NULL: ka
 * alone). -1 when they could not run or brought a side no cell with a
 * kernel result (every one infra-error): the lab failed, and more rounds
 * would only repeat it (the 7.2 tree's first step: 9 cells, all
 * infra-error, over 4 rounds, then "skip").
 */
static int grow_reps(struct bctx *b, const char *run, const char *ka,
		     const char *kb, int *reps)
{
	size_t had = pool_fewest(&b->jr.pool, ka, kb);

	info("bisect: unknown at n=%d: 2 more repetitions", *reps);
	if (cells_more(b, run, 2) || pool_fewest(&b->jr.pool, ka, kb) <= had) {
		warn("bisect: 2 more repetitions of %s brought no cell with a kernel result (%d infra-error so far): the lab failed",
		     ka, b->jr.pool.infra);
		return -1;
	}
	*reps += 2;
	return 0;
}

/*
 * The ends keep pace with a step that needs more repetitions: a step is
 * compared with the ends' cells, and against an end left at n cells no
 * number of its own makes the comparison surer than those n allow (night
 * 9 of the e2e: 4 crashes in 9 cells against 0 in the good end's 5 is
 * Fisher p=0.126 one-sided, and at 9 a side it would be 0.041; tests/ref/
 * bisect_events.py has the odds). Both sides get repetitions while
 * unknown, as the ends' confirmation does; it also keeps the look's
 * level (look_level(), the smaller side's n) at the step's look.
 */
static void grow_ends(struct bctx *b, int reps)
{
	const char *grp = b->groups.nr ? b->groups.v[0] : NULL;
	size_t n = pool_count(&b->jr.pool, b->good.kernel, grp);

	if (!b->ends_run || n >= (size_t)reps)
		return;
	info("bisect: the ends from n=%zu to n=%d with the step", n, reps);
	if (cells_more(b, b->ends_run, reps - (int)n))
		warn("bisect: the ends' repetitions did not run: the step is compared with n=%zu",
		     n);
}

/* good/bad/unknown of kernel k against the ends, over the groups. */
static enum mark classify(struct bctx *b, const char *k, struct strbuf *fig)
{
	int bad = 0, good = 0;

	strbuf_reset(fig);
	for (size_t g = 0; g < b->groups.nr; g++) {
		const char *grp = b->groups.v[g];
		struct decision dg, db;
		int dir = sign(b->ends_effect);

		bisect_compare(b, b->good.kernel, k, grp, &dg);
		if (bisect_event_mode(b))
			bisect_compare(b, k, b->bad.kernel, grp, &db);
		else
			bisect_compare(b, b->bad.kernel, k, grp, &db);
		strbuf_addf(fig, "%s%s\n    vs good: ", g ? "\n  " : "  ", grp);
		decision_format(&dg, bisect_what(b), fig);
		strbuf_addstr(fig, "\n    vs bad:  ");
		decision_format(&db, bisect_what(b), fig);
		if (dg.verdict == VERDICT_DIFFERENT && sign(dg.effect) == dir)
			bad++;
		else if (dg.verdict == VERDICT_SAME)
			good++;
		else if (db.verdict == VERDICT_SAME)
			bad++;
		else if (db.verdict == VERDICT_DIFFERENT &&
			 (bisect_event_mode(b) ? db.effect > 0 :
						 sign(db.effect) == -dir))
			good++;
	}
	if (bad)
		return MARK_BAD;
	return good == (int)b->groups.nr ? MARK_GOOD : MARK_UNTESTED;
}

static bool boot_failed_only(struct bctx *b, const char *k)
{
	size_t n = 0, bf = 0;

	for (size_t i = 0; i < b->jr.pool.n; i++) {
		const struct pool_cell *c = &b->jr.pool.v[i];

		if (strcmp(c->kernel, k))
			continue;
		n++;
		bf += c->cell->outcome == OUTCOME_BOOT_FAILED;
	}
	return n && bf == n;
}

const struct bstep *bisect_same_image(const struct bctx *b,
				      const struct bstep *s)
{
	const struct bstep *ends[] = { &b->good, &b->bad };

	for (size_t i = 0; i < 2; i++)
		if (!strcmp(ends[i]->image, s->image))
			return ends[i];
	for (size_t i = 0; i < b->n; i++)
		if (&b->c[i] != s && b->c[i].order && b->c[i].image[0] &&
		    (b->c[i].mark == MARK_GOOD || b->c[i].mark == MARK_BAD) &&
		    !strcmp(b->c[i].image, s->image))
			return &b->c[i];
	return NULL;
}

int bisect_test_commit(struct bctx *b, struct bstep *s)
{
	const struct bstep *twin;
	int r, ret = 0;

	s->order = ++b->steps;
	r = bisect_build(b, s);
	if (r == -2)
		return -1;
	if (r)
		goto done;
	twin = bisect_same_image(b, s);
	if (twin) {
		s->mark = twin == &b->good ? MARK_GOOD :
			  twin == &b->bad  ? MARK_BAD :
					     twin->mark;
		snprintf(
			s->reason, sizeof(s->reason),
			"kernel image identical to %.12s's: its verdict, no cells",
			twin->commit);
		goto done;
	}
	ret = bisect_measure(b, s);
done:
	info("bisect: %.12s is %s (%s)", s->commit, mark_names[s->mark],
	     s->reason);
	if (s->figures[0])
		fprintf(stderr, "%s\n", s->figures);
	bisect_save_log(b);
	return ret;
}

/* A step the lab failed: untested (--resume tests it again), said why. */
static int lab_failed(struct bctx *b, struct bstep *s, int reps)
{
	s->mark = MARK_UNTESTED;
	snprintf(
		s->reason, sizeof(s->reason),
		"the lab failed: a round of its cells brought no kernel result at n=%d (%d infra-error cells); not a verdict, --resume tests it again",
		reps, b->jr.pool.infra);
	return -1;
}

int bisect_measure(struct bctx *b, struct bstep *s)
{
	struct strbuf fig = STRBUF_INIT;
	const char *k[1];
	int reps = b->reps, ret = 0;

	k[0] = s->kernel;
	free(s->run_dir);
	s->run_dir = NULL;
	if (cells_run(b, k, 1, reps, &s->run_dir)) {
		s->mark = MARK_SKIP;
		snprintf(s->reason, sizeof(s->reason),
			 "the matrix did not run");
		goto out;
	}
	if (!pool_fewest(&b->jr.pool, s->kernel, NULL)) {
		ret = lab_failed(b, s, 0);
		goto out;
	}
	for (;;) {
		s->mark = classify(b, s->kernel, &fig);
		if (s->mark != MARK_UNTESTED || reps >= b->o->max_reps)
			break;
		if (boot_failed_only(b, s->kernel))
			break;
		if (grow_reps(b, s->run_dir, s->kernel, NULL, &reps)) {
			snprintf(s->figures, sizeof(s->figures), "%s", fig.buf);
			ret = lab_failed(b, s, reps);
			goto out;
		}
		grow_ends(b, reps);
	}
	snprintf(s->figures, sizeof(s->figures), "%s", fig.buf);
	if (boot_failed_only(b, s->kernel)) {
		s->mark = MARK_SKIP;
		snprintf(s->reason, sizeof(s->reason), "does not boot");
	} else if (s->mark == MARK_UNTESTED) {
		s->mark = MARK_SKIP;
		snprintf(
			s->reason, sizeof(s->reason),
			"unknown at n=%d (--max-reps), or too few cells with a kernel result",
			reps);
	} else {
		snprintf(s->reason, sizeof(s->reason), "n=%d", reps);
	}
out:
	strbuf_release(&fig);
	return ret;
}

/* ---- the ends ---- */

int bisect_confirm_ends(struct bctx *b)
{
	const char *k[2] = { b->good.kernel, b->bad.kernel };
	struct strbuf fig = STRBUF_INIT;
	struct verdict_opts o = VERDICT_OPTS_INIT;
	int reps = b->reps, ret = -1;

	if (!strcmp(b->good.image, b->bad.image)) {
		error("bisect: good %.12s and bad %.12s build identical kernel images: nothing to bisect",
		      b->good.commit, b->bad.commit);
		return -1;
	}
	if (!b->ends_run && cells_run(b, k, 2, reps, &b->ends_run)) {
		error("bisect: the ends' cells did not run");
		return -2;
	}
	bisect_save_log(b);
	if (!pool_fewest(&b->jr.pool, k[0], k[1])) {
		error("bisect: no cell of the ends has a kernel result (%d infra-error): the lab failed",
		      b->jr.pool.infra);
		return -2;
	}
	for (;;) {
		bool unknown = false;

		strvec_clear(&b->groups);
		strbuf_reset(&fig);
		for (size_t g = 0; g < b->jr.pool.groups.nr; g++) {
			const char *grp = b->jr.pool.groups.v[g];
			struct decision d;

			/*
			 * Without --threshold nothing but a change of 0 can be
			 * ruled out here: anything short of different is
			 * unknown, and the ends get more repetitions.
			 */
			o.threshold = b->o->threshold > 0 ? b->o->threshold : 0;
			o.alpha = look_level(b, k[0], k[1], grp);
			if (bisect_event_mode(b))
				pool_decide_event(&b->jr.pool, k[0], k[1], grp,
						  b->kind,
						  *b->title ? b->title : NULL,
						  &o, &d);
			else
				pool_decide_metric(&b->jr.pool, k[0], k[1], grp,
						   b->o->metric, &o, &d);
			strbuf_addf(&fig, "  %s: ", grp);
			decision_format(&d, bisect_what(b), &fig);
			strbuf_addch(&fig, '\n');
			if (d.verdict == VERDICT_DIFFERENT &&
			    (!bisect_event_mode(b) || d.effect > 0) &&
			    decision_beyond(&d, o.alpha)) {
				strvec_push(&b->groups, grp);
				if (!b->ends_group) {
					b->ends_effect = d.effect;
					b->ends_group = grp;
				}
			} else if (d.verdict == VERDICT_UNKNOWN ||
				   (d.verdict == VERDICT_DIFFERENT &&
				    verdict_change_beyond(0, d.v.diff, d.v.pct,
							  d.v.threshold,
							  d.v.floor))) {
				/*
				 * Different and past the threshold by the
				 * estimate but not shown beyond it at this
				 * look (the jobs' one rule): more cells.
				 */
				unknown = true;
			}
		}
		if (b->groups.nr || !unknown || reps >= b->o->max_reps)
			break;
		if (grow_reps(b, b->ends_run, k[0], k[1], &reps)) {
			/* Not "not confirmed": that would be the kernels'. */
			error("bisect: the ends are unknown at n=%d and the lab failed to add cells: %s",
			      reps, fig.buf);
			ret = -2;
			goto out;
		}
	}
	fprintf(stderr, "bisect: the ends (good %.12s, bad %.12s):\n%s",
		b->good.commit, b->bad.commit, fig.buf);
	snprintf(b->good.figures, sizeof(b->good.figures), "%s", fig.buf);
	if (!b->groups.nr) {
		fprintf(b->o->out,
			"bisect: the ends are not confirmed: good %.12s and bad %.12s do not differ in %s%s (n=%d per side):\n%s",
			b->good.commit, b->bad.commit, bisect_what(b),
			bisect_event_mode(b) ? " (a higher rate at bad)" : "",
			reps, fig.buf);
		goto out;
	}
	b->threshold = b->o->threshold > 0 ? b->o->threshold :
					     fabs(b->ends_effect) / 2;
	b->good.mark = MARK_GOOD;
	b->bad.mark = MARK_BAD;
	b->reps = reps;
	ret = 0;
out:
	strbuf_release(&fig);
	bisect_save_log(b);
	return ret;
}
