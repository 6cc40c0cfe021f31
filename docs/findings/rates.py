#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The deadlock rates of docs/findings/swap-iscsi-deadlock.txt with 95 %
intervals, computed with SciPy and checked against R.

Run from the top of the checkout:  /usr/bin/python3 docs/findings/rates.py
(SciPy 1.10.1 and R 4.2.2 on Debian 12 when the report's figures were
pasted). Each arm is (name, deadlocked, cells). The Clopper-Pearson
interval is SciPy's binomtest(...).proportion_ci(method="exact"), the
Wilson interval method="wilson"; R's binom.test() gives the same exact
interval and prop.test(correct=FALSE) the same Wilson one, and the
script stops if any bound differs by more than 1e-9. Fisher's exact test
(two-sided) compares each arm with the first, as R's fisher.test.
"""
import subprocess
import sys

from scipy import stats

ARMS = [(a[0], int(a[1]), int(a[2])) for a in
        (x.split(':') for x in sys.argv[1:])] or [
    # name, stuck, cells: the report's table (counted by hand from the
    # runs it names; a retried attempt is a cell)
    ('debian-6.12, md RAID1 over iSCSI', 6, 31),
    ('debian-6.12, the same, with the trace replay', 7, 31),
    ('debian-6.1, md RAID1 over iSCSI, all', 19, 46),
    ('debian-6.1, 2026-12-05 08:33, stale agent', 5, 17),
    ('debian-6.1, 2026-12-05 09:26, c3440c2 watcher', 14, 20),
    ('debian-6.1, the same, stall events only', 13, 20),
    ('debian-6.12, lru_gen off', 6, 16),
    ('debian-6.12, lru_gen off, stall events only', 4, 16),
    ('debian-6.12, lru_gen off, with the trace replay', 8, 16),
    ('debian-6.12, min_free_kbytes 4 x', 1, 12),
    ('debian-6.12, md RAID1 of virtio disks', 0, 13),
    ('debian-6.12, one iSCSI LUN, no md', 1, 6),
    ('6.12 (lab), lru_gen off', 0, 8),
    ('6.12-refill-noio (lab), lru_gen off', 0, 9),
]


def r_intervals(k, n):
    """R's exact (binom.test) and Wilson (prop.test) intervals."""
    expr = ('b <- binom.test(%d, %d)$conf.int; '
            'w <- prop.test(%d, %d, correct = FALSE)$conf.int; '
            'cat(sprintf("%%.12f", c(b, w)))' % (k, n, k, n))
    out = subprocess.run(['Rscript', '-e', expr], check=True,
                         capture_output=True, text=True).stdout
    return [float(v) for v in out.split()]


def r_fisher(a, b):
    expr = ('cat(sprintf("%%.12f", fisher.test(matrix(c(%d, %d, %d, %d), '
            'nrow = 2))$p.value))' % (a[1], a[2] - a[1], b[1], b[2] - b[1]))
    return float(subprocess.run(['Rscript', '-e', expr], check=True,
                                capture_output=True, text=True).stdout)


base = ARMS[0]
print('%-44s %3s %3s %6s  %-17s %-17s %s' %
      ('arm', 'k', 'n', 'rate', 'Clopper-Pearson', 'Wilson', 'Fisher p vs first'))
for name, k, n in ARMS:
    t = stats.binomtest(k, n)
    cp = t.proportion_ci(confidence_level=0.95, method='exact')
    wi = t.proportion_ci(confidence_level=0.95, method='wilson')
    ours = [cp.low, cp.high, wi.low, wi.high]
    ref = r_intervals(k, n)
    if any(abs(x - y) > 1e-9 for x, y in zip(ours, ref)):
        sys.exit('%s: SciPy %s against R %s' % (name, ours, ref))
    p = ''
    if (name, k, n) != base:
        sp = stats.fisher_exact([[base[1], base[2] - base[1]], [k, n - k]])[1]
        rp = r_fisher(base, (name, k, n))
        if abs(sp - rp) > 1e-9:
            sys.exit('%s: Fisher SciPy %g against R %g' % (name, sp, rp))
        p = '%.3f' % sp
    print('%-44s %3d %3d %5.1f%%  %5.1f%% - %5.1f%%   %5.1f%% - %5.1f%%   %s' %
          (name, k, n, 100.0 * k / n, 100 * cp.low, 100 * cp.high,
           100 * wi.low, 100 * wi.high, p))
print('SciPy and R agree on every bound (1e-9).')


def power_fix_zero(nb, pb, nf, alpha=0.05):
    """The chance that Fisher's test (two-sided) finds a difference at
    alpha between a base arm of nb cells whose true rate is pb and a fix
    arm of nf cells that never gets stuck (it always shows 0 of nf):
    the sum of the base arm's binomial probabilities over the counts for
    which the table is significant. Exact, no simulation."""
    return sum(stats.binom.pmf(k, nb, pb) for k in range(nb + 1)
               if stats.fisher_exact([[k, nb - k], [0, nf]])[1] <= alpha)


def r_power_fix_zero(nb, pb, nf, alpha=0.05):
    expr = ('s <- 0; for (k in 0:%d) if (fisher.test(matrix(c(k, %d - k, 0, '
            '%d), nrow = 2))$p.value <= %g) s <- s + dbinom(k, %d, %.12f); '
            'cat(sprintf("%%.12f", s))' % (nb, nb, nf, alpha, nb, pb))
    return float(subprocess.run(['Rscript', '-e', expr], check=True,
                                capture_output=True, text=True).stdout)


# Two arms that are not the first row's: (a, stuck, cells, b, stuck, cells).
COMPARE = [] if sys.argv[1:] else [
    ('debian-6.12, lru_gen off', 6, 16, '6.12 (lab), lru_gen off', 0, 8),
    ('debian-6.1, stale agent', 5, 17, 'debian-6.1, c3440c2 watcher', 14,
     20),
]
for an, ak, a_n, bn_, bk_, b_n in COMPARE:
    p = stats.fisher_exact([[ak, a_n - ak], [bk_, b_n - bk_]])[1]
    rp = r_fisher((an, ak, a_n), (bn_, bk_, b_n))
    if abs(p - rp) > 1e-9:
        sys.exit('%s: Fisher SciPy %g against R %g' % (bn_, p, rp))
    print('%s %d/%d against %s %d/%d: Fisher p = %.3f' %
          (bn_, bk_, b_n, an, ak, a_n, p))


# The fix arm against its own base arm, run interleaved in one matrix:
# (base name, stuck, cells, fix name, stuck, cells).
PAIRS = [] if sys.argv[1:] else [
    ('6.12 (lab)', 0, 8, '6.12-refill-noio (lab)', 0, 9),
]
for bname, bk, bn, fname, fk, fn in PAIRS:
    p = stats.fisher_exact([[bk, bn - bk], [fk, fn - fk]])[1]
    rp = r_fisher((bname, bk, bn), (fname, fk, fn))
    if abs(p - rp) > 1e-9:
        sys.exit('%s: Fisher SciPy %g against R %g' % (fname, p, rp))
    print('\n%s %d/%d against %s %d/%d: Fisher p = %.3f' %
          (fname, fk, fn, bname, bk, bn, p))
    for rate, why in ((bk / bn, "the base arm's rate"),
                      (6 / 31, "debian-6.12's rate, 6 of 31"),
                      (6 / 16, "debian-6.12 lru_gen off, 6 of 16")):
        pw = power_fix_zero(bn, rate, fn)
        rpw = r_power_fix_zero(bn, rate, fn)
        if abs(pw - rpw) > 1e-9:
            sys.exit('power: SciPy %g against R %g' % (pw, rpw))
        print('  at %s (%.3f): P(0 of %d | fix does nothing) = %.3f; '
              'power of Fisher at 0.05 if the fix removes every stall: %.3f'
              % (why, rate, fn, (1 - rate) ** fn, pw))
        for n in range(fn, 200):
            if power_fix_zero(n, rate, n) >= 0.8:
                print('    80 %% power needs n = %d cells an arm' % n)
                break

