// SPDX-License-Identifier: GPL-2.0
/*
 * Descriptive statistics, Welch's t-test, mmtests' band rule, Fisher's
 * exact test and the power/smallest-detectable-effect calculations that
 * go with them. GSL supplies the distributions, the quantiles, the
 * integration and the root finding; this file only wires them up.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats-int.h"

/* GSL's default handler aborts; every caller here checks return codes. */
void stats_init(void)
{
	static bool done;

	if (!done) {
		gsl_set_error_handler_off();
		done = true;
	}
}

void *stats_alloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		abort();
	return p;
}

double *stats_drop_nan(const double *x, size_t n, size_t *m)
{
	double *s = stats_alloc(n * sizeof(*s));

	*m = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			s[(*m)++] = x[i];
	return s;
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = stats_alloc(n * sizeof(*s));

	memcpy(s, x, n * sizeof(*s));
	gsl_sort(s, 1, n);
	return s;
}

/* Harmonic (inv) or geometric mean; NAN unless every value is > 0. */
static double positive_mean(const double *x, size_t n, bool harmonic)
{
	double acc = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0))
			return NAN;
		acc += harmonic ? 1 / x[i] : log(x[i]);
	}
	return harmonic ? n / acc : exp(acc / n);
}

int stats_describe(const double *x, size_t n, struct stats_desc *d)
{
	double *s;

	memset(d, 0, sizeof(*d));
	if (!n)
		return -1;
	s = sorted_copy(x, n);
	d->n = n;
	d->amean = gsl_stats_mean(s, 1, n);
	d->hmean = positive_mean(s, n, true);
	d->gmean = positive_mean(s, n, false);
	d->min = s[0];
	d->max = s[n - 1];
	d->stddev = n > 1 ? gsl_stats_sd_m(s, 1, n, d->amean) : 0;
	d->coeffvar = d->amean != 0 ? 100 * d->stddev / fabs(d->amean) : NAN;
	d->median = gsl_stats_median_from_sorted_data(s, 1, n);
	free(s);
	return 0;
}

double stats_quantile(const double *x, size_t n, double q)
{
	double *s, v;

	if (!n || q < 0 || q > 1)
		return NAN;
	s = sorted_copy(x, n);
	v = gsl_stats_quantile_from_sorted_data(s, 1, n, q);
	free(s);
	return v;
}

void stats_test_invalid(struct stats_test *t, const char *why)
{
	memset(t, 0, sizeof(*t));
	t->why = why;
	t->stat = t->df = t->p = t->diff = t->ratio = t->p_min = NAN;
}

/* Welch-Satterthwaite degrees of freedom from the per-side s^2/n. */
static double welch_df(double va_n, double na, double vb_n, double nb)
{
	double num = (va_n + vb_n) * (va_n + vb_n);
	double den = va_n * va_n / (na - 1) + vb_n * vb_n / (nb - 1);

	return den > 0 ? num / den : na + nb - 2;
}

/* Welch's t on a and b, which hold no NaN. */
static void welch(const double *a, size_t na, const double *b, size_t nb,
		  struct stats_test *t)
{
	double ma, mb, va_n, vb_n, se;

	stats_init();
	if (na < 2 || nb < 2) {
		stats_test_invalid(t, "fewer than 2 values on a side");
		return;
	}
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	va_n = gsl_stats_variance_m(a, 1, na, ma) / na;
	vb_n = gsl_stats_variance_m(b, 1, nb, mb) / nb;
	se = sqrt(va_n + vb_n);
	memset(t, 0, sizeof(*t));
	t->valid = true;
	t->na = na;
	t->nb = nb;
	t->diff = mb - ma;
	t->ratio = NAN;
	t->df = welch_df(va_n, na, vb_n, nb);
	if (se == 0) {
		/* No noise on either side: a difference is certain. */
		t->stat = ma == mb ? 0 : copysign(INFINITY, mb - ma);
		t->p = ma == mb ? 1 : 0;
		return;
	}
	t->stat = (mb - ma) / se;
	t->p = 2 * gsl_cdf_tdist_Q(fabs(t->stat), t->df);
	if (t->p > 1)
		t->p = 1;
}

void stats_welch(const double *a, size_t na, const double *b, size_t nb,
		 struct stats_test *t)
{
	size_t ma, mb;
	double *xa = stats_drop_nan(a, na, &ma);
	double *xb = stats_drop_nan(b, nb, &mb);

	welch(xa, ma, xb, mb, t);
	free(xa);
	free(xb);
}

/* log1p of x[0..n-1] in place; false if a value is <= -1. */
static bool log1p_all(double *x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > -1))
			return false;
		x[i] = log1p(x[i]);
	}
	return true;
}

void stats_welch_log1p(const double *a, size_t na, const double *b, size_t nb,
		       struct stats_test *t)
{
	size_t ma, mb;
	double *xa = stats_drop_nan(a, na, &ma);
	double *xb = stats_drop_nan(b, nb, &mb);
	double diff = NAN;

	if (ma && mb)
		diff = gsl_stats_mean(xb, 1, mb) - gsl_stats_mean(xa, 1, ma);
	if (!log1p_all(xa, ma) || !log1p_all(xb, mb)) {
		stats_test_invalid(t, "a value <= -1 has no log(1 + x)");
		goto out;
	}
	welch(xa, ma, xb, mb, t);
	if (!t->valid)
		goto out;
	t->ratio = exp(t->diff);
	t->diff = diff;
out:
	free(xa);
	free(xb);
}

/* Welch's standard error of mean(b) - mean(a); no NaN in a or b. */
static double welch_se(const double *a, size_t na, const double *b, size_t nb)
{
	return sqrt(gsl_stats_variance(a, 1, na) / na +
		    gsl_stats_variance(b, 1, nb) / nb);
}

/* One-sided p that the true difference is > shift (upper) or < shift. */
static double shifted_p(double diff, double se, double df, double shift,
			bool upper, double *stat)
{
	if (se == 0) {
		/* No noise: the difference is known exactly. */
		*stat = diff == shift ? 0 : copysign(INFINITY, diff - shift);
		return (upper ? diff > shift : diff < shift) ? 0 : 1;
	}
	*stat = (diff - shift) / se;
	return upper ? gsl_cdf_tdist_Q(*stat, df) : gsl_cdf_tdist_P(*stat, df);
}

static void tost(const double *a, size_t na, const double *b, size_t nb,
		 double margin, double pct, struct stats_test *t)
{
	size_t ma, mb;
	double *xa = stats_drop_nan(a, na, &ma);
	double *xb = stats_drop_nan(b, nb, &mb);
	double se, p_lo, p_hi, t_lo, t_hi;

	welch(xa, ma, xb, mb, t);
	if (!t->valid)
		goto out;
	se = welch_se(xa, ma, xb, mb);
	if (!isnan(pct))
		margin = pct / 100 * fabs(gsl_stats_mean(xa, 1, ma));
	if (!(margin > 0) || isinf(margin)) {
		stats_test_invalid(t, isnan(pct) ? "the margin is not > 0" :
						   "the base mean is 0: no "
						   "relative margin");
		goto out;
	}
	p_lo = shifted_p(t->diff, se, t->df, -margin, true, &t_lo);
	p_hi = shifted_p(t->diff, se, t->df, margin, false, &t_hi);
	t->p = fmax(p_lo, p_hi);
	t->stat = p_lo >= p_hi ? t_lo : t_hi;
out:
	free(xa);
	free(xb);
}

void stats_welch_beyond(const double *a, size_t na, const double *b, size_t nb,
			double margin, double *p_up, double *p_down)
{
	size_t ma, mb;
	double *xa = stats_drop_nan(a, na, &ma);
	double *xb = stats_drop_nan(b, nb, &mb);
	struct stats_test t;
	double se, stat;

	*p_up = *p_down = NAN;
	welch(xa, ma, xb, mb, &t);
	if (t.valid && margin >= 0) {
		se = welch_se(xa, ma, xb, mb);
		*p_up = shifted_p(t.diff, se, t.df, margin, true, &stat);
		*p_down = shifted_p(t.diff, se, t.df, -margin, false, &stat);
	}
	free(xa);
	free(xb);
}

void stats_tost(const double *a, size_t na, const double *b, size_t nb,
		double margin, struct stats_test *t)
{
	tost(a, na, b, nb, margin, NAN, t);
}

void stats_tost_rel(const double *a, size_t na, const double *b, size_t nb,
		    double pct, struct stats_test *t)
{
	if (isnan(pct)) {
		stats_test_invalid(t, "the margin is not > 0");
		return;
	}
	tost(a, na, b, nb, NAN, pct, t);
}

bool stats_bands_apart(double mean_a, double sd_a, double mean_b, double sd_b,
		       double z)
{
	return fabs(mean_b - mean_a) > z * (fabs(sd_a) + fabs(sd_b));
}

double stats_fisher_2x2(unsigned a_fail, unsigned a_runs, unsigned b_fail,
			unsigned b_runs)
{
	unsigned fails = a_fail + b_fail, lo, hi;
	double p_obs, p = 0;

	if (a_fail > a_runs || b_fail > b_runs || !a_runs || !b_runs)
		return NAN;
	/* a_fail ~ hypergeometric: fails drawn from a_runs + b_runs. */
	lo = fails > b_runs ? fails - b_runs : 0;
	hi = fails < a_runs ? fails : a_runs;
	p_obs = gsl_ran_hypergeometric_pdf(a_fail, a_runs, b_runs, fails);
	for (unsigned x = lo; x <= hi; x++) {
		double px =
			gsl_ran_hypergeometric_pdf(x, a_runs, b_runs, fails);

		/* R's fisher.test: the same relative tolerance, 1e-7. */
		if (px <= p_obs * (1 + 1e-7))
			p += px;
	}
	return p > 1 ? 1 : p;
}

double stats_fisher_greater(unsigned a_fail, unsigned a_runs, unsigned b_fail,
			    unsigned b_runs)
{
	unsigned fails = a_fail + b_fail;
	unsigned hi = fails < b_runs ? fails : b_runs;
	double p = 0;

	if (a_fail > a_runs || b_fail > b_runs || !a_runs || !b_runs)
		return NAN;
	/* b's failures ~ hypergeometric: fails drawn from b_runs + a_runs. */
	for (unsigned x = b_fail; x <= hi; x++)
		p += gsl_ran_hypergeometric_pdf(x, b_runs, a_runs, fails);
	return p > 1 ? 1 : p;
}

double stats_binom_upper(unsigned fail, unsigned runs, double alpha)
{
	if (!runs || fail > runs)
		return NAN;
	if (fail == runs)
		return 1;
	/* P(X <= fail | p) = I_{1-p}(runs - fail, fail + 1) = alpha. */
	return gsl_cdf_beta_Qinv(alpha, fail + 1, runs - fail);
}

double stats_binom_lower(unsigned fail, unsigned runs, double alpha)
{
	if (!runs || fail > runs)
		return NAN;
	if (!fail)
		return 0;
	/* P(X >= fail | p) = I_p(fail, runs - fail + 1) = alpha. */
	return gsl_cdf_beta_Pinv(alpha, fail, runs - fail + 1);
}

double stats_rate_rise_bound(unsigned a_fail, unsigned a_runs, unsigned b_fail,
			     unsigned b_runs, double alpha)
{
	double r;

	if (!a_fail)
		r = stats_binom_upper(b_fail, b_runs, alpha) -
		    (a_runs && !(a_fail > a_runs) ? 0 : NAN);
	else
		r = stats_binom_upper(b_fail, b_runs, alpha / 2) -
		    stats_binom_lower(a_fail, a_runs, alpha / 2);
	return r < 0 ? 0 : r;
}

/*
 * Noncentral t: P(T > t) with df and noncentrality ncp, as the integral
 * over V ~ chi2(df) of P(Z > t * sqrt(V / df) - ncp). upper = false gives
 * P(T < t) instead. GSL has no noncentral t; its chi-square density,
 * normal tails and adaptive integration make one.
 */
struct nct {
	double t, df, ncp;
	bool upper;
};

static double nct_integrand(double v, void *arg)
{
	const struct nct *c = arg;
	double z = c->t * sqrt(v / c->df) - c->ncp;

	return (c->upper ? gsl_cdf_ugaussian_Q(z) : gsl_cdf_ugaussian_P(z)) *
	       gsl_ran_chisq_pdf(v, c->df);
}

static double nct_tail(double t, double df, double ncp, bool upper)
{
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(256);
	struct nct c = { t, df, ncp, upper };
	gsl_function f = { nct_integrand, &c };
	double r = NAN, err;

	if (!w)
		abort();
	if (gsl_integration_qagiu(&f, 0, 1e-12, 1e-9, 256, w, &r, &err))
		r = NAN;
	gsl_integration_workspace_free(w);
	return r;
}

/* Power of the two-sided test with critical value tcrit. */
static double power_at(double delta, double se, double df, double alpha)
{
	double tcrit = gsl_cdf_tdist_Qinv(alpha / 2, df);
	double ncp = delta / se;

	return nct_tail(tcrit, df, ncp, true) +
	       nct_tail(-tcrit, df, ncp, false);
}

static int t_design(double sd_a, size_t na, double sd_b, size_t nb, double *se,
		    double *df)
{
	double va_n, vb_n;

	if (na < 2 || nb < 2)
		return -1;
	va_n = sd_a * sd_a / na;
	vb_n = sd_b * sd_b / nb;
	*se = sqrt(va_n + vb_n);
	*df = welch_df(va_n, na, vb_n, nb);
	return 0;
}

double stats_power_t(double delta, double sd_a, size_t na, double sd_b,
		     size_t nb, double alpha)
{
	double se, df;

	stats_init();
	if (t_design(sd_a, na, sd_b, nb, &se, &df))
		return NAN;
	if (se == 0)
		return delta != 0 ? 1 : alpha;
	return power_at(fabs(delta), se, df, alpha);
}

struct mde_t {
	double se, df, alpha, power;
};

static double mde_t_gap(double delta, void *arg)
{
	const struct mde_t *m = arg;

	return power_at(delta, m->se, m->df, m->alpha) - m->power;
}

double stats_solve(gsl_function *f, double lo, double hi, double tol)
{
	gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	double r = NAN;

	if (!s)
		abort();
	if (gsl_root_fsolver_set(s, f, lo, hi))
		goto out;
	for (int i = 0; i < 200; i++) {
		if (gsl_root_fsolver_iterate(s))
			break;
		r = gsl_root_fsolver_root(s);
		lo = gsl_root_fsolver_x_lower(s);
		hi = gsl_root_fsolver_x_upper(s);
		if (gsl_root_test_interval(lo, hi, 0, tol) == GSL_SUCCESS)
			break;
	}
out:
	gsl_root_fsolver_free(s);
	return r;
}

/* The delta a t-test with this se and df sees with m->power. */
static double mde_search(struct mde_t *m)
{
	gsl_function f = { mde_t_gap, m };
	double hi;

	if (m->se == 0)
		return 0;
	if (m->power <= m->alpha || m->power >= 1)
		return NAN;
	/* Power grows with delta; widen until it passes the target. */
	hi = m->se;
	while (mde_t_gap(hi, m) < 0) {
		hi *= 2;
		if (hi > 1e6 * m->se)
			return NAN;
	}
	return stats_solve(&f, 0, hi, 1e-9);
}

double stats_mde_t(double sd_a, size_t na, double sd_b, size_t nb, double alpha,
		   double power)
{
	struct mde_t m = { .alpha = alpha, .power = power };

	stats_init();
	if (t_design(sd_a, na, sd_b, nb, &m.se, &m.df))
		return NAN;
	return mde_search(&m);
}

double stats_mde_abs(double sd_a, size_t na, double sd_b, size_t nb,
		     double alpha, double power)
{
	struct mde_t m = { .alpha = alpha, .power = power };
	double pooled;

	stats_init();
	if (na < 2 || nb < 2)
		return NAN;
	pooled = ((na - 1) * sd_a * sd_a + (nb - 1) * sd_b * sd_b) /
		 (na + nb - 2);
	m.se = sqrt(pooled * (1.0 / na + 1.0 / nb));
	m.df = na + nb - 2;
	return mde_search(&m);
}

double stats_power_fisher(double pa, unsigned na, double pb, unsigned nb,
			  double alpha)
{
	double power = 0;

	if (!na || !nb || pa < 0 || pa > 1 || pb < 0 || pb > 1)
		return NAN;
	for (unsigned x = 0; x <= na; x++) {
		double px = gsl_ran_binomial_pdf(x, pa, na);

		if (px == 0)
			continue;
		for (unsigned y = 0; y <= nb; y++)
			if (stats_fisher_2x2(x, na, y, nb) <= alpha)
				power += px * gsl_ran_binomial_pdf(y, pb, nb);
	}
	return power;
}

double stats_mde_fisher(double pa, unsigned na, unsigned nb, double alpha,
			double power)
{
	double lo = pa, hi = 1;

	if (!na || !nb || pa < 0 || pa >= 1)
		return NAN;
	if (stats_power_fisher(pa, na, 1, nb, alpha) < power)
		return NAN;
	/* The power rises with pb above pa: bisect to 1e-4. */
	while (hi - lo > 1e-4) {
		double mid = (lo + hi) / 2;

		if (stats_power_fisher(pa, na, mid, nb, alpha) >= power)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

struct rank_item {
	double v;
	size_t i;
};

static int cmp_rank_item(const void *a, const void *b)
{
	const struct rank_item *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

/* r[i] = the rank of x[i] (1-based), ties averaged. */
static void ranks(const double *x, size_t n, double *r)
{
	struct rank_item *t = stats_alloc(n * sizeof(*t));

	for (size_t i = 0; i < n; i++)
		t[i] = (struct rank_item){ x[i], i };
	qsort(t, n, sizeof(*t), cmp_rank_item);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && t[j].v == t[i].v; j++)
			;
		/* ranks i+1 .. j share their mean */
		for (size_t k = i; k < j; k++)
			r[t[k].i] = (i + 1 + j) / 2.0;
	}
	free(t);
}

double stats_spearman(const double *x, const double *y, size_t n)
{
	double *rx, *ry, mean = (n + 1) / 2.0, sxy = 0, sxx = 0, syy = 0;

	if (n < 2)
		return NAN;
	rx = stats_alloc(n * sizeof(*rx));
	ry = stats_alloc(n * sizeof(*ry));
	ranks(x, n, rx);
	ranks(y, n, ry);
	for (size_t i = 0; i < n; i++) {
		sxy += (rx[i] - mean) * (ry[i] - mean);
		sxx += (rx[i] - mean) * (rx[i] - mean);
		syy += (ry[i] - mean) * (ry[i] - mean);
	}
	free(rx);
	free(ry);
	if (sxx == 0 || syy == 0)
		return NAN;
	return sxy / sqrt(sxx * syy);
}
