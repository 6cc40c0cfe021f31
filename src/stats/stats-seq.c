// SPDX-License-Identifier: GPL-2.0
/*
 * Group-sequential boundaries: how far a z statistic must be from 0 at
 * each of several looks at growing data so that the chance of crossing
 * at any look, when nothing changed, is alpha. The crossing probability
 * is computed by the recursive numerical integration of Armitage,
 * McPherson and Rowe (1969), as in Jennison & Turnbull (2000), ch. 19:
 * the density of Z_k on the continuation region, carried look to look.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats-int.h"

/*
 * Simpson's rule on a grid of at most this many points per look, with
 * spacing at most GRID_H and at most 1/GRID_PER_SD of the smallest
 * standard deviation of Z_k given Z_{k-1}: crossing probabilities to
 * about 1e-9, boundaries to about 1e-6 (checked against rpact).
 */
#define GRID_MAX 4001
#define GRID_H 0.02
#define GRID_PER_SD 16
/* A bound no path crosses (P(|Z| >= 20) ~ 1e-88): nothing to spend. */
#define Z_NEVER 20.0

/* The continuation density of Z at one look on an even grid. */
struct grid {
	size_t n; /* odd, >= 3 */
	double lo, h; /* z_i = lo + i h */
	double f[GRID_MAX]; /* density times Simpson weight: sum = mass */
};

/* Simpson's weight of point i of n (odd): h/3 * 1, 4, 2, ..., 4, 1. */
static double simpson(size_t i, size_t n, double h)
{
	if (i == 0 || i == n - 1)
		return h / 3;
	return h / 3 * (i % 2 ? 4 : 2);
}

/* An odd point count for [-c, c] at spacing <= hmax. */
static size_t grid_points(double c, double hmax)
{
	size_t n = (size_t)ceil(2 * c / hmax) + 1;

	if (n % 2 == 0)
		n++;
	if (n < 3)
		n = 3;
	return n > GRID_MAX ? GRID_MAX : n;
}

/* Look 1: Z_1 ~ N(0, 1) on (-c, c). */
static void grid_first(struct grid *g, double c, double hmax)
{
	g->n = grid_points(c, hmax);
	g->lo = -c;
	g->h = 2 * c / (g->n - 1);
	for (size_t i = 0; i < g->n; i++)
		g->f[i] = gsl_ran_ugaussian_pdf(g->lo + i * g->h) *
			  simpson(i, g->n, g->h);
}

/*
 * Z_k given Z_{k-1} = u is N(u r, s^2) with r = sqrt(t_{k-1} / t_k),
 * s = sqrt(1 - r^2). The chance of crossing +-c at look k without having
 * crossed before: the integral of the previous density times the tails.
 */
static double cross_next(const struct grid *g, double r, double s, double c)
{
	double p = 0;

	for (size_t i = 0; i < g->n; i++) {
		double m = r * (g->lo + i * g->h);

		p += g->f[i] * (gsl_cdf_ugaussian_Q((c - m) / s) +
				gsl_cdf_ugaussian_P((-c - m) / s));
	}
	return p;
}

/* The density of Z_k on (-c, c) from that of Z_{k-1} (next != prev). */
static void grid_next(const struct grid *prev, struct grid *next, double r,
		      double s, double c, double hmax)
{
	next->n = grid_points(c, hmax);
	next->lo = -c;
	next->h = 2 * c / (next->n - 1);
	for (size_t j = 0; j < next->n; j++) {
		double z = next->lo + j * next->h, d = 0;

		for (size_t i = 0; i < prev->n; i++) {
			double m = r * (prev->lo + i * prev->h);

			d += prev->f[i] * gsl_ran_gaussian_pdf(z - m, s);
		}
		next->f[j] = d * simpson(j, next->n, next->h);
	}
}

/* Look-to-look r and s, and a grid spacing fine enough for every s. */
struct looks {
	const double *t;
	size_t k;
	double hmax;
};

static void looks_init(struct looks *l, const double *t, size_t k)
{
	l->t = t;
	l->k = k;
	l->hmax = GRID_H;
	for (size_t i = 1; i < k; i++) {
		double s = sqrt(1 - t[i - 1] / t[i]);

		if (s / GRID_PER_SD < l->hmax)
			l->hmax = s / GRID_PER_SD;
	}
}

static double look_r(const struct looks *l, size_t i)
{
	return sqrt(l->t[i - 1] / l->t[i]);
}

static double look_s(const struct looks *l, size_t i)
{
	return sqrt(1 - l->t[i - 1] / l->t[i]);
}

/*
 * Crossing probability of bounds z[0..k-1] at each look (cross[i]) and
 * in all; two grids, swapped look to look.
 */
static double crossing(const struct looks *l, const double *z, double *cross)
{
	struct grid *g = stats_alloc(2 * sizeof(*g));
	double total, c;

	grid_first(&g[0], z[0], l->hmax);
	total = c = 2 * gsl_cdf_ugaussian_Q(z[0]);
	if (cross)
		cross[0] = c;
	for (size_t i = 1; i < l->k; i++) {
		struct grid *prev = &g[(i - 1) % 2], *next = &g[i % 2];

		c = cross_next(prev, look_r(l, i), look_s(l, i), z[i]);
		if (cross)
			cross[i] = c;
		total += c;
		if (i + 1 < l->k)
			grid_next(prev, next, look_r(l, i), look_s(l, i), z[i],
				  l->hmax);
	}
	free(g);
	return total;
}

static bool looks_ok(const double *t, size_t k)
{
	if (!k || !(t[0] > 0) || !(t[k - 1] <= 1))
		return false;
	for (size_t i = 1; i < k; i++)
		if (!(t[i] > t[i - 1]))
			return false;
	return true;
}

double stats_gs_crossing(const double *t, const double *z, size_t k)
{
	struct looks l;

	stats_init();
	if (!looks_ok(t, k))
		return NAN;
	for (size_t i = 0; i < k; i++)
		if (!(z[i] > 0) || isinf(z[i]))
			return NAN;
	looks_init(&l, t, k);
	return crossing(&l, z, NULL);
}

/* Classic designs: the z of look i for the constant C. */
struct classic {
	struct looks l;
	bool obf;
	double alpha;
	double *z;
};

static void classic_bounds(struct classic *c, double C)
{
	for (size_t i = 0; i < c->l.k; i++)
		c->z[i] = c->obf ? C / sqrt(c->l.t[i] / c->l.t[c->l.k - 1]) : C;
}

static double classic_gap(double C, void *arg)
{
	struct classic *c = arg;

	classic_bounds(c, C);
	return crossing(&c->l, c->z, NULL) - c->alpha;
}

static int classic(const double *t, size_t k, bool obf, double alpha, double *z)
{
	struct classic c = { .obf = obf, .alpha = alpha, .z = z };
	gsl_function f = { classic_gap, &c };
	double lo = gsl_cdf_ugaussian_Qinv(alpha / 2), C;

	if (k == 1) {
		/* One look is the plain test. */
		z[0] = lo;
		return 0;
	}
	looks_init(&c.l, t, k);
	/* One look crosses alpha at lo; more looks need a larger C. */
	C = stats_solve(&f, lo * (obf ? 0.5 : 1), lo + 4, 1e-10);
	if (isnan(C))
		return -1;
	classic_bounds(&c, C);
	return 0;
}

/*
 * The share of two-sided alpha spent by information fraction t. The
 * O'Brien-Fleming-like function spends alpha / 2 on each side by Lan &
 * DeMets' one-sided 2 - 2 Phi(z_{1 - alpha/4} / sqrt(t)), as rpact's
 * "asOF" and gsDesign's sfLDOF do for a symmetric two-sided design.
 */
static double spent(enum stats_gs_design d, double t, double alpha)
{
	if (t >= 1)
		return alpha;
	if (d == STATS_GS_SPEND_POCOCK)
		return alpha * log(1 + (M_E - 1) * t);
	return 4 *
	       gsl_cdf_ugaussian_Q(gsl_cdf_ugaussian_Qinv(alpha / 4) / sqrt(t));
}

struct spend {
	const struct grid *g;
	double r, s, target;
};

static double spend_gap(double c, void *arg)
{
	const struct spend *sp = arg;

	return cross_next(sp->g, sp->r, sp->s, c) - sp->target;
}

/* Each look's bound spends what the function allows since the last. */
static int spending(const double *t, size_t k, enum stats_gs_design d,
		    double alpha, double *z)
{
	struct grid *g = stats_alloc(2 * sizeof(*g));
	struct spend sp = { 0 };
	gsl_function f = { spend_gap, &sp };
	struct looks l;
	int ret = -1;

	looks_init(&l, t, k);
	z[0] = fmin(gsl_cdf_ugaussian_Qinv(spent(d, t[0], alpha) / 2), Z_NEVER);
	grid_first(&g[0], z[0], l.hmax);
	for (size_t i = 1; i < k; i++) {
		sp.g = &g[(i - 1) % 2];
		sp.r = look_r(&l, i);
		sp.s = look_s(&l, i);
		sp.target = spent(d, t[i], alpha) - spent(d, t[i - 1], alpha);
		/* Crossing falls from ~1 at c = 0 to ~0 at Z_NEVER. */
		z[i] = spend_gap(Z_NEVER, &sp) >= 0 ?
			       Z_NEVER :
			       stats_solve(&f, 0, Z_NEVER, 1e-10);
		if (isnan(z[i]))
			goto out;
		if (i + 1 < k)
			grid_next(sp.g, &g[i % 2], sp.r, sp.s, z[i], l.hmax);
	}
	ret = 0;
out:
	free(g);
	return ret;
}

int stats_gs_bounds(enum stats_gs_design d, const double *t, size_t k,
		    double alpha, double *z, double *p)
{
	int ret;

	stats_init();
	if (!looks_ok(t, k) || !(alpha > 0 && alpha < 1))
		return -1;
	if (d == STATS_GS_POCOCK || d == STATS_GS_OBF)
		ret = classic(t, k, d == STATS_GS_OBF, alpha, z);
	else if (d == STATS_GS_SPEND_OBF || d == STATS_GS_SPEND_POCOCK)
		ret = spending(t, k, d, alpha, z);
	else
		return -1;
	for (size_t i = 0; p && i < k; i++)
		p[i] = ret ? NAN : 2 * gsl_cdf_ugaussian_Q(z[i]);
	return ret;
}
