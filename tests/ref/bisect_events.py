#!/usr/bin/python3
"""The odds of an event bisection: how often wblab bisect, bisecting a crash
that comes in a fraction p of the boots of the commits that carry it, names
that commit, names the next one, leaves it skipped, or cannot confirm the
ends at all. The e2e's night 9 (tests/jobs/e2e-nightly.sh) is this case:
good end 4465b64a19f2 (no crash), then x1 (no crash), x2 (the crash, armed in
p = 7/8 of the boots), x3 = the bad end; matrix reps 3, --max-reps 8 (looks
at 3, 5, 7, 9 cells a side).

The procedure, as src/jobs/bisect-measure.c has it:
 - the ends: 3 cells each, then 2 more while unknown, up to 9; `different`
   when Fisher's p (one-sided with --one-sided, else two-sided) is below the
   look's level: Lan-DeMets Pocock-type spending of 0.05 over the looks
   3, 5, 7, 9 (R, rpact: getDesignGroupSequential(typeOfDesign = "asP"));
 - a step: the ends' n cells, then 2 more while unknown, up to 9, at the
   levels of the looks ne, ne + 2, ..., 9 (ne: the ends' n), at the smaller
   side's n; with --ends-grow the ends get the same repetitions (grow_ends()),
   without it they stay at ne;
 - a step is bad when it has the crash more often than good (`different`),
   good when it is `same` as good, else bad when `same` as bad, else good when
   bad has it more often (`different`); `same` for a rate: the 80%-power
   smallest detectable rise (two-sided Fisher, p <= level) within the
   threshold, half the ends' effect in points.
Fisher's p from SciPy (scipy.stats.fisher_exact), the levels from R (rpact).

  tests/ref/bisect_events.py                    # before and after the fix
  tests/ref/bisect_events.py --p 0.75 --max 11  # another rate, more looks
"""
import argparse
import functools
import subprocess

from scipy import stats


def levels(first, last):
    """Pocock-type spending levels of the looks first, first + 2, .., last."""
    looks = list(range(first, last + 1, 2))
    if len(looks) == 1:
        return {first: 0.05}
    r = ('library(rpact); d <- getDesignGroupSequential(kMax = %d, '
         'alpha = 0.05, sided = 2, typeOfDesign = "asP", '
         'informationRates = c(%s) / %d); '
         'cat(2 * (1 - pnorm(d$criticalValues)), sep = "\\n")' %
         (len(looks), ','.join(map(str, looks)), last))
    out = subprocess.run(['Rscript', '-e', r], capture_output=True,
                         text=True, check=True).stdout.split()
    return dict(zip(looks, map(float, out)))


@functools.lru_cache(maxsize=None)
def level(first, last, n):
    lv = levels(first, last)
    return lv[max(k for k in lv if k <= n)] if n >= first else lv[first]


@functools.lru_cache(maxsize=None)
def fisher(fa, na, fb, nb, greater):
    """p that b (fb of nb) has the event more often than a, or two-sided."""
    t = [[fb, nb - fb], [fa, na - fa]]
    if greater:
        return stats.fisher_exact(t, alternative='greater')[1]
    return stats.fisher_exact(t)[1]


def binom(n, k, p):
    return stats.binom.pmf(k, n, p)


@functools.lru_cache(maxsize=None)
def power(pa, na, pb, nb, alpha):
    return sum(binom(na, x, pa) * binom(nb, y, pb)
               for x in range(na + 1) for y in range(nb + 1)
               if fisher(x, na, y, nb, False) <= alpha)


@functools.lru_cache(maxsize=None)
def mde(pa, na, nb, alpha):
    """The rate b would need for 80% power (stats_mde_fisher), or None."""
    if pa >= 1 or power(pa, na, 1.0, nb, alpha) < 0.8:
        return None
    lo, hi = pa, 1.0
    while hi - lo > 1e-4:
        mid = (lo + hi) / 2
        if power(pa, na, mid, nb, alpha) >= 0.8:
            hi = mid
        else:
            lo = mid
    return hi


def verdict(fa, na, fb, nb, alpha, thr, greater):
    """'different', 'same' or 'unknown' (verdict_rate())."""
    if fisher(fa, na, fb, nb, greater) < alpha:
        return 'different'
    pb = mde(fa / na, na, nb, alpha)
    if pb is not None and 100 * (pb - fa / na) <= thr:
        return 'same'
    return 'unknown'


def classify(k, n, ne, fb, nb, first, a):
    """bad, good or None: the step's k of n against good 0:ne, bad fb:nb."""
    alpha = level(first, a.last, min(n, ne))
    thr = 100 * fb / nb / 2
    dg = verdict(0, ne, k, n, alpha, thr, a.one_sided)
    if dg == 'different' and k / n > 0:
        return 'bad'
    if dg == 'same':
        return 'good'
    db = verdict(k, n, fb, nb, alpha, thr, a.one_sided)
    if db == 'same':
        return 'bad'
    if db == 'different' and fb / nb > k / n:
        return 'good'
    return None


def step(ne, fb, a):
    """P(bad), P(good), P(skip) of the crash commit, the ends at 0:ne, fb:ne."""
    out = {'bad': 0.0, 'good': 0.0, None: 0.0}
    cur = {(k, fb): binom(ne, k, a.p) for k in range(ne + 1)}
    n = ne
    while True:
        nxt = {}
        m = n if a.ends_grow else ne
        for (k, f), pr in cur.items():
            c = classify(k, n, m, f, m, ne, a)
            if c or n >= a.last:
                out[c] += pr
                continue
            for j in range(3):
                for i in range(3 if a.ends_grow else 1):
                    key = (k + j, f + i)
                    q = binom(2, j, a.p) * (binom(2, i, a.p)
                                            if a.ends_grow else 1)
                    nxt[key] = nxt.get(key, 0) + pr * q
        if n >= a.last:
            return out
        cur, n = nxt, n + 2


def odds(a):
    res = {'named': 0.0, 'next': 0.0, 'skip': 0.0, 'ends': 0.0}
    cur = {k: binom(a.reps, k, a.p) for k in range(a.reps + 1)}
    n = a.reps
    while True:
        nxt = {}
        for k, pr in cur.items():
            alpha = level(a.reps, a.last, n)
            if fisher(0, n, k, n, a.one_sided) < alpha and k > 0:
                s = step(n, k, a)
                res['named'] += pr * s['bad']
                res['next'] += pr * s['good']
                res['skip'] += pr * s[None]
            elif n >= a.last:
                res['ends'] += pr
            else:
                for j in range(3):
                    nxt[k + j] = nxt.get(k + j, 0) + pr * binom(2, j, a.p)
        if n >= a.last:
            return res
        cur, n = nxt, n + 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--p', type=float, default=7 / 8)
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--max', type=int, default=8, help='--max-reps')
    a = ap.parse_args()
    a.last = a.reps
    while a.last < a.max:
        a.last += 2
    for a.one_sided, a.ends_grow, what in (
            (False, False, 'two-sided Fisher, the ends stay (before)'),
            (True, False, 'one-sided Fisher, the ends stay'),
            (True, True, 'one-sided Fisher, the ends grow with a step '
             '(wblab now)')):
        r = odds(a)
        print('p=%.4g, looks %d..%d, %s:\n  crash commit named %.5f, the '
              'next one named %.5f, skipped %.5f, ends not confirmed %.5f'
              % (a.p, a.reps, a.last, what, r['named'], r['next'],
                 r['skip'], r['ends']))


if __name__ == '__main__':
    main()
