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
 * Any group bad makes the commit bad; good needs every group good.
 *
 * The log (bisect.json in the bisection's directory, rewritten after each
 * step) holds the ends' run and every tested commit's run and verdict;
 * --resume LOG loads it and carries on without rebuilding or rerunning
 * what it lists.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

enum mark { MARK_UNTESTED, MARK_GOOD, MARK_BAD, MARK_SKIP };

static const char *const mark_names[] = { "untested", "good", "bad", "skip" };

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

struct bctx {
	struct bisect_opts *o;
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

static bool event_mode(const struct bctx *b)
{
	return b->o->event != NULL;
}

static const char *what(const struct bctx *b)
{
	if (event_mode(b))
		return b->o->event;
	return b->o->metric->name;
}

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

static void compare(struct bctx *b, const char *ka, const char *kb,
		    const char *group, struct decision *d)
{
	struct decide_opts o = DECIDE_OPTS_INIT;

	o.alpha = look_level(b, ka, kb, group);
	o.threshold = b->threshold;
	if (event_mode(b))
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

/* ---- the log ---- */

static json_object *step_json(const struct bstep *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "commit", json_object_new_string(s->commit));
	json_object_object_add(o, "subject",
			       json_object_new_string(s->subject));
	json_object_object_add(o, "kernel", json_object_new_string(s->kernel));
	json_object_object_add(o, "image", json_object_new_string(s->image));
	json_object_object_add(
		o, "run", json_object_new_string(s->run_dir ? s->run_dir : ""));
	json_object_object_add(o, "mark",
			       json_object_new_string(mark_names[s->mark]));
	json_object_object_add(o, "reason", json_object_new_string(s->reason));
	json_object_object_add(o, "figures",
			       json_object_new_string(s->figures));
	json_object_object_add(o, "built", json_object_new_boolean(s->built));
	json_object_object_add(o, "build_s",
			       json_object_new_double(s->build_s));
	json_object_object_add(o, "order", json_object_new_int(s->order));
	return o;
}

static void save_log(struct bctx *b)
{
	json_object *o = json_object_new_object(), *steps;
	struct bisect_opts *p = b->o;

	json_object_object_add(o, "tree", json_object_new_string(p->tree));
	json_object_object_add(o, "matrix", json_object_new_string(p->matrix));
	json_object_object_add(o, "what", json_object_new_string(what(b)));
	if (p->metric)
		json_object_object_add(o, "metric",
				       json_object_new_string(p->metric->name));
	if (p->event)
		json_object_object_add(o, "event",
				       json_object_new_string(p->event));
	json_object_object_add(o, "threshold",
			       json_object_new_double(b->threshold));
	json_object_object_add(
		o, "ends_run",
		json_object_new_string(b->ends_run ? b->ends_run : ""));
	json_object_object_add(o, "good", step_json(&b->good));
	json_object_object_add(o, "bad", step_json(&b->bad));
	steps = json_object_new_array();
	for (size_t i = 0; i < b->n; i++)
		if (b->c[i].order)
			json_object_array_add(steps, step_json(&b->c[i]));
	json_object_object_add(o, "steps", steps);
	json_object_object_add(o, "builds", json_object_new_int(b->builds));
	if (json_write_atomic(b->log, o))
		warn("cannot write the bisection log %s: %s", b->log,
		     strerror(errno));
	json_object_put(o);
}

static void step_from_json(json_object *j, struct bstep *s)
{
	json_object *v;
	const char *m;

#define S(f, key)                          \
	snprintf(s->f, sizeof(s->f), "%s", \
		 (v = json_path(j, key)) ? json_object_get_string(v) : "")
	S(subject, "subject");
	S(kernel, "kernel");
	S(image, "image");
	S(reason, "reason");
	S(figures, "figures");
#undef S
	v = json_path(j, "run");
	free(s->run_dir);
	s->run_dir = v && *json_object_get_string(v) ?
			     xstrdup(json_object_get_string(v)) :
			     NULL;
	v = json_path(j, "mark");
	m = v ? json_object_get_string(v) : "untested";
	for (int i = 0; i < 4; i++)
		if (!strcmp(m, mark_names[i]))
			s->mark = i;
	v = json_path(j, "order");
	s->order = v ? json_object_get_int(v) : 0;
	v = json_path(j, "built");
	s->built = v && json_object_get_boolean(v);
	v = json_path(j, "build_s");
	s->build_s = v ? json_object_get_double(v) : 0;
}

/* Load a log: the ends' run and every tested step (their runs into the pool). */
static int load_log(struct bctx *b, const char *path)
{
	json_object *o = json_object_from_file(path), *steps, *v;
	int ret = -1;

	if (!o) {
		error("--resume %s: cannot read the log", path);
		return -1;
	}
	v = json_path(o, "ends_run");
	if (v && *json_object_get_string(v)) {
		b->ends_run = xstrdup(json_object_get_string(v));
		if (pool_load_run(&b->jr.pool, b->ends_run))
			goto out;
	}
	steps = json_path(o, "steps");
	for (size_t i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *sj = json_object_array_get_idx(steps, i);
		const char *c = json_object_get_string(json_path(sj, "commit"));

		for (size_t k = 0; k < b->n; k++) {
			if (strcmp(b->c[k].commit, c))
				continue;
			step_from_json(sj, &b->c[k]);
			if (b->c[k].run_dir &&
			    pool_load_run(&b->jr.pool, b->c[k].run_dir))
				goto out;
			if (b->c[k].order > b->steps)
				b->steps = b->c[k].order;
		}
	}
	v = json_path(o, "builds");
	b->builds = v ? json_object_get_int(v) : 0;
	info("bisect: resumed from %s (%d steps done)", path, b->steps);
	ret = 0;
out:
	json_object_put(o);
	return ret;
}

/* ---- building and measuring one commit ---- */

static int build(struct bctx *b, struct bstep *s)
{
	struct tree_kernel k;
	int ret;

	info("bisect: building %.12s (\"%s\")", s->commit, s->subject);
	ret = tree_kernel_ensure(b->o->tree, s->commit, NULL, 0,
				 b->o->config_from, &k);
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

static void grow_reps(struct bctx *b, const char *run, int *reps)
{
	info("bisect: unknown at n=%d: 2 more repetitions", *reps);
	if (!jobrun_more(&b->jr, run, 2))
		*reps += 2;
	else
		*reps = b->o->max_reps;
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

		compare(b, b->good.kernel, k, grp, &dg);
		if (event_mode(b))
			compare(b, k, b->bad.kernel, grp, &db);
		else
			compare(b, b->bad.kernel, k, grp, &db);
		strbuf_addf(fig, "%s%s\n    vs good: ", g ? "\n  " : "  ", grp);
		decision_format(&dg, what(b), fig);
		strbuf_addstr(fig, "\n    vs bad:  ");
		decision_format(&db, what(b), fig);
		if (dg.verdict == VERDICT_DIFFERENT && sign(dg.effect) == dir)
			bad++;
		else if (dg.verdict == VERDICT_SAME)
			good++;
		else if (db.verdict == VERDICT_SAME)
			bad++;
		else if (db.verdict == VERDICT_DIFFERENT &&
			 (event_mode(b) ? db.effect > 0 :
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
		json_object *o;

		if (strcmp(c->kernel, k))
			continue;
		n++;
		o = json_path(c->cell, "outcome");
		bf += o && !strcmp(json_object_get_string(o), "boot-failed");
	}
	return n && bf == n;
}

static const struct bstep *same_image(const struct bctx *b,
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

static int test_commit(struct bctx *b, struct bstep *s)
{
	const struct bstep *twin;
	struct strbuf fig = STRBUF_INIT;
	const char *k[1];
	int reps = b->reps, r;

	s->order = ++b->steps;
	r = build(b, s);
	if (r == -2)
		return -1;
	if (r)
		goto done;
	twin = same_image(b, s);
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
	k[0] = s->kernel;
	if (jobrun_kernels(&b->jr, k, 1, reps, &s->run_dir)) {
		s->mark = MARK_SKIP;
		snprintf(s->reason, sizeof(s->reason),
			 "the matrix did not run");
		goto done;
	}
	for (;;) {
		s->mark = classify(b, s->kernel, &fig);
		if (s->mark != MARK_UNTESTED || reps >= b->o->max_reps)
			break;
		if (boot_failed_only(b, s->kernel))
			break;
		grow_reps(b, s->run_dir, &reps);
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
done:
	info("bisect: %.12s is %s (%s)", s->commit, mark_names[s->mark],
	     s->reason);
	if (s->figures[0])
		fprintf(stderr, "%s\n", s->figures);
	strbuf_release(&fig);
	save_log(b);
	return 0;
}

/* ---- the ends ---- */

static int confirm_ends(struct bctx *b)
{
	const char *k[2] = { b->good.kernel, b->bad.kernel };
	struct strbuf fig = STRBUF_INIT;
	struct decide_opts o = DECIDE_OPTS_INIT;
	int reps = b->reps, ret = -1;

	if (!strcmp(b->good.image, b->bad.image)) {
		error("bisect: good %.12s and bad %.12s build identical kernel images: nothing to bisect",
		      b->good.commit, b->bad.commit);
		return -1;
	}
	if (!b->ends_run && jobrun_kernels(&b->jr, k, 2, reps, &b->ends_run)) {
		error("bisect: the ends' cells did not run");
		return -2;
	}
	save_log(b);
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
			if (event_mode(b))
				pool_decide_event(&b->jr.pool, k[0], k[1], grp,
						  b->kind,
						  *b->title ? b->title : NULL,
						  &o, &d);
			else
				pool_decide_metric(&b->jr.pool, k[0], k[1], grp,
						   b->o->metric, &o, &d);
			strbuf_addf(&fig, "  %s: ", grp);
			decision_format(&d, what(b), &fig);
			strbuf_addch(&fig, '\n');
			if (d.verdict == VERDICT_DIFFERENT &&
			    (!event_mode(b) || d.effect > 0) &&
			    (b->o->threshold <= 0 ||
			     fabs(d.effect) >= b->o->threshold)) {
				strvec_push(&b->groups, grp);
				if (!b->ends_group) {
					b->ends_effect = d.effect;
					b->ends_group = grp;
				}
			} else if (d.verdict == VERDICT_UNKNOWN) {
				unknown = true;
			}
		}
		if (b->groups.nr || !unknown || reps >= b->o->max_reps)
			break;
		grow_reps(b, b->ends_run, &reps);
	}
	fprintf(stderr, "bisect: the ends (good %.12s, bad %.12s):\n%s",
		b->good.commit, b->bad.commit, fig.buf);
	snprintf(b->good.figures, sizeof(b->good.figures), "%s", fig.buf);
	if (!b->groups.nr) {
		fprintf(b->o->out,
			"bisect: the ends are not confirmed: good %.12s and bad %.12s do not differ in %s%s (n=%d per side):\n%s",
			b->good.commit, b->bad.commit, what(b),
			event_mode(b) ? " (a higher rate at bad)" : "", reps,
			fig.buf);
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
	save_log(b);
	return ret;
}

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

static double mean_of(struct bctx *b, const char *k, double *sd, int *n)
{
	struct stats_desc d;
	size_t nv;
	double *v;
	double m;

	if (event_mode(b)) {
		int f, r;

		pool_rate(&b->jr.pool, k, b->ends_group, b->kind,
			  *b->title ? b->title : NULL, &f, &r);
		*sd = 0;
		*n = r;
		return r ? (double)f / r : NAN;
	}
	v = pool_values(&b->jr.pool, k, b->ends_group, b->o->metric, &nv);
	{
		size_t k2 = 0;

		for (size_t i = 0; i < nv; i++)
			if (isfinite(v[i]))
				v[k2++] = v[i];
		nv = k2;
	}
	stats_describe(v, nv, &d);
	free(v);
	*sd = d.stddev;
	*n = (int)nv;
	m = nv ? d.amean : NAN;
	return m;
}

static void print_summary(struct bctx *b, long first)
{
	FILE *f = b->o->out;
	const struct bstep *fb = &b->c[first];
	const struct bstep *twin = fb->run_dir ? NULL : same_image(b, fb);
	const struct bstep *ref = fb->run_dir ? fb : twin ? twin : &b->bad;
	double mg, sg, mb, sb;
	int ng, nb, tested = 0;
	char host[256] = "";
	struct decision d;

	gethostname(host, sizeof(host) - 1);
	mg = mean_of(b, b->good.kernel, &sg, &ng);
	mb = mean_of(b, ref->kernel, &sb, &nb);
	compare(b, b->good.kernel, ref->kernel, b->ends_group, &d);
	fprintf(f, "first bad commit: %s (\"%s\")\n\n", fb->commit,
		fb->subject);
	fprintf(f, "Greeting,\n\n");
	if (event_mode(b))
		fprintf(f,
			"wblab's bisection found a %+.1f pp change of the %s rate due to commit:\n\n",
			d.effect, what(b));
	else
		fprintf(f,
			"wblab's bisection found a %+.1f%% change of %s due to commit:\n\n",
			d.effect, what(b));
	fprintf(f, "commit: %s\n(\"%s\")\n\n", fb->commit, fb->subject);
	fprintf(f, "in tree %s, between good %.12s and bad %.12s\n", b->o->tree,
		b->good.commit, b->bad.commit);
	fprintf(f, "in testcase: %s (matrix %s), on %s\n\n", b->ends_group,
		b->m.name, host);
	fprintf(f, "  %-14s %-14s\n", "good", "first bad");
	fprintf(f, "  %-14.12s %-14.12s\n", b->good.commit, fb->commit);
	fprintf(f, "  %14.4g %14.4g  %s (mean)\n", mg, mb, what(b));
	if (!event_mode(b))
		fprintf(f, "  %14.4g %14.4g  stddev\n", sg, sb);
	fprintf(f, "  %14d %14d  cells with a kernel result\n", ng, nb);
	fprintf(f, "  %s\n\n", d.why);
	{
		struct strbuf repro = STRBUF_INIT;

		pool_repro_line(&b->jr.pool, ref->kernel, &repro);
		fprintf(f, "%s%s", repro.buf, repro.len ? "\n" : "");
		strbuf_release(&repro);
	}
	if (ref != fb && strcmp(ref->commit, fb->commit))
		fprintf(f,
			"(%.12s's figures are %.12s's: the same kernel image)\n\n",
			fb->commit, ref->commit);
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
	char ts[32];
	time_t now = time(NULL);
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
	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", gmtime(&now));
	if (o->resume) {
		b->log = xstrdup(o->resume);
		b->dir = xstrdup(o->results);
	} else {
		b->dir = xasprintf("%s/bisect-%s-%04x", o->results, ts,
				   (unsigned int)getpid() & 0xffff);
		b->log = xasprintf("%s/bisect.json", b->dir);
		if (mkdir_p(b->dir, 0755) < 0) {
			error("cannot create %s: %s", b->dir, strerror(errno));
			goto out;
		}
	}
	ret = 0;
out:
	strvec_clear(&range);
	return ret;
}

static int build_ends(struct bctx *b)
{
	int r = build(b, &b->good);

	if (!r)
		r = build(b, &b->bad);
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
	if (o->resume && load_log(&b, o->resume)) {
		ret = BISECT_USAGE;
		goto out;
	}
	r = confirm_ends(&b);
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
		if (test_commit(&b, &b.c[mid])) {
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
		save_log(&b);
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
	hasher_add_str(h, "what", what(b));
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
	if (path_exists(state) && load_log(&b, state))
		goto out;
	if (confirm_ends(&b))
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
			if (!b.c[i].order && test_commit(&b, &b.c[i]))
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
