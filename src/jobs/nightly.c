// SPDX-License-Identifier: GPL-2.0
/*
 * wblab nightly (jobs/nightly.h): for each tree, update it, build its
 * head, run the matrix, store the night in the results database, compare
 * every thresholded metric with the last good night (and show its trend
 * over the nights), bisect a regression between the last good commit and
 * the head, and write the mail (a file for git send-email, or piped to
 * the configured sendmail).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cell/results.h"
#include "jobs/bisect.h"
#include "jobs/family.h"
#include "jobs/history.h"
#include "jobs/jobrun.h"
#include "jobs/nightly.h"
#include "jobs/tree.h"
#include "results/reader.h"
#include "spec/matrix.h"
#include "stats/stats.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strvec.h"

/* ---- one night of one tree ---- */

struct night {
	const struct nightly_opts *o;
	const struct nightly_tree *t;
	sqlite3 *db;
	struct matrix_spec m;
	struct jobrun jr;
	struct tree_kernel k;
	char *run_dir;
	char *good_run, *good_commit, *good_kernel;
	struct strbuf mail;
	int regressions;
	const struct metric *first_metric; /* the first regressed metric */
	char *first_event; /* else the first new event, KIND[:TITLE] */
};

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
	strbuf_addf(&n->mail, "%c %-28.28s ", h && h->regression ? '*' : ' ',
		    t->metric);
	if (h)
		strbuf_addf(&n->mail, "%12.4g %12.4g %+8.1f%% %9.3g  %s (%s)\n",
			    h->d.a, tonight, h->d.pct, h->d.p, trend,
			    verdict_name(h->d.verdict));
	else
		strbuf_addf(&n->mail, "%12s %12.4g %9s %9s  %s (first night)\n",
			    "-", tonight, "-", "-", trend);
}

/*
 * One row per group and thresholded metric: last good, tonight, trend.
 * Tonight against the last good night is one family (decide/procedure.h):
 * Holm over its rows x groups and the new event kinds, one look.
 */
static void compare_rows(struct night *n, long long night)
{
	struct dlooks l = DLOOKS_INIT;
	struct family fam = { 0 };
	const struct pool *p = &n->jr.pool;

	l.boundary = DBOUND_NONE;
	if (n->good_run)
		family_decide(&fam, p, "last-good", n->k.name, n->m.thresholds,
			      n->m.nr_thresholds, &l);
	strbuf_addf(&n->mail, "%-30s %12s %12s %9s %9s  %s\n", "metric",
		    "last good", "tonight", "change", "p", "trend");
	for (size_t g = 0; g < p->groups.nr; g++) {
		const char *grp = p->groups.v[g];

		strbuf_addf(&n->mail, "%s\n", grp);
		for (size_t i = 0; i < n->m.nr_thresholds; i++) {
			const struct matrix_threshold *t = &n->m.thresholds[i];
			const struct dhyp *h = row_of(&fam, grp, t->metric);
			double tonight = tonight_mean(n, night, grp, t);

			if (h && h->regression && !n->first_metric)
				n->first_metric = t->row;
			row_line(n, grp, t, h, tonight);
		}
	}
	for (size_t i = 0; i < fam.n; i++)
		if (fam.h[i].event && fam.h[i].regression) {
			/* "new KIND: title" -> "KIND:title" for bisect --event */
			if (!n->first_event) {
				const char *w = fam.h[i].what + 4;
				const char *c = strstr(w, ": ");

				n->first_event = c ? xasprintf("%.*s:%s",
							       (int)(c - w), w,
							       c + 2) :
						     xstrdup(w);
			}
			strbuf_addf(&n->mail, "* %s: %d:%d -> %d:%d cells\n",
				    fam.h[i].what, fam.h[i].d.fa, fam.h[i].d.na,
				    fam.h[i].d.fb, fam.h[i].d.nb);
		}
	n->regressions += family_regressions(&fam);
	family_release(&fam);
}

static void bisect_regression(struct night *n)
{
	struct bisect_opts b = { .tree = n->t->path,
				 .good = n->good_commit,
				 .bad = n->k.commit,
				 .matrix = n->o->spec->matrix,
				 .results = n->o->spec->results,
				 .config_from = n->o->config_from,
				 .metric = n->first_metric,
				 .event = n->first_metric ? NULL :
							    n->first_event,
				 .max_reps = n->o->max_reps,
				 .mo = n->o->mo };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	b.out = f;
	strbuf_addf(
		&n->mail,
		"\nBisecting %s between the last good night (%.12s) and tonight (%.12s):\n\n",
		n->first_metric ? n->first_metric->name : n->first_event,
		n->good_commit, n->k.commit);
	bisect_run(&b);
	fclose(f);
	strbuf_addstr(&n->mail, buf ? buf : "");
	free(buf);
}

/* A string member of o, or def. */
static const char *str_of(json_object *o, const char *key, const char *def)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return def;
	return json_object_get_string(v);
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
 * Where tonight's cells ran, for the history's series: a cell's host
 * name ("local" is the lab, named by its hostname in run.json) and its
 * accelerator.
 */
static void night_host(struct night *n, long long night)
{
	struct strbuf host = STRBUF_INIT, accel = STRBUF_INIT,
		      err = STRBUF_INIT;
	struct results_run run = { 0 };
	const char *lab = "local";
	json_object *h;

	if (!results_open_run(n->run_dir, &run, &err) &&
	    json_object_object_get_ex(run.json, "host", &h))
		lab = str_of(h, "hostname", "local");
	for (size_t i = 0; i < n->jr.pool.n; i++) {
		const struct pool_cell *c = &n->jr.pool.v[i];
		const char *name = str_of(c->cell, "host", "local");

		if (strcmp(c->kernel, n->k.name))
			continue;
		add_distinct(&host, strcmp(name, "local") ? name : lab);
		add_distinct(&accel, str_of(c->cell, "accel", "-"));
	}
	history_night_host(n->db, night, host.buf, accel.buf);
	results_close_run(&run);
	strbuf_release(&host);
	strbuf_release(&accel);
	strbuf_release(&err);
}

static int night_measure(struct night *n)
{
	const char *k[] = { n->k.name };
	int reps = n->m.reps < STATS_MIN_N ? STATS_MIN_N : (int)n->m.reps;

	if (jobrun_add_kernel(&n->jr, &n->k.spec) ||
	    jobrun_kernels(&n->jr, k, 1, reps, &n->run_dir))
		return -1;
	if (history_last_good(n->db, n->t->name, &n->good_run, &n->good_commit,
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

static int night_tree(struct night *n)
{
	const char *ref, *verdict = "infra";
	char started[32];
	long long id = 0;
	int ret = 3;

	now_iso8601(started, sizeof(started));
	strbuf_addf(&n->mail, "== %s (%s %s)\n\n", n->t->name, n->t->path,
		    n->t->ref);
	if (update_tree(n, &ref)) {
		strbuf_addstr(
			&n->mail,
			"the tree could not be updated (see the log)\n\n");
		goto record;
	}
	if (tree_kernel_ensure(n->t->path, ref, NULL, 0, n->o->config_from,
			       &n->k)) {
		strbuf_addf(&n->mail,
			    "head %.12s (\"%s\") does not build (%s):\n%s\n\n",
			    n->k.commit, n->k.subject,
			    kbuild_fail_name(n->k.fail), n->k.fail_msg);
		verdict = n->k.fail == KBUILD_INFRA ? "infra" : "build-failed";
		ret = n->k.fail == KBUILD_INFRA ? 3 : 1;
		goto record;
	}
	strbuf_addf(&n->mail, "head: %.12s (\"%s\"), kernel %s, image %.12s\n",
		    n->k.commit, n->k.subject, n->k.art.version, n->k.image);
	if (night_measure(n)) {
		strbuf_addstr(&n->mail, "the matrix did not run\n\n");
		goto record;
	}
	strbuf_addf(
		&n->mail,
		"last good night: %s\ncells: %s (%zu with a kernel result, %d infra-error left out)\n\n",
		n->good_run ? n->good_commit : "none yet", n->run_dir,
		n->jr.pool.n, n->jr.pool.infra);
	pool_repro_line(&n->jr.pool, NULL, &n->mail);
	verdict = "good";
	ret = 0;
record:
	if (history_add_night(n->db, n->t->name, n->k.commit, n->k.subject,
			      n->k.name, started, n->run_dir, verdict, &id))
		return 3;
	if (ret || !n->run_dir)
		return ret;
	night_host(n, id);
	compare_rows(n, id);
	if (n->regressions) {
		sqlite3_stmt *st;

		if (sqlite3_prepare_v2(
			    n->db,
			    "UPDATE nights SET verdict = 'regression' WHERE id = ?",
			    -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, id);
			sqlite3_step(st);
			sqlite3_finalize(st);
		}
		if (n->good_commit && strcmp(n->good_commit, n->k.commit))
			bisect_regression(n);
		return 1;
	}
	return 0;
}

static int send_mail(const struct nightly_opts *o, const char *subject,
		     const struct strbuf *body)
{
	const struct nightly_spec *s = o->spec;
	char ts[32], date[64];
	time_t now = time(NULL);
	struct strbuf m = STRBUF_INIT;
	char *path;
	int ret = 0;

	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", gmtime(&now));
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000",
		 gmtime(&now));
	path = xasprintf("%s/nightly-%s.mail", s->results, ts);
	strbuf_addf(&m, "From: %s\nTo: %s\nDate: %s\nSubject: %s\n\n%s",
		    s->mail_from, s->mail_to, date, subject, body->buf);
	if (write_file_atomic(path, m.buf, m.len, 0644)) {
		ret = error("cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	fprintf(o->out, "%s", m.buf);
	fprintf(o->out, "\nmail: %s (git send-email %s)\n", path, path);
	if (s->sendmail.n) {
		struct strvec argv = STRVEC_INIT;
		struct run_opts ro = { .in_path = path };

		for (size_t i = 0; i < s->sendmail.n; i++)
			strvec_push(&argv, s->sendmail.v[i]);
		if (run_argv(argv.v, &ro))
			ret = error("%s failed on %s", argv.v[0], path);
		strvec_clear(&argv);
	}
out:
	strbuf_release(&m);
	free(path);
	return ret;
}

int nightly_run(const struct nightly_opts *o)
{
	struct strbuf body = STRBUF_INIT;
	sqlite3 *db;
	int worst = 0, regressions = 0;

	if (mkdir_p(o->spec->results, 0755) < 0)
		return error("cannot create %s: %s", o->spec->results,
			     strerror(errno)) ?
			       3 :
			       3;
	db = results_db_open(o->spec->results);
	if (!db || history_schema(db))
		return 3;
	for (size_t i = 0; i < o->spec->nr_trees; i++) {
		struct night n = { .o = o,
				   .t = &o->spec->trees[i],
				   .db = db,
				   .jr.pool = POOL_INIT,
				   .mail = STRBUF_INIT };
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
		regressions += r == 1;
		if (r > worst)
			worst = r;
		strbuf_add(&body, n.mail.buf, n.mail.len);
		strbuf_addch(&body, '\n');
		matrix_spec_free(&n.m);
		jobrun_free(&n.jr);
		tree_kernel_release(&n.k);
		free(n.run_dir);
		free(n.good_run);
		free(n.good_commit);
		free(n.good_kernel);
		free(n.first_event);
		strbuf_release(&n.mail);
	}
	results_db_close(db);
	{
		char *subject = xasprintf("[wblab nightly] %s: %s",
					  o->spec->path,
					  worst == 3  ? "lab failure" :
					  regressions ? "REGRESSION" :
							"no regression");

		if (send_mail(o, subject, &body) && worst < 3)
			worst = 3;
		free(subject);
	}
	strbuf_release(&body);
	return worst;
}
