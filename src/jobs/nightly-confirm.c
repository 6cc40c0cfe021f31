// SPDX-License-Identifier: GPL-2.0
/*
 * A night's candidates confirmed (nightly-int.h): the last good commit
 * (or the commit before a change point, when it is older) and tonight's
 * re-run interleaved in one run, decided with the jobs'
 * procedure (the looks of validate: repetitions added two at a time
 * while a candidate is unknown, up to --max-reps), recorded in wblab.db
 * (jobs/confirm.h); a confirmed regression is bisected and mailed as the
 * 0-day robot writes (jobs/lkmail.h). A rejected one is mailed to nobody.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobs/history.h"
#include "jobs/lkmail.h"
#include "jobs/nightly-int.h"
#include "stats/stats.h"
#include "util/log.h"

/* The re-run's reference, as the report and the mail name it. */
static const char *ref_name(const struct night *n)
{
	return n->by_change ? "the commit before the change point" :
			      "the last good commit";
}

void nightly_confirm_free(struct night *n)
{
	tree_kernel_release(&n->gk);
	jobrun_free(&n->jc);
	family_release(&n->conf);
	free(n->confirm_run);
	bisect_opts_release(&n->b);
}

/* The candidates and the re-run's regressions, one line each. */
static void confirm_lines(struct night *n, struct strbuf *out)
{
	for (size_t i = 0; i < n->conf.n; i++) {
		const struct dhyp *h = &n->conf.h[i];
		bool cand = false;

		for (size_t j = 0; j < n->det.n && !cand; j++)
			cand = confirm_is_candidate(&n->det.h[j]) &&
			       confirm_find(&n->conf, &n->det.h[j]) == h;
		if (!cand && !h->regression)
			continue;
		strbuf_addf(out, "%s\n  %s ", h->group,
			    h->regression ? "*" : " ");
		dhyp_format(h, out);
		strbuf_addch(out, '\n');
	}
	for (size_t j = 0; j < n->det.n; j++)
		if (confirm_is_candidate(&n->det.h[j]) &&
		    !confirm_find(&n->conf, &n->det.h[j]))
			strbuf_addf(out,
				    "%s\n    absent    %s: not seen again\n",
				    n->det.h[j].group, n->det.h[j].what);
}

static void confirm_section(struct night *n, struct strbuf *out)
{
	strbuf_addf(
		out,
		"Confirmation: %s %.12s re-run against tonight's\n%.12s, interleaved, n=%d/%d per side:\n\n",
		ref_name(n), n->good_commit, n->k.commit, n->conf.look,
		n->conf.look);
	confirm_lines(n, out);
	strbuf_addf(out, "\ncandidate %s (the re-run: %s)\n\n",
		    confirm_outcome_name(n->outcome),
		    n->confirm_run ? n->confirm_run : "none");
}

/* Rebuild (cached) the reference, run both sides until decided. */
static int rerun(struct night *n)
{
	const char *k[2] = { n->gk.name, n->k.name };
	struct dlooks looks = DLOOKS_INIT;
	int max = n->o->max_reps;
	int reps = n->m.reps < STATS_MIN_N ? STATS_MIN_N : (int)n->m.reps;
	size_t unknown, had;

	if (reps > max)
		reps = max;
	k[0] = n->gk.name;
	n->jc.tmpl = &n->m;
	n->jc.mo = n->jr.mo;
	if (jobrun_add_kernel(&n->jc, &n->gk.spec) ||
	    jobrun_add_kernel(&n->jc, &n->k.spec) ||
	    jobrun_kernels(&n->jc, k, 2, reps, &n->confirm_run))
		return -1;
	dlooks_plan(&looks, reps, 2, max);
	for (;;) {
		family_release(&n->conf);
		family_decide_with(&n->conf, &n->jc.pool, k[0], k[1],
				   n->m.thresholds, n->m.nr_thresholds, &looks,
				   &n->det);
		n->outcome = confirm_decide(&n->det, &n->conf, &unknown);
		if (n->outcome != CONFIRM_UNKNOWN || reps >= max)
			return 0;
		info("nightly %s: %zu candidate%s unknown at n=%d per side: 2 more reps",
		     n->t->name, unknown, unknown == 1 ? "" : "s", reps);
		had = pool_fewest(&n->jc.pool, k[0], k[1]);
		if (jobrun_more(&n->jc, n->confirm_run, 2))
			return -1;
		/* Every new cell infra-error: the lab failed, not the night. */
		if (pool_fewest(&n->jc.pool, k[0], k[1]) <= had)
			return error(
				"nightly %s: 2 more reps a side brought no cell with a kernel result (%d infra-error): the confirmation did not run",
				n->t->name, n->jc.pool.infra);
		reps += 2;
	}
}

static int confirm(struct night *n)
{
	double t0 = now_mono();
	int ret = 0;

	if (!strcmp(n->good_commit, n->k.commit)) {
		/* Nothing changed in the tree: the candidate was noise. */
		strbuf_addstr(
			&n->report,
			"tonight's commit is the reference's: the candidates are noise\n");
		n->outcome = CONFIRM_REJECTED;
		goto out;
	}
	if (tree_kernel_ensure(n->t->path, n->good_commit, NULL, 0, &n->o->cfg,
			       &n->gk)) {
		ret = error("nightly %s: %s %.12s does not build again: %s",
			    n->t->name, ref_name(n), n->good_commit,
			    n->gk.fail_msg);
		goto out;
	}
	if (!strcmp(n->gk.image, n->k.image)) {
		strbuf_addstr(
			&n->report,
			"tonight's kernel image is the reference's: the candidates are noise\n");
		n->outcome = CONFIRM_REJECTED;
		goto out;
	}
	ret = rerun(n);
out:
	n->t_confirm = now_mono() - t0;
	return ret;
}

/* The first regression of the re-run: a metric row, or "KIND:title". */
static void bisect_target(struct night *n, char **event)
{
	for (size_t i = 0; i < n->conf.n; i++) {
		const struct dhyp *h = &n->conf.h[i];
		const char *w, *c;

		if (!h->regression)
			continue;
		if (!h->event) {
			n->b.metric = metric_by_name(h->what);
			return;
		}
		/* "[new ]KIND: title" -> "KIND:title" for bisect --event */
		w = dhyp_event_key(h);
		c = strstr(w, ": ");
		*event = c ? xasprintf("%.*s:%s", (int)(c - w), w, c + 2) :
			     xstrdup(w);
		n->b.event = *event;
		return;
	}
}

static void bisect_regression(struct night *n)
{
	const struct nightly_spec *s = n->o->spec;
	char *buf = NULL, *event = NULL;
	size_t len = 0;
	double t0 = now_mono();
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	n->b = (struct bisect_opts){ .tree = n->t->path,
				     .good = n->good_commit,
				     .bad = n->k.commit,
				     .matrix = s->matrix,
				     .results = s->results,
				     .cfg = n->o->cfg,
				     .max_reps = n->o->max_reps,
				     .mo = n->o->mo,
				     .out = f,
				     .tree_name = n->t->name,
				     .mail_from = s->mail_from,
				     .mail_to = s->mail_to };
	bisect_target(n, &event);
	strbuf_addf(&n->report,
		    "Bisecting %s between %s (%.12s) and tonight (%.12s):\n\n",
		    n->b.metric ? n->b.metric->name : n->b.event, ref_name(n),
		    n->good_commit, n->k.commit);
	n->bisected = bisect_run(&n->b) == BISECT_FOUND;
	fclose(f);
	strbuf_addstr(&n->report, buf ? buf : "");
	free(buf);
	n->b.event = NULL;
	free(event);
	n->t_bisect = now_mono() - t0;
}

/* Without a first bad commit: tonight's head, the range, the figures. */
static char *range_mail(struct night *n, struct strbuf *body)
{
	const char *what = n->b.metric ? n->b.metric->name :
			   n->b.event  ? n->b.event :
					 "a metric";

	strbuf_addf(
		body,
		"Hello,\n\nwblab nightly noticed a regression of %s on:\n\n",
		what);
	strbuf_addf(body, "commit: %s (\"%s\")\n", n->k.commit, n->k.subject);
	strbuf_addf(body, "in tree %s (%s %s), since %s %.12s\n\n", n->t->name,
		    n->t->url ? n->t->url : n->t->path, n->t->ref, ref_name(n),
		    n->good_commit);
	strbuf_addstr(
		body,
		"The bisection did not name one commit (only skipped commits left, or\nthe ends did not differ again): see the nightly's report.\n\n");
	return lkmail_subject(n->t->name, n->k.commit, what, "");
}

static int send(struct night *n)
{
	const struct nightly_spec *s = n->o->spec;
	struct strbuf body = STRBUF_INIT, msg = STRBUF_INIT;
	struct lkmail m = { 0 };
	const char **argv = xzalloc((s->sendmail.n + 1) * sizeof(*argv));
	char ts[32];
	time_t now = time(NULL);
	double t0 = now_mono();
	char *path;
	int ret;

	if (n->bisected) {
		strbuf_addstr(&body, n->b.body);
		m.subject = xstrdup(n->b.subject);
	} else {
		m.subject = range_mail(n, &body);
	}
	strbuf_addf(
		&body,
		"Found by wblab nightly %s (%s), then confirmed\nbefore this mail:\n\n",
		s->path,
		n->by_change ? "a change point over the nights" :
			       "tonight against the last good night");
	confirm_section(n, &body);
	strbuf_addf(&body,
		    "To reproduce the night:\n\n        wblab nightly %s\n",
		    s->path);
	pool_repro_line(&n->jc.pool, n->k.name, &body);
	m.from = xstrdup(s->mail_from);
	m.to = xstrdup(s->mail_to);
	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", gmtime(&now));
	path = xasprintf("%s/nightly-%s-%s.mail", s->results, ts, n->t->name);
	for (size_t i = 0; i < s->sendmail.n; i++)
		argv[i] = s->sendmail.v[i];
	ret = lkmail_render(&m, body.buf, now, &msg) ?:
		      lkmail_deliver(path, &msg, argv);
	if (!ret)
		strbuf_addf(&n->report, "mail: %s (git send-email %s)\n%s\n",
			    path, path, msg.buf);
	n->t_mail = now_mono() - t0;
	free(argv);
	free(path);
	lkmail_release(&m);
	strbuf_release(&body);
	strbuf_release(&msg);
	return ret;
}

/*
 * A regression confirmed again on a night after the one that bisected and
 * mailed it, with no good night between (the same last good commit): the
 * night stays a regression (never a reference) but the maintainers have
 * the mail already. Nightly mails a regression once, as the 0-day robot
 * reports a first bad commit once; a second regression of the same row in
 * the same range is not told apart (the mail named the first).
 */
static bool known(struct night *n)
{
	const struct dhyp *h = NULL;
	long long id;

	for (size_t i = 0; i < n->conf.n && !h; i++)
		if (n->conf.h[i].regression)
			h = &n->conf.h[i];
	id = h ? confirm_known(n->db, n->id, h->group, h->what) : 0;
	if (id <= 0)
		return false;
	strbuf_addf(
		&n->report,
		"known regression: %s (%s) was confirmed on night %lld, after the\nsame last good night %.12s: bisected and mailed then, not again\n",
		h->what, h->group, id, n->good_commit);
	return true;
}

int nightly_confirm(struct night *n)
{
	int ret = 0;

	if (!n->good_commit)
		return 0;
	if (confirm(n)) {
		/* Not decided: never tonight's 'good' (a reference). */
		history_night_verdict(n->db, n->id, "infra");
		strbuf_addstr(&n->report,
			      "the confirmation did not run (see the log)\n");
		return -1;
	}
	if (n->confirm_run || n->outcome == CONFIRM_REJECTED)
		confirm_section(n, &n->report);
	if (confirm_record(n->db, n->id, &n->det, &n->conf, n->confirm_run,
			   n->good_commit))
		ret = -1;
	if (n->outcome == CONFIRM_REGRESSION) {
		if (history_night_verdict(n->db, n->id, "regression"))
			ret = -1;
		if (!known(n)) {
			bisect_regression(n);
			if (send(n))
				ret = -1;
		}
		if (!ret)
			ret = 1;
	} else if (n->outcome == CONFIRM_UNKNOWN) {
		if (history_night_verdict(n->db, n->id, "unconfirmed"))
			ret = -1;
	}
	strbuf_addf(
		&n->report,
		"timings: detection %.1f s, confirmation %.1f s, bisection %.1f s, mail %.1f s\n",
		n->t_detect, n->t_confirm, n->t_bisect, n->t_mail);
	return ret;
}
