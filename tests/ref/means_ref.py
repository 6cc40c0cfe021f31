#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Reference figures of tests/test_decide_means.c, from the captured cells.

fio-write on tests/data/report/fsync-day2/ab (6.1 against the revert):
its one mean, log1p-welch's geometric mean of c + x less c (c = 1 MiB/s),
beside the harmonic and arithmetic means the table and the Verdict used
to print; the log1p-welch p-value (SciPy). stack-max on report/stack8k:
the arithmetic mean each side's permutation test compares, and the
deepest cell.
"""
import glob
import json
import math
import os
import statistics

from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', 'data', 'report')


def get(o, path):
    for k in path.split('.'):
        if isinstance(o, list):
            o = o[int(k)] if int(k) < len(o) else None
        elif isinstance(o, dict):
            o = o.get(k)
        if o is None:
            return None
    return o


def values(run, path, scale=1.0):
    by = {}
    for f in sorted(glob.glob(os.path.join(DATA, run, 'cells', '*',
                                           'cell.json'))):
        c = json.load(open(f))
        if c.get('outcome') != 'ok':
            continue
        v = get(c, path)
        if v is None:
            continue
        by.setdefault(c['kernel']['name'], []).append(v * scale)
    return by


def gmean_c(x, c):
    return c * math.expm1(sum(math.log1p(v / c) for v in x) / len(x))


fio = values('fsync-day2/ab', 'metrics.fio.0.write.bw_kib_s', 1 / 1024)
for k, x in fio.items():
    print('fio-write %s n=%d Gmean %.6f Hmean %.6f Amean %.6f' %
          (k, len(x), gmean_c(x, 1), statistics.harmonic_mean(x),
           statistics.mean(x)))
a, b = fio['6.1'], fio['6.1-direct-writeback']
t = stats.ttest_ind([math.log1p(v) for v in b], [math.log1p(v) for v in a],
                    equal_var=False)
print('fio-write log1p-welch p %.6g' % t.pvalue)

for k, x in values('stack8k', 'metrics.stack_max_bytes').items():
    print('stack-max %s n=%d Amean %.6f deepest %d' %
          (k, len(x), statistics.mean(x), max(x)))
