// SPDX-License-Identifier: GPL-2.0
/*
 * The first bad commit as a mail (bisect-int.h), in the form of the
 * 0-day robot's reports: "[TREE] COMMIT: WHAT CHANGE regression",
 * "commit: ID (\"subject\")", the tree, the testcase, the good and first
 * bad columns with %stddev and %change, how the cells decided it, and
 * the exact wblab commands that reproduce it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jobs/bisect-int.h"
#include "jobs/lkmail.h"
#include "stats/stats.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strvec.h"

void bisect_opts_release(struct bisect_opts *o)
{
	free(o->subject);
	free(o->body);
	free(o->mail_path);
	o->subject = o->body = o->mail_path = NULL;
}

static double side_mean(struct bctx *b, const char *k, double *sd, int *n)
{
	struct stats_desc d;
	size_t nv, m = 0;
	double *v;

	if (bisect_event_mode(b)) {
		int f, r;

		pool_rate(&b->jr.pool, k, b->ends_group, b->kind,
			  *b->title ? b->title : NULL, &f, &r);
		*sd = NAN;
		*n = r;
		return r ? 100.0 * f / r : NAN;
	}
	v = pool_values(&b->jr.pool, k, b->ends_group, b->o->metric, &nv);
	for (size_t i = 0; i < nv; i++)
		if (isfinite(v[i]))
			v[m++] = v[i];
	stats_describe(v, m, &d);
	*sd = d.stddev;
	*n = (int)m;
	/* the row's one mean, as the decisions print it */
	d.amean = metric_mean(b->o->metric, v, m);
	free(v);
	return d.amean;
}

/*
 * The change as the subject says it: "+12.3%", "-8.1%", from a mean of
 * 0 "0 -> 295 pages" (never +inf%), a rate "+40pp".
 */
static void change_of(struct bctx *b, double mg, double mb, struct strbuf *out)
{
	if (bisect_event_mode(b))
		strbuf_addf(out, "%+.0fpp", mb - mg);
	else if (mg == 0 || !isfinite(mg))
		strbuf_addf(out, "%.4g -> %.4g %s", mg, mb, b->o->metric->unit);
	else
		strbuf_addf(out, "%+.1f%%", 100 * (mb - mg) / fabs(mg));
}

/* A "%stddev" column: the mean and "+- 12%" of it (blank for a rate or 0). */
static void col(struct strbuf *out, double m, double sd)
{
	if (isfinite(sd) && m != 0)
		strbuf_addf(out, "%12.4g +-%3.0f%%", m, 100 * sd / fabs(m));
	else
		strbuf_addf(out, "%12.4g      ", m);
}

/* The exact command that repeats this bisection. */
static void command(struct bctx *b, struct strbuf *out)
{
	const struct bisect_opts *o = b->o;
	struct strvec a = STRVEC_INIT;
	char *mr = xasprintf("%d", o->max_reps);

	strvec_pushl(&a, "wblab", "bisect", "--tree", o->tree, "--good",
		     b->good.commit, "--bad", b->bad.commit, "--matrix",
		     o->matrix, NULL);
	if (bisect_event_mode(b))
		strvec_pushl(&a, "--event", o->event, NULL);
	else
		strvec_pushl(&a, "--metric", o->metric->name, NULL);
	strvec_pushl(&a, "--max-reps", mr, "--results", o->results, NULL);
	tree_config_argv(&o->cfg, &a);
	lkmail_command(out, a.v);
	strvec_clear(&a);
	free(mr);
}

static void figures(struct bctx *b, const struct bstep *fb,
		    const struct bstep *ref, struct strbuf *out)
{
	double mg, sg, mb, sb;
	int ng, nb;
	struct decision d;

	mg = side_mean(b, b->good.kernel, &sg, &ng);
	mb = side_mean(b, ref->kernel, &sb, &nb);
	bisect_compare(b, b->good.kernel, ref->kernel, b->ends_group, &d);
	strbuf_addf(out, "commit:\n  %.10s (\"%s\")\n  %.10s (\"%s\")\n\n",
		    b->good.commit, b->good.subject, fb->commit, fb->subject);
	strbuf_addf(out, "%-18.16s %-18.16s\n", b->good.commit, fb->commit);
	strbuf_addstr(out,
		      "------------------ ---------------------------------\n");
	strbuf_addstr(out, "         %stddev     %change         %stddev\n");
	col(out, mg, sg);
	strbuf_addstr(out, " ");
	change_of(b, mg, mb, out);
	strbuf_addstr(out, " ");
	col(out, mb, sb);
	if (bisect_event_mode(b))
		strbuf_addf(out, "  %s (%% of cells)\n", b->o->event);
	else
		strbuf_addf(out, "  %s\n", b->o->metric->name);
	strbuf_addf(out, "%12d %28d        cells with a kernel result\n\n", ng,
		    nb);
	strbuf_addf(out, "  %s\n\n", d.why);
}

static void body(struct bctx *b, const struct bstep *fb,
		 const struct bstep *ref, const char *change,
		 struct strbuf *out)
{
	char host[256] = "";
	struct strbuf repro = STRBUF_INIT;

	gethostname(host, sizeof(host) - 1);
	strbuf_addf(
		out,
		"Hello,\n\nwblab's bisection noticed a %s regression of %s on:\n\n",
		change, bisect_what(b));
	strbuf_addf(out, "commit: %s (\"%s\")\n", fb->commit, fb->subject);
	strbuf_addf(out, "in tree %s, between good %.12s and bad %.12s\n\n",
		    b->o->tree, b->good.commit, b->bad.commit);
	strbuf_addf(out, "in testcase: %s (matrix %s)\n", b->ends_group,
		    b->m.name);
	strbuf_addf(out, "test machine: %s (%s)\n\n", host, b->ends_run);
	figures(b, fb, ref, out);
	if (ref != fb && strcmp(ref->commit, fb->commit))
		strbuf_addf(
			out,
			"(%.12s's figures are %.12s's: the same kernel image)\n\n",
			fb->commit, ref->commit);
	strbuf_addstr(out, "To reproduce:\n\n");
	command(b, out);
	pool_repro_line(&b->jr.pool, ref->kernel, &repro);
	if (repro.len)
		strbuf_addf(out, "\n%s", repro.buf);
	strbuf_release(&repro);
	strbuf_addch(out, '\n');
}

/* The tree as the subject names it: the given name, or the directory's. */
static const char *tree_label(const struct bctx *b)
{
	const char *slash;
	size_t len = strlen(b->o->tree);

	if (b->o->tree_name)
		return b->o->tree_name;
	while (len > 1 && b->o->tree[len - 1] == '/')
		len--;
	for (slash = b->o->tree + len; slash > b->o->tree; slash--)
		if (slash[-1] == '/')
			break;
	return slash;
}

void bisect_mail(struct bctx *b, long first, struct strbuf *out)
{
	struct bisect_opts *o = b->o;
	const struct bstep *fb = &b->c[first];
	const struct bstep *twin = fb->run_dir ? NULL :
						 bisect_same_image(b, fb);
	const struct bstep *ref = fb->run_dir ? fb : twin ? twin : &b->bad;
	struct strbuf change = STRBUF_INIT, text = STRBUF_INIT,
		      msg = STRBUF_INIT;
	struct lkmail m = { 0 };
	char host[128] = "localhost", *label;
	double sd, mg, mb;
	int n;

	mg = side_mean(b, b->good.kernel, &sd, &n);
	mb = side_mean(b, ref->kernel, &sd, &n);
	change_of(b, mg, mb, &change);
	body(b, fb, ref, change.buf, &text);
	strbuf_addstr(out, text.buf);

	gethostname(host, sizeof(host) - 1);
	label = xstrndup(tree_label(b), 40);
	m.subject =
		lkmail_subject(label, fb->commit, bisect_what(b), change.buf);
	m.from = o->mail_from ? xstrdup(o->mail_from) :
				xasprintf("wblab <wblab@%s>", host);
	m.to = o->mail_to ? xstrdup(o->mail_to) : NULL;
	free(o->mail_path);
	o->mail_path = xasprintf("%s/first-bad.mail", b->dir);
	if (!lkmail_render(&m, text.buf, time(NULL), &msg) &&
	    !lkmail_deliver(o->mail_path, &msg, NULL))
		strbuf_addf(out, "mail: %s (git send-email %s)\n", o->mail_path,
			    o->mail_path);
	snprintf(o->first_bad, sizeof(o->first_bad), "%s", fb->commit);
	free(o->subject);
	free(o->body);
	o->subject = xstrdup(m.subject);
	o->body = strbuf_detach(&text, NULL);
	free(label);
	lkmail_release(&m);
	strbuf_release(&change);
	strbuf_release(&msg);
}
