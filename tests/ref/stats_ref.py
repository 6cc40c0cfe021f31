#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Reference values for tests/test_stats.c, computed with SciPy.

Run from the top of the checkout:  /usr/bin/python3 tests/ref/stats_ref.py
(SciPy 1.10.1, NumPy 1.24.2 on Debian 12 when the values in the test
were pasted). Every number printed here appears in tests/test_stats.c
next to the test that checks it; the real samples are read from the
captured runs in tests/data/report (cells whose outcome is not "ok" are
left out, as the report does).
"""
import glob
import json
import os

import numpy as np
from scipy import stats

DATA = os.path.join(os.path.dirname(__file__), '..', 'data', 'report')


def cells(pattern):
    out = []
    for f in sorted(glob.glob(os.path.join(DATA, pattern, 'cell.json'))):
        c = json.load(open(f))
        if c['outcome'] == 'ok':
            out.append(c)
    return out


def metric(cs, path):
    vals = []
    for c in cs:
        v = c['metrics']
        for k in path.split('.'):
            v = v[int(k)] if isinstance(v, list) else v[k]
        vals.append(float(v))
    return np.array(vals)


AB_A = cells('ab/cells/6.1_*')
AB_B = cells('ab/cells/6.1-direct-writeback_*')
AA_A = cells('aa/20261203-141600-381e/cells/*')
AA_B = cells('aa/20261203-141602-388e/cells/*')

REAL = [
    ('ab vmscan_write_file_direct', AB_A, AB_B, 'vmscan_write_file_direct'),
    ('ab fio.0.write.bw_kib_s', AB_A, AB_B, 'fio.0.write.bw_kib_s'),
    ('aa fio.0.write.bw_kib_s', AA_A, AA_B, 'fio.0.write.bw_kib_s'),
    ('aa psi.memory.some.total_delta_us', AA_A, AA_B,
     'psi.memory.some.total_delta_us'),
]

# Synthetic samples, pasted into the test as they are here.
TIES_A = [1, 2, 2, 3]
TIES_B = [2, 3, 3, 4, 5]
# Above STATS_PERM_EXACT (10): the C code resamples; SciPy gives the exact p.
MC_A = [31, 45, 28, 52, 39, 61, 33, 47, 40, 36, 58]
MC_B = [44, 63, 49, 71, 38, 55, 69, 52, 47, 60, 66, 41]


def absdiff(x, y, axis):
    return np.abs(np.mean(y, axis=axis) - np.mean(x, axis=axis))


def perm(a, b):
    """P(|mean(b) - mean(a)| >= observed) over every split (exact)."""
    r = stats.permutation_test((a, b), absdiff, vectorized=True,
                               permutation_type='independent',
                               alternative='greater', n_resamples=np.inf)
    return r.pvalue


def section(name):
    print('\n== ' + name)


def show(label, *vals):
    print(label + ': ' + ', '.join('%.17g' % v for v in vals))


def main():
    section('stats_perm_test: scipy.stats.permutation_test, '
            "permutation_type='independent', statistic |mean(b) - mean(a)|, "
            "alternative='greater', n_resamples=inf (exact)")
    for name, ca, cb, path in REAL:
        a, b = metric(ca, path), metric(cb, path)
        print('%s a=%s b=%s' % (name, a.tolist(), b.tolist()))
        show('  p', perm(a, b))
    show('ties p', perm(TIES_A, TIES_B))
    show('monte carlo 11 v 12 exact p', perm(MC_A, MC_B))

    section('stats_welch_log1p: scipy.stats.ttest_ind(np.log1p(b), '
            'np.log1p(a), equal_var=False); ratio exp(mean(log1p(b)) - '
            'mean(log1p(a)))')
    for name, ca, cb, path in REAL:
        a, b = metric(ca, path), metric(cb, path)
        r = stats.ttest_ind(np.log1p(b), np.log1p(a), equal_var=False)
        ratio = np.exp(np.mean(np.log1p(b)) - np.mean(np.log1p(a)))
        print(name)
        show('  t, p, ratio, diff', r.statistic, r.pvalue, ratio,
             np.mean(b) - np.mean(a))
        # Welch-Satterthwaite df on the log1p values, as SciPy's.
        la, lb = np.log1p(a), np.log1p(b)
        va, vb = la.var(ddof=1) / len(la), lb.var(ddof=1) / len(lb)
        show('  df', (va + vb) ** 2 / (va ** 2 / (len(la) - 1) +
                                      vb ** 2 / (len(lb) - 1)))

    section("stats_fisher_greater: scipy.stats.fisher_exact([[b_fail, "
            "b_runs - b_fail], [a_fail, a_runs - a_fail]], "
            "alternative='greater')")
    for af, an, bf, bn in [(0, 5, 2, 5), (0, 5, 5, 5), (1, 9, 2, 9),
                           (0, 9, 2, 9), (2, 10, 0, 10), (3, 4, 1, 4),
                           (0, 20, 3, 20), (0, 5, 4, 5), (4, 5, 0, 5),
                           (0, 5, 4, 9), (0, 9, 4, 9)]:
        r = stats.fisher_exact([[bf, bn - bf], [af, an - af]],
                               alternative='greater')
        show('a %d/%d b %d/%d' % (af, an, bf, bn), r[1])

    section('stats_spearman: scipy.stats.spearmanr(x, y).correlation, '
            'ties at their average rank')
    direct = 'vmscan_write_file_direct'
    bw = 'fio.0.write.bw_kib_s'
    show('ab revert: reclaim-wr-direct v fio-write',
         stats.spearmanr(metric(AB_B, direct), metric(AB_B, bw)).correlation)
    both = AB_A + AB_B
    show('ab both (6.1 first, ties at 0): reclaim-wr-direct v fio-write',
         stats.spearmanr(metric(both, direct), metric(both, bw)).correlation)


if __name__ == '__main__':
    main()
