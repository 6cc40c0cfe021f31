// SPDX-License-Identifier: GPL-2.0
/*
 * The claims section: the seed's three claims ("mm: disallow direct
 * reclaim page writeback", 2010), each answered where a run holds the
 * workload that asks it, stock (the baseline) against the revert.
 *
 *   (a) writeback from direct reclaim can overflow the task stack on a
 *       deep storage stack;
 *   (b) reclaim writes pages in LRU order, which is seeky;
 *   (c) forbidding it risks premature OOMs.
 *
 * A claim's figure is a registry row (decided with the row's own test),
 * the cells where a registry row is above 0 (a rate: did it happen at
 * all, Fisher), or an event kind (a rate: cells with it, Fisher). The
 * table below is
 * the one place that says which workload asks which claim; the verdicts
 * come from decide/verdict.h like the Verdict block's.
 */
#include <math.h>
#include <string.h>

#include "report/mail-int.h"
#include "report/report.h"
#include "results/outcome.h"
#include "util/html.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strvec.h"

/* lab/patches' revert of the policy: direct reclaim writes file folios. */
#define REVERT_PATCH "0001-mm-vmscan-let-direct-reclaim-write-file-folios.patch"

struct claim {
	const char *id; /* "a", "b", "c" */
	const char *figure; /* a registry row name, or an event kind */
	const char *const *workloads; /* NULL-terminated */
	bool event; /* figure is an event kind: a rate */
	/* figure is a row: the cells where it is > 0 of those with it, a
	 * rate (Fisher), named "ROW > 0" as the outcome rows name it */
	bool positive;
	/*
	 * A stack depth: each side's deepest cell and its share of that
	 * cell's THREAD_SIZE (an overflow is about the worst case, not the
	 * mean); probes: a lower bound when a cell's probes lost events.
	 */
	bool deepest, probes;
	/* The stock side's row, when the claim compares two writers. */
	const char *stock_figure;
	const char *label; /* the section's name for it, default figure */
};

static const char *const stack_workloads[] = { "stack-reclaim-write",
					       "deep-stack-dirty",
					       "swap-direct", NULL };

static const char *const seek_workloads[] = { "seeky-random", "seeky-streams",
					      "seeky-stride", NULL };

static const char *const oom_workloads[] = { "oom-premature",
					     "oom-premature-dirty-default",
					     NULL };

/*
 * (a) on the 8 KiB pair: does a reclaim write overflow, how deep does it
 * go, and how deep any task went (the stack tracer: the revert puts the
 * write path on the writer's own stack); (b) the cost (throughput), the
 * flusher's seeks (does reclaim upset its sequential I/O), the claim
 * itself, reclaim's seeks and runs of contiguous writes against those
 * of the writer that cleans the same pages on stock 6.1, the flusher
 * (stock's memcg reclaim writes nothing, so a stock-v-revert reclaim row
 * has no stock side), and reclaim's write order against file offset; (c) the kills the memcg's
 * dirty pages could have avoided: in how many cells (the rate the issue
 * asks n >= 10 for), how many a cell, what the memcg held dirty or under
 * writeback at them, and the cells with any kill. A count that is 0 in
 * nearly every cell is a rate first: log1p-welch has no variance when
 * neither side kills (p "-"), where Fisher's 0/10 against 0/10 can say
 * `same`; and oom-kills is a rate row (MK_RATE), not a mean.
 */
/* clang-format off */
static const struct claim claims[] = {
	{ .id = "a", .figure = "stack_overflow", .workloads = stack_workloads,
	  .event = true },
	{ .id = "a", .figure = "reclaim-wr-stack", .workloads = stack_workloads,
	  .deepest = true, .probes = true },
	{ .id = "a", .figure = "stack-max", .workloads = stack_workloads,
	  .deepest = true },
	{ .id = "b", .figure = "fio-write", .workloads = seek_workloads },
	{ .id = "b", .figure = "Flusher seeks", .workloads = seek_workloads },
	{ .id = "b", .figure = "Memcg seeks", .workloads = seek_workloads,
	  .stock_figure = "Flusher seeks", .label = "Reclaim v flusher" },
	{ .id = "b", .figure = "Memcg run", .workloads = seek_workloads,
	  .stock_figure = "Flusher run", .label = "Run, reclaim v fl" },
	{ .id = "b", .figure = "Memcg offset rho", .workloads = seek_workloads },
	{ .id = "c", .figure = "oom-premature", .workloads = oom_workloads,
	  .positive = true, .label = "oom-premature > 0" },
	{ .id = "c", .figure = "oom-premature", .workloads = oom_workloads },
	{ .id = "c", .figure = "oom-dirty-at-kill", .workloads = oom_workloads },
	{ .id = "c", .figure = "oom-kills", .workloads = oom_workloads,
	  .positive = true, .label = "oom-kills > 0" },
};
/* clang-format on */

static const char *const claim_text[] = {
	"(a) writeback from direct reclaim overflows the task stack",
	"(b) reclaim writes in LRU order, which is seeky",
	"(c) forbidding it risks premature OOMs",
};

static bool asks(const struct claim *c, const char *workload)
{
	for (const char *const *w = c->workloads; *w; w++)
		if (!strcmp(*w, workload))
			return true;
	return false;
}

/* The row's one mean (metric_mean(): what its test compares), NAN for none. */
static double summary(size_t m, const double *v, size_t n)
{
	return metric_mean(&metric_rows[m], v, n);
}

/*
 * A side's deepest finished cell for row m: its value, its share of its
 * own THREAD_SIZE, and whether any cell's probes lost events (then the
 * deepest may lie deeper: a lower bound).
 */
static void deepest(const struct rpt_side *s, size_t m, bool probes, double *v,
		    double *share, bool *lossy)
{
	*v = *share = NAN;
	*lossy = false;
	for (size_t i = 0; i < s->n; i++) {
		const struct rpt_cell *c = s->cells[i];

		if (isnan(c->val[m]) || !outcome_is(c->outcome, OUTCOME_OK))
			continue;
		*lossy |= probes && c->rw_lossy;
		if (isnan(*v) || c->val[m] > *v) {
			*v = c->val[m];
			*share = c->val[m] / c->thread_size;
		}
	}
}

static void decide_rate(const struct rpt_side *a, const struct rpt_side *b,
			const struct verdict_opts *o, struct rpt_claim *rc)
{
	rc->va = rpt_side_cells_with(a, rc->figure);
	rc->vb = rpt_side_cells_with(b, rc->figure);
	rc->na = (int)a->n;
	rc->nb = (int)b->n;
	verdict_rate(rc->va, a->n, rc->vb, b->n, o, &rc->d);
}

/* How many of v are above 0: the cells where the row happened at all. */
static unsigned positive(const double *v, size_t n)
{
	unsigned k = 0;

	for (size_t i = 0; i < n; i++)
		k += v[i] > 0;
	return k;
}

static void decide(const struct report *r, const struct rpt_group *g,
		   struct rpt_claim *rc, const struct claim *c)
{
	const struct rpt_side *a = &g->sides[rc->stock];
	const struct rpt_side *b = &g->sides[rc->side];
	struct verdict_opts o = VERDICT_OPTS_INIT;
	double *va, *vb;
	size_t ma, m, na, nb;

	o.alpha = r->o.alpha;
	o.power = r->o.power;
	o.threshold = r->o.threshold;
	o.min_n = STATS_MIN_N;
	if (c->event) {
		decide_rate(a, b, &o, rc);
		return;
	}
	ma = metric_index(metric_by_name(rc->stock_figure));
	m = metric_index(metric_by_name(rc->figure));
	va = xmalloc((a->n + 1) * sizeof(*va));
	vb = xmalloc((b->n + 1) * sizeof(*vb));
	na = rpt_side_row_values(a, ma, va);
	nb = rpt_side_row_values(b, m, vb);
	rc->na = (int)na;
	rc->nb = (int)nb;
	rc->va = summary(ma, va, na);
	rc->vb = summary(m, vb, nb);
	if (c->deepest) {
		deepest(a, ma, c->probes, &rc->deep_a, &rc->share_a,
			&rc->lossy_a);
		deepest(b, m, c->probes, &rc->deep_b, &rc->share_b,
			&rc->lossy_b);
	}
	if (c->positive) {
		rc->va = positive(va, na);
		rc->vb = positive(vb, nb);
		verdict_rate(rc->va, na, rc->vb, nb, &o, &rc->d);
	} else {
		verdict_row(&metric_rows[m], va, na, vb, nb, &o, &rc->d);
	}
	free(va);
	free(vb);
}

static void add_claim(struct report *r, size_t g, size_t stock, size_t s,
		      const struct claim *c)
{
	struct rpt_claim *rc;

	r->claims =
		xrealloc(r->claims, (r->nr_claims + 1) * sizeof(*r->claims));
	rc = &r->claims[r->nr_claims++];
	memset(rc, 0, sizeof(*rc));
	rc->group = g;
	rc->stock = stock;
	rc->side = s;
	rc->id = c->id;
	rc->figure = c->figure;
	rc->stock_figure = c->stock_figure ? c->stock_figure : c->figure;
	rc->label = c->label ? c->label : c->figure;
	rc->event = c->event || c->positive;
	rc->deepest = c->deepest;
	rc->deep_a = rc->deep_b = rc->share_a = rc->share_b = NAN;
	decide(r, &r->groups[g], rc, c);
}

/* The patches of a side (its first cell's), as a list. */
static void side_patches(const struct rpt_side *s, struct strvec *out)
{
	char *copy = xstrdup(s->n ? s->cells[0]->patches : ""), *save, *p;

	for (p = strtok_r(copy, ", ", &save); p;
	     p = strtok_r(NULL, ", ", &save))
		strvec_push(out, p);
	free(copy);
}

static bool has(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->nr; i++)
		if (!strcmp(v->v[i], s))
			return true;
	return false;
}

/*
 * Is side a the stock kernel of the revert b: the same source, and b's
 * patches are a's plus the revert, in any order?
 */
static bool stock_of(const struct rpt_side *a, const struct rpt_side *b)
{
	struct strvec pa = STRVEC_INIT, pb = STRVEC_INIT;
	bool ok;

	if (!a->n || !b->n || strcmp(a->cells[0]->source, b->cells[0]->source))
		return false;
	side_patches(a, &pa);
	side_patches(b, &pb);
	ok = has(&pb, REVERT_PATCH) && !has(&pa, REVERT_PATCH) &&
	     pb.nr == pa.nr + 1;
	for (size_t i = 0; ok && i < pa.nr; i++)
		ok = has(&pb, pa.v[i]);
	strvec_clear(&pa);
	strvec_clear(&pb);
	return ok;
}

/*
 * After the groups: one entry per group, (stock, revert) pair of sides
 * and claim figure its workload asks, in that order (the mail heads each
 * group and pair). A pair is a kernel with lab/patches' revert and the
 * side that is the same kernel without it (6.1 and 6.1-direct-writeback,
 * 6.1-8k and 6.1-8k-direct-writeback), whatever the report's baseline.
 */
void rpt_build_claims(struct report *r)
{
	free(r->claims);
	r->claims = NULL;
	r->nr_claims = 0;
	for (size_t i = 0; i < ARRAY_SIZE(claims); i++)
		if (!claims[i].event &&
		    (!metric_by_name(claims[i].figure) ||
		     (claims[i].stock_figure &&
		      !metric_by_name(claims[i].stock_figure))))
			die("claims.c: figure '%s' is not a registry row",
			    claims[i].figure);
	for (size_t g = 0; g < r->nr_groups; g++) {
		const struct rpt_group *gr = &r->groups[g];

		for (size_t s = 0; s < gr->nr_sides; s++)
			for (size_t a = 0; a < gr->nr_sides; a++) {
				if (a == s ||
				    !stock_of(&gr->sides[a], &gr->sides[s]))
					continue;
				for (size_t i = 0; i < ARRAY_SIZE(claims); i++)
					if (asks(&claims[i], gr->workload))
						add_claim(r, g, a, s,
							  &claims[i]);
			}
	}
}

/* Does the report hold a figure of claim text[i] ("a" + i)? */
static bool claim_asked(const struct report *r, size_t i)
{
	for (size_t k = 0; k < r->nr_claims; k++)
		if ((size_t)(*r->claims[k].id - 'a') == i)
			return true;
	return false;
}

const char *rpt_claim_text(const char *id)
{
	return claim_text[*id - 'a'];
}

/*
 * "3/5" for a rate, "3412 bytes" for a row: what the claim's test
 * compared (">=" for a stack depth whose probes lost events).
 */
void rpt_claim_side(const struct rpt_claim *c, bool base, char *buf, size_t n)
{
	double v = base ? c->va : c->vb;
	const char *bound = (base ? c->lossy_a : c->lossy_b) ? ">=" : "";
	char t[32];

	if (c->event) {
		snprintf(buf, n, "%.0f/%d", v, base ? c->na : c->nb);
		return;
	}
	if (isnan(v)) {
		snprintf(buf, n, "-");
		return;
	}
	rpt_fmt_val(t, sizeof(t), v);
	snprintf(buf, n, "%s%s %s", bound, t,
		 metric_rows[metric_index(metric_by_name(c->figure))].unit);
}

/*
 * "3856 B (47%)": the deepest stack of a side and its share of that
 * cell's THREAD_SIZE (">=3856 B (47%)" when probes lost events).
 */
void rpt_claim_deepest(const struct rpt_claim *c, bool base, char *buf,
		       size_t n)
{
	double v = base ? c->deep_a : c->deep_b;
	double share = base ? c->share_a : c->share_b;
	const char *bound = (base ? c->lossy_a : c->lossy_b) ? ">=" : "";

	if (!c->deepest || isnan(v))
		snprintf(buf, n, "-");
	else if (isfinite(share))
		snprintf(buf, n, "%s%.0f B (%.0f%%)", bound, v, 100 * share);
	else
		snprintf(buf, n, "%s%.0f B", bound, v);
}

/* A row's stock and revert figures (n bytes each) and its p, as printed. */
static void claim_cells(const struct rpt_claim *c, char *a, char *b, size_t n,
			char p[16])
{
	rpt_claim_side(c, true, a, n);
	rpt_claim_side(c, false, b, n);
	if (isnan(c->d.p))
		snprintf(p, 16, "-");
	else
		snprintf(p, 16, "%.2g", c->d.p);
}

static void mail_line(struct strbuf *out, const struct rpt_claim *c)
{
	char fig[20], a[24], b[24], p[16];

	claim_cells(c, a, b, sizeof(a), p);
	strbuf_addf(out, "  (%s) %-17s %14s %14s %3d/%-3d %6s %s\n", c->id,
		    mail_ascii(fig, sizeof(fig), c->label, 17), a, b, c->na,
		    c->nb, p, verdict_name(c->d.verdict));
	if (!c->deepest)
		return;
	rpt_claim_deepest(c, true, a, sizeof(a));
	rpt_claim_deepest(c, false, b, sizeof(b));
	strbuf_addf(out, "      %-17s %14s %14s\n", "deepest cell", a, b);
}

/*
 * What a figure means where the row alone cannot say it: the deepest
 * cell's depth, and a row whose stock side is another writer's.
 */
static void claim_notes(const struct report *r, struct strvec *notes)
{
	struct strvec said = STRVEC_INIT;
	bool deep = false;

	for (size_t i = 0; i < r->nr_claims; i++) {
		const struct rpt_claim *c = &r->claims[i];

		deep |= c->deepest;
		if (c->stock_figure == c->figure || has(&said, c->label))
			continue;
		strvec_push(&said, c->label);
		strvec_pushf(
			notes, "%s: stock's %s against the revert's %s (%s)",
			c->label, c->stock_figure, c->figure,
			metric_rows[metric_index(metric_by_name(c->figure))]
				.help);
	}
	if (deep)
		strvec_push(notes,
			    "stack rows: the mean the test compares, "
			    "then each side's deepest cell and its share "
			    "of that kernel's THREAD_SIZE (not tested); "
			    ">= when probes lost events (a lower bound)");
	strvec_clear(&said);
}

void rpt_claims_mail(const struct report *r, struct strbuf *out)
{
	char head[200], t[40], w[40], sa[40], sb[40];
	struct strvec notes = STRVEC_INIT;

	if (!r->nr_claims)
		return;
	strbuf_addstr(out, "Claims of the seed (\"mm: disallow direct reclaim "
			   "page writeback\", 2010)\n");
	for (size_t i = 0; i < ARRAY_SIZE(claim_text); i++)
		if (claim_asked(r, i))
			mail_wrap(out, "  ", 6, claim_text[i]);
	claim_notes(r, &notes);
	for (size_t i = 0; i < notes.nr; i++)
		mail_wrap(out, "    ", 6, notes.v[i]);
	strvec_clear(&notes);
	for (size_t i = 0; i < r->nr_claims; i++) {
		const struct rpt_claim *c = &r->claims[i];
		const struct rpt_group *g = &r->groups[c->group];

		if (!i || c->group != r->claims[i - 1].group ||
		    c->side != r->claims[i - 1].side ||
		    c->stock != r->claims[i - 1].stock) {
			snprintf(head, sizeof(head),
				 "%s / %s: stock %s, revert %s",
				 mail_ascii(t, sizeof(t), g->topology, 30),
				 mail_ascii(w, sizeof(w), g->workload, 30),
				 mail_ascii(sa, sizeof(sa),
					    g->sides[c->stock].name, 30),
				 mail_ascii(sb, sizeof(sb),
					    g->sides[c->side].name, 30));
			mail_wrap(out, "  ", 4, head);
			strbuf_addf(out, "  %-21s %14s %14s %7s %6s %s\n",
				    "claim figure", "stock", "revert", "n", "p",
				    "verdict");
		}
		mail_line(out, c);
	}
	strbuf_addch(out, '\n');
}

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

json_object *rpt_claims_json(const struct report *r)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->nr_claims; i++) {
		const struct rpt_claim *c = &r->claims[i];
		const struct rpt_group *g = &r->groups[c->group];
		json_object *o = json_object_new_object();

		json_put_str(o, "claim", c->id);
		json_put_str(o, "text", rpt_claim_text(c->id));
		json_put_str(o, "figure", c->label);
		json_put_str(o, "row", c->figure);
		json_put_str(o, "stock_row", c->stock_figure);
		json_put_str(o, "stat",
			     c->event ?
				     "cells" :
				     metric_mean_name(&metric_rows[metric_index(
					     metric_by_name(c->figure))]));
		json_put_str(o, "kind", c->event ? "rate" : "metric");
		json_put_str(o, "topology", g->topology);
		json_put_str(o, "workload", g->workload);
		json_put_str(o, "stock", g->sides[c->stock].name);
		json_put_str(o, "revert", g->sides[c->side].name);
		json_put(o, "stock_value", num(c->va));
		json_put(o, "revert_value", num(c->vb));
		if (c->deepest) {
			json_put(o, "stock_deepest", num(c->deep_a));
			json_put(o, "revert_deepest", num(c->deep_b));
			json_put(o, "stock_share", num(c->share_a));
			json_put(o, "revert_share", num(c->share_b));
			json_put(o, "stock_lower_bound",
				 json_object_new_boolean(c->lossy_a));
			json_put(o, "revert_lower_bound",
				 json_object_new_boolean(c->lossy_b));
		}
		json_put_int(o, "n_stock", c->na);
		json_put_int(o, "n_revert", c->nb);
		json_put(o, "p", num(c->d.p));
		json_put_str(o, "test", metric_test_name(c->d.test));
		json_put_str(o, "verdict", verdict_name(c->d.verdict));
		json_object_array_add(a, o);
	}
	return a;
}

static void td(struct strbuf *out, const char *s)
{
	strbuf_addstr(out, "<td>");
	html_escape(out, s);
	strbuf_addstr(out, "</td>");
}

void rpt_claims_html(const struct report *r, struct strbuf *out)
{
	char a[40], b[40], p[16];
	struct strvec notes = STRVEC_INIT;

	if (!r->nr_claims)
		return;
	strbuf_addstr(out, "<h2>Claims of the seed</h2>\n<ul>\n");
	for (size_t i = 0; i < ARRAY_SIZE(claim_text); i++) {
		if (!claim_asked(r, i))
			continue;
		strbuf_addstr(out, "<li>");
		html_escape(out, claim_text[i]);
		strbuf_addstr(out, "</li>\n");
	}
	claim_notes(r, &notes);
	for (size_t i = 0; i < notes.nr; i++) {
		strbuf_addstr(out, "<li>");
		html_escape(out, notes.v[i]);
		strbuf_addstr(out, "</li>\n");
	}
	strvec_clear(&notes);
	strbuf_addstr(out, "</ul>\n<table><tr><th>claim</th><th>figure</th>"
			   "<th>where</th><th>stock</th><th>revert</th>"
			   "<th>n</th><th>p</th><th>verdict</th></tr>\n");
	for (size_t i = 0; i < r->nr_claims; i++) {
		const struct rpt_claim *c = &r->claims[i];
		const struct rpt_group *g = &r->groups[c->group];
		struct strbuf w = STRBUF_INIT;

		strbuf_addf(&w, "%s / %s", g->topology, g->workload);
		claim_cells(c, a, b, sizeof(a), p);
		if (c->deepest) {
			char da[40], db[40];

			rpt_claim_deepest(c, true, da, sizeof(da));
			rpt_claim_deepest(c, false, db, sizeof(db));
			strbuf_addf(&w, "; deepest cell %s, %s", da, db);
		}
		strbuf_addf(out, "<tr><td>(%s)</td>", c->id);
		td(out, c->label);
		td(out, w.buf);
		strbuf_addstr(out, "<td>");
		html_escape(out, g->sides[c->stock].name);
		strbuf_addf(out, ": %s</td><td>", a);
		html_escape(out, g->sides[c->side].name);
		strbuf_addf(out,
			    ": %s</td><td>%d/%d</td><td>%s</td>"
			    "<td><b>%s</b></td></tr>\n",
			    b, c->na, c->nb, p, verdict_name(c->d.verdict));
		strbuf_release(&w);
	}
	strbuf_addstr(out, "</table>\n");
}
