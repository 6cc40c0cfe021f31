// SPDX-License-Identifier: GPL-2.0
/*
 * The family of hypotheses a job decides (jobs/family.h): thresholded
 * rows x groups and the new event kinds, from the pool's cells.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/family.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strvec.h"

static struct dhyp *add(struct family *f)
{
	f->h = xrealloc(f->h, (f->n + 1) * sizeof(*f->h));
	memset(&f->h[f->n], 0, sizeof(*f->h));
	return &f->h[f->n++];
}

static int bad_of(const char *bad)
{
	return !strcmp(bad, "up") ? 1 : !strcmp(bad, "down") ? -1 : 0;
}

static void add_row(struct family *f, const struct pool *p, const char *ka,
		    const char *kb, const char *group,
		    const struct matrix_threshold *t)
{
	struct verdict_opts o = VERDICT_OPTS_INIT;
	struct dhyp *h = add(f);
	size_t na, nb;
	double *a = pool_values(p, ka, group, t->row, &na);
	double *b = pool_values(p, kb, group, t->row, &nb);

	h->group = xstrdup(group);
	h->what = xstrdup(t->row->name);
	h->bad = bad_of(t->bad);
	h->threshold = t->change_pct;
	o.threshold = t->change_pct;
	o.no_sdc = true; /* dhyp_format()'s, at the row's level */
	verdict_row(t->row, a, na, b, nb, &o, &h->d);
	free(a);
	free(b);
}

/* An outcome or a console event of a cell, as "kind\ttitle" keys. */
static void cell_kinds(const struct cell_result *c, struct strvec *out)
{
	const char *oc = c->outcome_name ? c->outcome_name : "";

	if (strcmp(oc, "ok"))
		strvec_pushf(out, "%s\t", oc);
	for (size_t i = 0; i < c->nr_events; i++) {
		const struct cell_event *e = &c->events[i];

		if (e->kind && strcmp(e->kind, "warning"))
			strvec_pushf(out, "%s\t%s", e->kind,
				     e->title ? e->title : "");
	}
}

/* One event kind (a "kind\ttitle" key), tested over every group. */
static void add_event(struct family *f, const struct pool *p, const char *ka,
		      const char *kb, const char *key, bool new_kind)
{
	const char *tab = strchr(key, '\t');
	char *kind = xstrndup(key, tab - key);
	const char *title = tab[1] ? tab + 1 : NULL;
	struct dhyp *h;
	int fa, ra, fb, rb;

	pool_rate(p, ka, NULL, kind, title, &fa, &ra);
	pool_rate(p, kb, NULL, kind, title, &fb, &rb);
	h = add(f);
	h->group = xstrdup("all groups");
	h->what = xasprintf("%s%s%s%s", new_kind ? "new " : "", kind,
			    title ? ": " : "", title ? title : "");
	dhyp_event(h, fa, ra, fb, rb);
	free(kind);
}

/*
 * Every event kind either kernel showed, each decided by the one-sided
 * Fisher test of kb's rate against ka's over every group: a kind the
 * reference shows too can still rise (1 of 3 cells OOM-killed to 3 of 3),
 * and a kind both kernels share at a few percent (TCG boot failures run
 * near 8%) is no news however the cells fall. "new KIND" when ka never
 * showed it.
 */
static void add_events(struct family *f, const struct pool *p, const char *ka,
		       const char *kb)
{
	struct strvec seen_a = STRVEC_INIT, seen_b = STRVEC_INIT;
	struct strvec keys = STRVEC_INIT;

	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].kernel, ka))
			cell_kinds(p->v[i].cell, &seen_a);
		else if (!strcmp(p->v[i].kernel, kb))
			cell_kinds(p->v[i].cell, &seen_b);
	for (size_t i = 0; i < seen_b.nr + seen_a.nr; i++) {
		const char *key = i < seen_b.nr ? seen_b.v[i] :
						  seen_a.v[i - seen_b.nr];

		if (!strvec_has(&keys, key))
			strvec_push(&keys, key);
	}
	for (size_t i = 0; i < keys.nr; i++)
		add_event(f, p, ka, kb, keys.v[i],
			  !strvec_has(&seen_a, keys.v[i]));
	strvec_clear(&keys);
	strvec_clear(&seen_a);
	strvec_clear(&seen_b);
}

void family_build(struct family *f, const struct pool *p, const char *ka,
		  const char *kb, const struct matrix_threshold *t, size_t nt)
{
	memset(f, 0, sizeof(*f));
	f->look = -1;
	for (size_t g = 0; g < p->groups.nr; g++) {
		const char *grp = p->groups.v[g];
		int na = (int)pool_count(p, ka, grp);
		int nb = (int)pool_count(p, kb, grp);
		int n = na < nb ? na : nb;

		if (f->look < 0 || n < f->look)
			f->look = n;
		for (size_t i = 0; i < nt; i++)
			add_row(f, p, ka, kb, grp, &t[i]);
	}
	if (f->look < 0)
		f->look = 0;
	add_events(f, p, ka, kb);
}

void family_decide(struct family *f, const struct pool *p, const char *ka,
		   const char *kb, const struct matrix_threshold *t, size_t nt,
		   const struct dlooks *l)
{
	family_build(f, p, ka, kb, t, nt);
	decide_family(f->h, f->n, l, f->look);
}

/* "[new ]KIND[: title]" -> "KIND\ttitle", the key cell_kinds() makes. */
static char *event_key(const struct dhyp *h)
{
	const char *w = dhyp_event_key(h), *c = strstr(w, ": ");

	return c ? xasprintf("%.*s\t%s", (int)(c - w), w, c + 2) :
		   xasprintf("%s\t", w);
}

static bool has_event(const struct family *f, const struct dhyp *h)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->h[i].event &&
		    !strcmp(dhyp_event_key(&f->h[i]), dhyp_event_key(h)))
			return true;
	return false;
}

void family_decide_with(struct family *f, const struct pool *p, const char *ka,
			const char *kb, const struct matrix_threshold *t,
			size_t nt, const struct dlooks *l,
			const struct family *asked)
{
	family_build(f, p, ka, kb, t, nt);
	for (size_t i = 0; asked && i < asked->n; i++) {
		const struct dhyp *h = &asked->h[i];
		char *key;

		if (!h->event || has_event(f, h))
			continue;
		key = event_key(h);
		add_event(f, p, ka, kb, key, !strncmp(h->what, "new ", 4));
		free(key);
	}
	decide_family(f->h, f->n, l, f->look);
}

void family_release(struct family *f)
{
	dhyp_release(f->h, f->n);
	free(f->h);
	memset(f, 0, sizeof(*f));
}

size_t family_regressions(const struct family *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += f->h[i].regression;
	return n;
}

size_t family_unknown(const struct family *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += (f->h[i].d.verdict == VERDICT_UNKNOWN ||
		      f->h[i].unsettled) &&
		     (f->h[i].d.na > 0 || f->h[i].d.nb > 0);
	return n;
}

size_t family_same(const struct family *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += f->h[i].d.verdict == VERDICT_SAME;
	return n;
}

int family_exit(const struct family *f)
{
	if (family_regressions(f))
		return FAMILY_EXIT_REGRESSION;
	return family_unknown(f) ? FAMILY_EXIT_UNKNOWN : FAMILY_EXIT_OK;
}

void family_print(FILE *out, const struct family *f)
{
	const char *last = "";

	for (size_t i = 0; i < f->n; i++) {
		const struct dhyp *h = &f->h[i];
		struct strbuf sb = STRBUF_INIT;

		if (strcmp(last, h->group))
			fprintf(out, "%s%s\n", *last ? "\n" : "", h->group);
		last = h->group;
		dhyp_format(h, &sb);
		fprintf(out, "  %s %s\n", h->regression ? "*" : " ", sb.buf);
		strbuf_release(&sb);
	}
}
