#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Reference values for the change points of tests/test_stats.c and
tests/test_confirm.c
(stats_cpd(), src/stats/stats-cpd.c), computed with NumPy.

Run from the top of the checkout:  /usr/bin/python3 tests/ref/edivisive_ref.py
(NumPy 1.24.2 on Debian 12 when the values in the test were pasted).

E-divisive means (Matteson and James 2014, JASA 109:505) as Apache Otava
runs it (otava/change_point_divisive/calculator.py: for X = Z[start:tau],
Y = Z[tau:kappa], n = |X|, m = |Y|,
    QQ(X, Y) = 2/(m+n) sum |X_i - Y_j|
             - 2m/((m+n)(n-1)) sum_{i<k} |X_i - X_k|
             - 2n/((m+n)(m-1)) sum_{j<k} |Y_j - Y_k|,
maximised over tau and kappa; significance_test.py: the values shuffled
within every current segment, the best QQ of the shuffled series found
again, p = (#(shuffled >= observed) + 1) / (permutations + 1):
the observed split counts as one, Phipson and Smyth 2010). Here QQ is
computed directly from its definition for every (tau, kappa), with no
running sums, so that it checks the C code's incremental sums; the
minimum segment length m0 (n >= m0 and m >= m0) is wblab's addition. The
shuffles use the C code's generator (splitmix64, Fisher-Yates from the
top), so both see the same permutations and the p-values agree exactly.
"""
import glob
import json
import os
import sqlite3

import numpy as np

MASK = (1 << 64) - 1
EPS = 1e-9
DATA = os.path.join(os.path.dirname(__file__), '..', 'data', 'report')


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9e3779b97f4a7c15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
        return z ^ (z >> 31)

    def shuffle(self, x):
        for i in range(len(x), 1, -1):
            j = self.next() % i
            x[i - 1], x[j] = x[j], x[i - 1]


def greater(a, b):
    if np.isinf(b):
        return a > b
    return a > b + EPS * max(1.0, abs(b))


def qq(x, y):
    n, m = len(x), len(y)
    cross = np.abs(x[:, None] - y[None, :]).sum()
    wx = np.triu(np.abs(x[:, None] - x[None, :]), 1).sum()
    wy = np.triu(np.abs(y[:, None] - y[None, :]), 1).sum()
    return (2 / (m + n) * cross - 2 * m / ((m + n) * (n - 1)) * wx -
            2 * n / ((m + n) * (m - 1)) * wy)


def best_split(z, a, b, m0):
    best, where = -np.inf, 0
    for tau in range(a + m0, b - m0 + 1):
        for kappa in range(tau + m0, b + 1):
            q = qq(z[a:tau], z[tau:kappa])
            if greater(q, best):
                best, where = q, tau
    return best, where


def best_over(z, cuts, m0):
    best, where = -np.inf, 0
    for a, b in zip(cuts, cuts[1:]):
        q, t = best_split(z, a, b, m0)
        if greater(q, best):
            best, where = q, t
    return best, where


def edivisive(z, alpha=0.05, permutations=199, m0=3, seed=20140101):
    z = np.asarray(z, dtype=float)
    rng = SplitMix64(seed)
    cuts, found = [0, len(z)], []
    while True:
        q, tau = best_over(z, cuts, m0)
        if not np.isfinite(q):
            break
        extreme = 0
        for _ in range(permutations):
            y = list(z)
            for a, b in zip(cuts, cuts[1:]):
                seg = y[a:b]
                rng.shuffle(seg)
                y[a:b] = seg
            qr, _ = best_over(np.array(y), cuts, m0)
            extreme += not greater(q, qr)
        p = (extreme + 1) / (permutations + 1)
        if p > alpha:
            break
        found.append((tau, q, p))
        cuts = sorted(cuts + [tau])
    out = []
    for tau, q, p in sorted(found):
        i = cuts.index(tau)
        left, right = z[cuts[i - 1]:tau], z[tau:cuts[i + 1]]
        out.append(dict(index=tau, q=q, p=p, before=cuts[i - 1],
                        after=cuts[i + 1], mean_before=left.mean(),
                        sd_before=left.std(ddof=1), mean_after=right.mean(),
                        sd_after=right.std(ddof=1)))
    return out


def cell_values(run, kernel, path):
    """A registry row's values of a kernel's ok cells, in run.json order."""
    d = os.path.join(DATA, run)
    out = []
    for c in json.load(open(os.path.join(d, 'run.json')))['cells']:
        if c['kernel'] != kernel:
            continue
        cell = json.load(open(os.path.join(d, c['dir'], 'cell.json')))
        if cell['outcome'] != 'ok':
            continue
        v = cell
        for k in path.split('.'):
            v = v[int(k)] if isinstance(v, list) else v[k]
        out.append(float(v))
    return out


def show(name, z, **kw):
    print(f'{name} (n={len(z)}, {kw}):')
    print('  ', ', '.join(f'{v:.17g}' for v in z))
    q, tau = best_over(np.asarray(z, dtype=float), [0, len(z)],
                       kw.get('m0', 3))
    print(f'  whole series: max Q {q:.12g} at {tau}')
    for cp in edivisive(z, **kw):
        print('   cp index {index} [{before}, {after}) q {q:.12g} p {p:.6g}'
              ' mean {mean_before:.12g} -> {mean_after:.12g}'
              ' sd {sd_before:.12g} / {sd_after:.12g}'.format(**cp))


def main():
    # A step of 5 sd after 10 values, with a one-value spike at 16.
    step = [10.1, 9.8, 10.3, 9.9, 10.0, 10.2, 9.7, 10.1, 9.9, 10.0,
            15.2, 14.8, 15.1, 15.3, 14.9, 15.0, 25.0, 15.2, 14.7, 15.1]
    show('step with a spike', step)
    # A small step (2.3 sd): significant, but some shuffles reach it.
    small = [10.1, 9.8, 10.3, 9.9, 10.0, 10.2, 9.7, 10.1, 9.9, 10.0,
             10.6, 10.1, 10.4, 10.7, 10.2, 10.5, 10.3, 10.6]
    show('small step', small)
    # Two changes: up at 8, back down at 16.
    two = [5, 6, 5, 7, 6, 5, 6, 6, 12, 11, 13, 12, 12, 11, 13, 12,
           6, 5, 6, 7, 5, 6, 6, 5]
    show('up then down', two)
    # One odd value at the end: min_size 3 keeps it from being a change.
    show('spike at the end', [3, 3.2, 2.9, 3.1, 3, 3.1, 2.9, 3, 9])
    # Flat: every divergence 0, no change.
    show('flat', [7.0] * 12)
    # Real cells (tests/data/report/fsync, run 20261204-194153-5216 then
    # 20261204-193112-5833): reclaim-wr-direct (vmscan_write_file_direct)
    # of 6.1's 10 + 10 cells, then 6.1-direct-writeback's 10.
    path = 'metrics.vmscan_write_file_direct'
    real = (cell_values('fsync/aa', '6.1', path) +
            cell_values('fsync/ab', '6.1', path) +
            cell_values('fsync/ab', '6.1-direct-writeback', path))
    show('fsync reclaim-wr-direct, 6.1 x 20 then the revert x 10', real)
    # The same cells' throughput (fio-write, KiB/s): no kernel change in
    # the first 20.
    path = 'metrics.fio.0.write.bw_kib_s'
    real = (cell_values('fsync/aa', '6.1', path) +
            cell_values('fsync/ab', '6.1', path))
    show('fsync fio-write, 6.1 x 20', real)
    # The nights of tests/data/jobs/e2e-nights.sql (tests/test_confirm.c
    # change_point_candidate): a nightly's series up to nights 7 and 8.
    db = sqlite3.connect(':memory:')
    db.executescript(open(os.path.join(DATA, '..', 'jobs',
                                       'e2e-nights.sql')).read())
    for metric in ('reclaim-wr-direct', 'workload-time'):
        for upto in (7, 8):
            z = [r[0] for r in db.execute(
                'SELECT mean FROM night_metrics WHERE metric = ? AND'
                ' night <= ? AND mean IS NOT NULL ORDER BY night',
                (metric, upto))]
            show(f'e2e nights up to {upto}, {metric}', z)


if __name__ == '__main__':
    main()
