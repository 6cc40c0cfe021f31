#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Reference values for test_claims_seeky (tests/test_report.c), with SciPy.

Run from the top of the checkout:  /usr/bin/python3 tests/ref/claims_ref.py
The cells are tests/data/report/seeky's (three runs of seeky-random on
ext4-disk-slow, 6.1 against 6.1-direct-writeback, n = 5 a kernel), ok
cells only, as the report takes them.
"""
import glob
import json
import os

import numpy as np
from scipy import stats

DATA = os.path.join(os.path.dirname(__file__), '..', 'data', 'report', 'seeky')


def side(kernel):
    out = []
    for f in sorted(glob.glob(os.path.join(DATA, '*', 'cells', '*', 'cell.json'))):
        c = json.load(open(f))
        if c['outcome'] == 'ok' and c['kernel']['name'] == kernel:
            out.append(c['metrics'])
    return out


stock, revert = side('6.1'), side('6.1-direct-writeback')
# fio-write: MiB/s, Hmean, Welch's t on log(1 + x) (the row's test).
a = np.array([m['fio'][0]['write']['bw_kib_s'] / 1024 for m in stock])
b = np.array([m['fio'][0]['write']['bw_kib_s'] / 1024 for m in revert])
t = stats.ttest_ind(np.log1p(a), np.log1p(b), equal_var=False)
# The row's one mean (what its test compares): the geometric mean of
# c + x less c, c = 1 MiB/s (metric_log_offset()).
print('fio-write gmean %.6f %.6f (hmean %.6f %.6f)  log1p-welch t %.6f p %.6g'
      % (stats.gmean(1 + a) - 1, stats.gmean(1 + b) - 1, stats.hmean(a),
         stats.hmean(b), t.statistic, t.pvalue))
# Reclaim v flusher: stock's flusher seek_pct against the revert's memcg
# reclaim's; every revert value above every stock one, so the exact
# two-sided permutation p of the mean difference is 2 / C(10, 5).
fa = np.array([m['io']['seek']['classes']['flusher']['seek_pct'] for m in stock])
mb = np.array([m['io']['seek']['classes']['memcg']['seek_pct'] for m in revert])
r = stats.permutation_test((fa, mb), lambda x, y: np.mean(y) - np.mean(x),
                           permutation_type='independent',
                           alternative='two-sided', n_resamples=np.inf)
print('reclaim v flusher mean %.6f %.6f  permutation p %.6g'
      % (fa.mean(), mb.mean(), r.pvalue))
# Run, reclaim v fl: stock's flusher runs of contiguous requests (KiB)
# against the revert's memcg reclaim's, Welch's t on log(1 + x)
# (the row's test). Every reclaim run is one 4 KiB page: no variance on
# that side, Welch's t still defined by the flusher's.
fr = np.array([m['io']['seek']['classes']['flusher']['run_kib_mean'] for m in stock])
mr = np.array([m['io']['seek']['classes']['memcg']['run_kib_mean'] for m in revert])
# The row is in KiB: its offset is one page, 4 KiB (metric_log_offset()),
# so the test is on log(1 + x / 4) and its mean the geometric mean of
# 4 + x less 4.
t = stats.ttest_ind(np.log1p(fr / 4), np.log1p(mr / 4), equal_var=False)
print('run reclaim v flusher gmean %.6f %.6f  log1p-welch t %.6f p %.6g'
      % (4 * (stats.gmean(1 + fr / 4) - 1), 4 * (stats.gmean(1 + mr / 4) - 1),
         t.statistic, t.pvalue))
