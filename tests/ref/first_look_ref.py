#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""How often validate's first look (n = 3 a side) can name the
direct-writeback revert, by the level the look gets: SciPy's reference
for tests/test_calibration.c (test_validate_first_look) and the figures
of docs/jobs.md ("Why Pocock for validate").

Run from the top of the checkout:
    /usr/bin/python3 tests/ref/first_look_ref.py [RUN_DIR...]
(SciPy 1.10.1 on Debian 12 when the figures were taken). Without
arguments it reads the captured cells of tests/data/report/fsync; with
run directories (e.g. tests/jobs/e2e-jobs.sh's validate and bisect runs
under /var/lib/wblab/jobs-test/results-*/*) it reads their cells too.

Every 3-cell draw of the revert's cells is tested against 3 cells of the
base the way the jobs test reclaim-wr-direct: Welch's t on log(1 + x),
two-sided. The base is 0 in every cell, so Welch's degrees of freedom are
the revert side's n - 1 = 2 and the test is the one-sample t of
log(1 + x) against 0 (scipy.stats.ttest_1samp). The levels of the first
look are rpact's (tests/ref/stats_ref.R: getDesignGroupSequential(
informationRates = c(3, 5, 7, 9) / 9, alpha = 0.05, sided = 2)), with
one row, so Holm leaves them as they are.
"""
import glob
import itertools
import json
import os
import sys

import numpy as np
from scipy import stats

DATA = os.path.join(os.path.dirname(__file__), '..', 'data', 'report',
                    'fsync')
LEVELS = {'asOF (obrien-fleming)': 0.000207, 'asP (pocock)': 0.0226}


REVERT = '0001-mm-vmscan-let-direct-reclaim-write-file-folios.patch'


def is_revert(kernel):
    """The lab's 6.1-direct-writeback, or a kernel validate built with
    lab/patches' revert (cell.json's kernel.patches)."""
    if isinstance(kernel, str):
        return kernel.endswith('direct-writeback')
    return (kernel.get('name', '').endswith('direct-writeback') or
            os.path.basename(kernel.get('patches') or '') == REVERT)


def cells(run_dirs):
    """(base values, revert values) of reclaim-wr-direct in ok cells of
    the runs that have a revert side (a bisection's runs have none)."""
    base, rev = [], []
    for d in run_dirs:
        side = {}
        for path in glob.glob(os.path.join(d, 'cells', '*', 'cell.json')):
            with open(path) as f:
                c = json.load(f)
            v = c.get('metrics', {}).get('vmscan_write_file_direct')
            if c.get('outcome') != 'ok' or v is None:
                continue
            side.setdefault(is_revert(c['kernel']), []).append(v)
        if True in side:
            base += side.get(False, [])
            rev += side[True]
    return base, rev


def main():
    fsync = [os.path.join(DATA, 'ab'), os.path.join(DATA, 'aa')]
    for name, dirs in (('tests/data/report/fsync', fsync),
                       ('the runs given', sys.argv[1:])):
        if not dirs:
            continue
        base, rev = cells(dirs)
        if any(base):
            print(f'{name}: a base cell is not 0: this test does not apply')
            continue
        ps = np.array([stats.ttest_1samp(np.log1p(d), 0).pvalue
                       for d in itertools.combinations(rev, 3)])
        print(f'{name}: {len(base)} base cells (all 0), {len(rev)} revert '
              f'cells ({min(rev):g}..{max(rev):g} pages), '
              f'{len(ps)} draws of 3')
        print('  p at n=3: 5%% %.3g, median %.3g, 95%% %.3g' %
              tuple(np.percentile(ps, [5, 50, 95])))
        for lname, level in LEVELS.items():
            print(f'  named at n=3 at {level} ({lname}): '
                  f'{(ps < level).mean():.3f}')


if __name__ == '__main__':
    main()
