// SPDX-License-Identifier: GPL-2.0
/*
 * wblab nightly (jobs/nightly.h): for each tree, update it, build its
 * head, run the matrix, store the night in the results database, compare
 * every thresholded metric with the last good night of the same host and
 * accelerator (and show its trend over the nights), and look for a change
 * point of each row's series that reaches tonight: that names candidate
 * regressions only. A candidate is confirmed by re-running the last good
 * commit against tonight's (nightly-confirm.c); only a confirmed one is
 * bisected and mailed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cell/results.h"
#include "jobs/history.h"
#include "jobs/nightly-int.h"
#include "results/reader.h"
#include "spec/matrix.h"
#include "stats/stats.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/run.h"
#include "util/str.h"
#include "util/strvec.h"

/* ---- one night of one tree ---- */

/* A remote tree: clone it the first time, then fetch ref into FETCH_HEAD. */
static int update_tree(struct night *n, const char **ref)
{
	const struct nightly_tree *t = n->t;
	struct strbuf err = STRBUF_INIT;
	char *dotgit = xasprintf("%s/.git", t->path);
	int ret = 0;

	*ref = t->ref;
	if (!t->url)
		goto out;
	if (!path_exists(dotgit)) {
		const char *cl[] = { "git",  "clone", "-q", "--",
				     t->url, t->path, NULL };

		info("nightly %s: cloning %s", t->name, t->url);
		ret = run_capture(cl, NULL, &err);
	} else {
		const char *fe[] = { "git", "-C",   t->path, "fetch", "-q",
				     "--",  t->url, t->ref,  NULL };

		info("nightly %s: fetching %s %s", t->name, t->url, t->ref);
		ret = run_capture(fe, NULL, &err);
		*ref = "FETCH_HEAD";
	}
	if (ret)
		error("nightly %s: git: %s", t->name, err.buf);
out:
	strbuf_release(&err);
	free(dotgit);
	return ret ? -1 : 0;
}

/* The hypothesis of a group's row in the family, NULL before a good night. */
static const struct dhyp *row_of(const struct family *f, const char *grp,
				 const char *metric)
{
	for (size_t i = 0; i < f->n; i++)
		if (!f->h[i].event && !strcmp(f->h[i].group, grp) &&
		    !strcmp(f->h[i].what, metric))
			return &f->h[i];
	return NULL;
}

/* Tonight's figure of a row in a group, stored in the history. */
static double tonight_mean(struct night *n, long long night, const char *grp,
			   const struct matrix_threshold *t)
{
	size_t nv, k = 0;
	double *v = pool_values(&n->jr.pool, n->k.name, grp, t->row, &nv);
	struct stats_desc sd;

	for (size_t j = 0; j < nv; j++)
		if (isfinite(v[j]))
			v[k++] = v[j];
	stats_describe(v, k, &sd);
	free(v);
	history_add_metric(n->db, night, grp, t->metric, (int)k,
			   k ? sd.amean : NAN, sd.stddev);
	return k ? sd.amean : NAN;
}

static void row_line(struct night *n, const char *grp,
		     const struct matrix_threshold *t, const struct dhyp *h,
		     double tonight)
{
	double means[32];
	char trend[64];

	history_trend(means,
		      history_means(n->db, n->t->name, grp, t->metric, 14,
				    means),
		      trend, sizeof(trend));
	strbuf_addf(&n->report, "%c %-28.28s ", h && h->regression ? '*' : ' ',
		    t->metric);
	if (h && isfinite(h->d.pct))
		strbuf_addf(&n->report,
			    "%12.4g %12.4g %+8.1f%% %9.3g  %s (%s)\n", h->d.a,
			    tonight, h->d.pct, h->d.p, trend,
			    verdict_name(h->d.verdict));
	else if (h) /* from 0: no percentage (never "+nan%") */
		strbuf_addf(&n->report, "%12.4g %12.4g %9s %9.3g  %s (%s)\n",
			    h->d.a, tonight, "-", h->d.p, trend,
			    verdict_name(h->d.verdict));
	else
		strbuf_addf(&n->report,
			    "%12s %12.4g %9s %9s  %s (first night)\n", "-",
			    tonight, "-", "-", trend);
}

/*
 * The change points of the nights up to tonight (tonight's figures are
 * in the history now) that reach tonight raise candidates too: a slow
 * drift, or a level shift the one look missed (p 0.052) on the nights
 * that then became the last good ones. The re-run starts before the
 * oldest such change.
 */
static void changes(struct night *n)
{
	char *ref = NULL;
	int raised = history_change_candidates(n->db, n->id, &n->det,
					       &n->report, &ref);

	if (raised > 0 && ref) {
		free(n->good_commit);
		n->good_commit = ref;
		n->by_change = true;
		strbuf_addf(
			&n->report,
			"the re-run's reference: %.12s, before the change\n",
			ref);
		return;
	}
	free(ref);
}

/*
 * One row per group and thresholded metric: last good, tonight, trend.
 * Tonight against the last good night is one family (decide/procedure.h):
 * Holm over its rows x groups and the new event kinds, one look at
 * alpha. Its regressions are candidates only (n->det keeps them), and
 * so is a row confirmed a regression since the last good night
 * (confirm_carry()): at 3 cells a side the one look can miss it (the
 * e2e's revert, 0 -> 247 pages: p 0.026, Holm 0.052 over two rows), and
 * a night that missed it would be the next night's last good night.
 */
static void compare_rows(struct night *n)
{
	struct dlooks l = DLOOKS_INIT;
	const struct pool *p = &n->jr.pool;
	double t0 = now_mono();

	l.boundary = DBOUND_NONE;
	if (n->good_run)
		family_decide(&n->det, p, "last-good", n->k.name,
			      n->m.thresholds, n->m.nr_thresholds, &l);
	strbuf_addf(&n->report, "%-30s %12s %12s %9s %9s  %s\n", "metric",
		    "last good", "tonight", "change", "p", "trend");
	for (size_t g = 0; g < p->groups.nr; g++) {
		const char *grp = p->groups.v[g];

		strbuf_addf(&n->report, "%s\n", grp);
		for (size_t i = 0; i < n->m.nr_thresholds; i++) {
			const struct matrix_threshold *t = &n->m.thresholds[i];
			const struct dhyp *h = row_of(&n->det, grp, t->metric);
			double tonight = tonight_mean(n, n->id, grp, t);

			row_line(n, grp, t, h, tonight);
		}
	}
	if (n->good_run) {
		confirm_carry(n->db, n->id, &n->det, &n->report);
		changes(n);
	}
	for (size_t i = 0; i < n->det.n; i++)
		if (n->det.h[i].event && confirm_is_candidate(&n->det.h[i]))
			strbuf_addf(&n->report, "%c %s: %d:%d -> %d:%d cells\n",
				    n->det.h[i].regression ? '*' : '?',
				    n->det.h[i].what, n->det.h[i].d.fa,
				    n->det.h[i].d.na, n->det.h[i].d.fb,
				    n->det.h[i].d.nb);
	n->t_detect = now_mono() - t0;
}

/* Add s to the ','-joined set list unless it is there. */
static void add_distinct(struct strbuf *list, const char *s)
{
	size_t len = strlen(s);

	for (const char *p = list->buf; *p;) {
		const char *e = strchrnul(p, ',');

		if ((size_t)(e - p) == len && !strncmp(p, s, len))
			return;
		p = *e ? e + 1 : e;
	}
	if (list->len)
		strbuf_addch(list, ',');
	strbuf_addstr(list, s);
}

/*
 * Where tonight's cells ran, for the history's series and the last good
 * night: a cell's host name ("local" is the lab, named by its hostname in
 * run.json) and its accelerator.
 */
static void night_host(struct night *n)
{
	struct strbuf host = STRBUF_INIT, accel = STRBUF_INIT,
		      err = STRBUF_INIT;
	struct results_run run = { 0 };
	const char *lab = "local";

	if (!results_open_run(n->run_dir, &run, &err) &&
	    run.info.hostinfo.hostname)
		lab = run.info.hostinfo.hostname;
	for (size_t i = 0; i < n->jr.pool.n; i++) {
		const struct pool_cell *c = &n->jr.pool.v[i];
		const char *name = c->cell->host ? c->cell->host : "local";

		if (strcmp(c->kernel, n->k.name))
			continue;
		add_distinct(&host, strcmp(name, "local") ? name : lab);
		add_distinct(&accel, c->cell->accel ? c->cell->accel : "-");
	}
	n->host = strbuf_detach(&host, NULL);
	n->accel = strbuf_detach(&accel, NULL);
	results_close_run(&run);
	strbuf_release(&err);
}

static int night_measure(struct night *n)
{
	const char *k[] = { n->k.name };
	int reps = n->m.reps < STATS_MIN_N ? STATS_MIN_N : (int)n->m.reps;

	if (jobrun_add_kernel(&n->jr, &n->k.spec) ||
	    jobrun_kernels(&n->jr, k, 1, reps, &n->run_dir))
		return -1;
	night_host(n);
	/* A series never mixes hosts or accelerators: nor does the reference. */
	if (history_last_good(n->db, n->t->name, n->host, n->accel,
			      &n->good_run, &n->good_commit,
			      &n->good_kernel) == 0) {
		if (pool_load_run(&n->jr.pool, n->good_run)) {
			free(n->good_run);
			n->good_run = NULL;
		} else {
			pool_relabel(&n->jr.pool, n->good_run, "last-good");
		}
	}
	return 0;
}

/* Update, build and run: 0, or the night's exit (1 build, 3 infra). */
static int night_prepare(struct night *n, const char **verdict)
{
	const char *ref;

	if (update_tree(n, &ref)) {
		strbuf_addstr(
			&n->report,
			"the tree could not be updated (see the log)\n\n");
		return 3;
	}
	if (tree_kernel_ensure(n->t->path, ref, NULL, 0, &n->o->cfg, &n->k)) {
		strbuf_addf(&n->report,
			    "head %.12s (\"%s\") does not build (%s):\n%s\n\n",
			    n->k.commit, n->k.subject,
			    kbuild_fail_name(n->k.fail), n->k.fail_msg);
		*verdict = n->k.fail == KBUILD_INFRA ? "infra" : "build-failed";
		return n->k.fail == KBUILD_INFRA ? 3 : 1;
	}
	strbuf_addf(&n->report,
		    "head: %.12s (\"%s\"), kernel %s, image %.12s\n",
		    n->k.commit, n->k.subject, n->k.art.version, n->k.image);
	if (night_measure(n)) {
		strbuf_addstr(&n->report, "the matrix did not run\n\n");
		return 3;
	}
	/*
	 * A night stopped early (SIGTERM, the host) or whose cells were all
	 * infra-error says nothing about the kernel: never a good night.
	 */
	if (pool_count(&n->jr.pool, n->k.name, NULL) < STATS_MIN_N) {
		strbuf_addf(
			&n->report,
			"fewer than %d cells with a kernel result (%d infra-error): %s\n\n",
			STATS_MIN_N, n->jr.pool.infra, n->run_dir);
		return 3;
	}
	strbuf_addf(
		&n->report,
		"last good night on %s/%s: %s\ncells: %s (%zu with a kernel result, %d infra-error left out)\n\n",
		n->host, n->accel, n->good_run ? n->good_commit : "none yet",
		n->run_dir, n->jr.pool.n, n->jr.pool.infra);
	pool_repro_line(&n->jr.pool, NULL, &n->report);
	*verdict = "good";
	return 0;
}

static int night_tree(struct night *n)
{
	const char *verdict = "infra";
	char started[32];
	int ret;

	now_iso8601(started, sizeof(started));
	strbuf_addf(&n->report, "== %s (%s %s)\n\n", n->t->name, n->t->path,
		    n->t->ref);
	ret = night_prepare(n, &verdict);
	if (history_add_night(n->db, n->t->name, n->k.commit, n->k.subject,
			      n->k.name, started, n->run_dir, verdict, &n->id))
		return 3;
	if (ret || !n->run_dir)
		return ret;
	if (history_night_host(n->db, n->id, n->host, n->accel))
		return 3;
	compare_rows(n);
	if (!confirm_candidates(&n->det)) {
		strbuf_addf(
			&n->report,
			"no candidate: nothing to confirm, no mail\ntimings: detection %.1f s\n",
			n->t_detect);
		return 0;
	}
	ret = nightly_confirm(n);
	return ret < 0 ? 3 : ret;
}

static void night_free(struct night *n)
{
	matrix_spec_free(&n->m);
	jobrun_free(&n->jr);
	tree_kernel_release(&n->k);
	family_release(&n->det);
	nightly_confirm_free(n);
	free(n->run_dir);
	free(n->host);
	free(n->accel);
	free(n->good_run);
	free(n->good_commit);
	free(n->good_kernel);
	strbuf_release(&n->report);
}

int nightly_run(const struct nightly_opts *o)
{
	sqlite3 *db;
	int worst = 0;

	if (mkdir_p(o->spec->results, 0755) < 0) {
		error("cannot create %s: %s", o->spec->results,
		      strerror(errno));
		return 3;
	}
	db = results_db_open(o->spec->results);
	if (!db)
		return 3;
	for (size_t i = 0; i < o->spec->nr_trees; i++) {
		struct night n = { .o = o,
				   .t = &o->spec->trees[i],
				   .db = db,
				   .jr.pool = POOL_INIT,
				   .jc.pool = POOL_INIT,
				   .report = STRBUF_INIT };
		int r;

		if (matrix_spec_find(o->spec->matrix, &n.m)) {
			worst = 3;
			break;
		}
		n.jr.tmpl = &n.m;
		n.jr.mo = o->mo;
		n.jr.mo.results = o->spec->results;
		n.jr.mo.command = "nightly";
		r = night_tree(&n);
		if (r > worst)
			worst = r;
		fprintf(o->out, "%s\n", n.report.buf);
		night_free(&n);
	}
	results_db_close(db);
	return worst;
}
