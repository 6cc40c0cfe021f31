// SPDX-License-Identifier: GPL-2.0
/*
 * wblab bisect and bisect-step (jobs/bisect.h).
 *
 * A commit C is compared with both ends, G (good) and B (bad), in every
 * group (topology/workload/size) where the ends differ:
 *   C differs from G in the ends' direction   -> bad
 *   C is the same as G                          -> good
 *   C is the same as B                          -> bad
 *   C differs from B, towards G                 -> good
 *   otherwise unknown: more repetitions, up to --max-reps, then skip.
 * Any group bad makes the commit bad; good needs every group good. A
 * round of cells that brings no kernel result (every cell infra-error)
 * stops the bisection as the lab's failure (exit 3, resumable), never a
 * skip or "not confirmed": a host fault is no verdict on a commit.
 *
 * The log (bisect.json in the bisection's directory, rewritten after each
 * step) holds the ends' run and every tested commit's run and verdict;
 * --resume LOG loads it and carries on without rebuilding or rerunning
 * what it lists.
 *
 * This file is the search, the summary and the two commands; a commit is
 * built and measured in bisect-measure.c, the log is bisect-log.c's (a
 * unit sharing bisect-int.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jobs/bisect-int.h"
#include "jobs/bisect.h"
#include "decide/procedure.h"
#include "jobs/decide.h"
#include "jobs/jobrun.h"
#include "jobs/tree.h"
#include "spec/matrix.h"
#include "stats/stats.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"

/* ---- the search ---- */

long bisect_pick(const bool *skipped, long lo, long hi)
{
	long mid = lo + (hi - lo) / 2;

	for (long d = 0; d < hi - lo; d++) {
		if (mid + d < hi && mid + d > lo && !skipped[mid + d])
			return mid + d;
		if (mid - d > lo && mid - d < hi && !skipped[mid - d])
			return mid - d;
	}
	return -1;
}

static long pick(const struct bctx *b, long lo, long hi)
{
	bool *skipped = xzalloc((b->n + 1) * sizeof(*skipped));
	long r;

	for (size_t i = 0; i < b->n; i++)
		skipped[i] = b->c[i].mark == MARK_SKIP;
	r = bisect_pick(skipped, lo, hi);
	free(skipped);
	return r;
}

static void print_summary(struct bctx *b, long first)
{
	FILE *f = b->o->out;
	const struct bstep *fb = &b->c[first];
	struct strbuf mail = STRBUF_INIT;
	int tested = 0;

	fprintf(f, "first bad commit: %s (\"%s\")\n\n", fb->commit,
		fb->subject);
	bisect_mail(b, first, &mail);
	fputs(mail.buf, f);
	fputc('\n', f);
	strbuf_release(&mail);
	for (size_t i = 0; i < b->n; i++)
		tested += b->c[i].order > 0;
	fprintf(f,
		"bisection: %zu commits after good, %d tested, %d kernel builds (%d incremental after the first), %zu cells (%d infra-error left out), n=%d per commit at first\n\n",
		b->n, tested, b->builds, b->builds ? b->builds - 1 : 0,
		b->jr.pool.n, b->jr.pool.infra, b->reps);
	fprintf(f, "steps:\n  good %.12s (\"%s\")\n  bad  %.12s (\"%s\")\n%s",
		b->good.commit, b->good.subject, b->bad.commit, b->bad.subject,
		b->good.figures);
	for (int o = 1; o <= b->steps; o++)
		for (size_t i = 0; i < b->n; i++) {
			const struct bstep *s = &b->c[i];

			if (s->order != o)
				continue;
			fprintf(f, "  %d. %-4s %.12s (\"%s\"): %s%s%s\n", o,
				mark_names[s->mark], s->commit, s->subject,
				s->reason, s->built ? ", built" : ", cached",
				"");
			if (s->figures[0])
				fprintf(f, "%s\n", s->figures);
		}
	fprintf(f, "\nlog: %s\n", b->log);
}

static int setup(struct bctx *b)
{
	struct bisect_opts *o = b->o;
	struct strvec range = STRVEC_INIT;
	int ret = -1;

	if (o->event) {
		const char *colon = strchr(o->event, ':');

		snprintf(b->kind, sizeof(b->kind), "%.*s",
			 colon ? (int)(colon - o->event) :
				 (int)strlen(o->event),
			 o->event);
		snprintf(b->title, sizeof(b->title), "%s",
			 colon ? colon + 1 : "");
	}
	if (matrix_spec_find(o->matrix, &b->m))
		return -1;
	b->jr.tmpl = &b->m;
	b->jr.mo = o->mo;
	b->jr.mo.results = o->results;
	b->jr.mo.command = "bisect";
	b->reps = b->m.reps < STATS_MIN_N ? STATS_MIN_N : (int)b->m.reps;
	if (b->reps > o->max_reps)
		b->reps = o->max_reps;
	if (tree_resolve(o->tree, o->good, b->good.commit, b->good.subject,
			 sizeof(b->good.subject)) ||
	    tree_resolve(o->tree, o->bad, b->bad.commit, b->bad.subject,
			 sizeof(b->bad.subject)) ||
	    tree_range(o->tree, b->good.commit, b->bad.commit, &range))
		goto out;
	if (!range.nr) {
		error("bisect: %s is not an ancestor of %s in %s", o->good,
		      o->bad, o->tree);
		goto out;
	}
	b->n = range.nr;
	b->c = xzalloc(b->n * sizeof(*b->c));
	for (size_t i = 0; i < b->n; i++) {
		snprintf(b->c[i].commit, sizeof(b->c[i].commit), "%s",
			 range.v[i]);
		tree_resolve(o->tree, range.v[i], b->c[i].commit,
			     b->c[i].subject, sizeof(b->c[i].subject));
	}
	if (o->resume) {
		b->log = xstrdup(o->resume);
		b->dir = xstrdup(o->results);
	} else {
		if (mkdir_stamped(o->results, "bisect", &b->dir) < 0) {
			error("cannot make a directory under %s: %s",
			      o->results, strerror(errno));
			goto out;
		}
		b->log = xasprintf("%s/bisect.json", b->dir);
	}
	ret = 0;
out:
	strvec_clear(&range);
	return ret;
}

static int build_ends(struct bctx *b)
{
	int r = bisect_build(b, &b->good);

	if (!r)
		r = bisect_build(b, &b->bad);
	if (r) {
		error("bisect: an end does not build: %s",
		      b->good.mark ? b->good.reason : b->bad.reason);
		return r == -2 ? BISECT_INFRA : BISECT_NOT_FOUND;
	}
	b->good.mark = b->bad.mark = MARK_UNTESTED;
	return 0;
}

static void free_ctx(struct bctx *b)
{
	matrix_spec_free(&b->m);
	jobrun_free(&b->jr);
	for (size_t i = 0; i < b->n; i++)
		free(b->c[i].run_dir);
	free(b->c);
	free(b->good.run_dir);
	free(b->bad.run_dir);
	free(b->ends_run);
	strvec_clear(&b->groups);
	free(b->dir);
	free(b->log);
}

int bisect_run(struct bisect_opts *o)
{
	struct bctx b = { .o = o, .jr.pool = POOL_INIT, .groups = STRVEC_INIT };
	long lo = -1, hi;
	int ret = BISECT_INFRA, r;

	if (setup(&b)) {
		ret = BISECT_USAGE;
		goto out;
	}
	hi = (long)b.n - 1;
	fprintf(stderr,
		"bisect: %zu commits after good %.12s up to bad %.12s; log %s\n",
		b.n, b.good.commit, b.bad.commit, b.log);
	ret = build_ends(&b);
	if (ret)
		goto out;
	if (o->resume && bisect_load_log(&b, o->resume)) {
		ret = BISECT_USAGE;
		goto out;
	}
	r = bisect_confirm_ends(&b);
	if (r) {
		ret = r == -2 ? BISECT_INFRA : BISECT_NOT_FOUND;
		goto out;
	}
	/* What the log already decided narrows the range first. */
	for (size_t i = 0; i < b.n; i++) {
		if (b.c[i].mark == MARK_GOOD && (long)i > lo)
			lo = i;
	}
	for (long i = (long)b.n - 1; i > lo; i--)
		if (b.c[i].mark == MARK_BAD && i < hi)
			hi = i;
	while (hi - lo > 1) {
		long mid = pick(&b, lo, hi);

		if (mid < 0)
			break;
		if (bisect_test_commit(&b, &b.c[mid])) {
			ret = BISECT_INFRA;
			goto out;
		}
		if (b.c[mid].mark == MARK_GOOD)
			lo = mid;
		else if (b.c[mid].mark == MARK_BAD)
			hi = mid;
	}
	if (hi - lo > 1) {
		fprintf(o->out,
			"bisect: only skipped commits are left: the first bad commit is one of:\n");
		for (long i = lo + 1; i <= hi; i++)
			fprintf(o->out, "  %s %s (\"%s\")\n",
				mark_names[b.c[i].mark], b.c[i].commit,
				b.c[i].subject);
		ret = BISECT_NOT_FOUND;
		goto out;
	}
	print_summary(&b, hi);
	ret = BISECT_FOUND;
out:
	if (b.log && b.c)
		bisect_save_log(&b);
	free_ctx(&b);
	return ret;
}

/* ---- git bisect run ---- */

static char *step_state_path(struct bctx *b)
{
	struct hasher *h = hasher_new();
	char hex[HASH_HEX_LEN + 1];

	hasher_add_str(h, "tree", b->o->tree);
	hasher_add_str(h, "good", b->good.commit);
	hasher_add_str(h, "bad", b->bad.commit);
	hasher_add_str(h, "matrix", b->o->matrix);
	hasher_add_str(h, "what", bisect_what(b));
	hasher_finish(h, hex);
	return xasprintf("%s/bisect-step-%.16s.json", b->o->results, hex);
}

int bisect_step(struct bisect_opts *o)
{
	struct bctx b = { .o = o, .jr.pool = POOL_INIT, .groups = STRVEC_INIT };
	struct bstep head = { 0 };
	char *state = NULL;
	int ret = 128;

	if (mkdir_p(o->results, 0755) < 0 || setup(&b))
		goto out;
	state = step_state_path(&b);
	free(b.log);
	b.log = xstrdup(state);
	if (tree_resolve(o->tree, "HEAD", head.commit, head.subject,
			 sizeof(head.subject)))
		goto out;
	if (build_ends(&b))
		goto out;
	if (path_exists(state) && bisect_load_log(&b, state))
		goto out;
	if (bisect_confirm_ends(&b))
		goto out;
	if (!strcmp(head.commit, b.good.commit)) {
		ret = 0;
		goto out;
	}
	if (!strcmp(head.commit, b.bad.commit)) {
		ret = 1;
		goto out;
	}
	for (size_t i = 0; i < b.n; i++)
		if (!strcmp(b.c[i].commit, head.commit)) {
			/* untested with an order: the lab failed it before */
			if ((!b.c[i].order || b.c[i].mark == MARK_UNTESTED) &&
			    bisect_test_commit(&b, &b.c[i]))
				goto out;
			ret = b.c[i].mark == MARK_GOOD ? 0 :
			      b.c[i].mark == MARK_BAD  ? 1 :
							 125;
			fprintf(o->out,
				"bisect-step: %.12s (\"%s\") is %s: %s\n%s\n",
				b.c[i].commit, b.c[i].subject,
				mark_names[b.c[i].mark], b.c[i].reason,
				b.c[i].figures);
			goto out;
		}
	error("bisect-step: HEAD %.12s is not between good and bad",
	      head.commit);
	ret = 125;
out:
	free(head.run_dir);
	free(state);
	free_ctx(&b);
	return ret;
}
