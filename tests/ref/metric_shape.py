#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The shape of every registry row's values in the captured runs.

The figures behind the choice of each row's test in src/results/metric.c:
per comparison side (a kernel of tests/data/report/ab, the A/A kernel of
report/aa, the swap run of report/deadlock; ok cells only, as the report
takes them), the cells where the row is 0, its coefficient of variation,
and the skewness of the values standardised within each side, raw and on
log(1 + x). Python's standard library only.

    ./wblab metrics --json | tests/ref/metric_shape.py [tests/data/report]
"""
import glob
import json
import math
import os
import statistics as st
import sys


def get(o, path):
    for k in path.split('.'):
        if isinstance(o, list):
            try:
                o = o[int(k)]
            except (ValueError, IndexError):
                return None
        elif isinstance(o, dict) and k in o:
            o = o[k]
        else:
            return None
    if isinstance(o, bool) or not isinstance(o, (int, float)):
        return None
    return o


def skew(r):
    n = len(r)
    if n < 3:
        return float('nan')
    m = sum(r) / n
    s = math.sqrt(sum((x - m) ** 2 for x in r) / n)
    return sum((x - m) ** 3 for x in r) / n / s ** 3 if s > 0 else float('nan')


def sides(top):
    out = {}
    for c in glob.glob(os.path.join(top, '**', 'cell.json'), recursive=True):
        j = json.load(open(c))
        if j.get('outcome') != 'ok':
            continue
        run = os.path.relpath(c, top).split(os.sep)[0]
        out.setdefault((run, j['kernel']['name']), []).append(j)
    return out


def main():
    rows = json.load(sys.stdin)
    top = sys.argv[1] if len(sys.argv) > 1 else 'tests/data/report'
    groups = sides(top)
    print('%-18s %-12s %7s %-16s %6s %6s' %
          ('row', 'test', 'zeros', 'CV% per side', 'skew', 'log1p'))
    for r in rows:
        raw, logs, zeros, tot, cvs = [], [], 0, 0, []
        for key in sorted(groups):
            v = [get(c, r['path']) for c in groups[key]]
            v = [x for x in v if x is not None]
            if len(v) < 3:
                continue
            tot += len(v)
            zeros += sum(x == 0 for x in v)
            m, s = st.mean(v), st.stdev(v)
            cvs.append('%.0f' % (100 * s / m) if m else '-')
            if s > 0:
                raw += [(x - m) / s for x in v]
            lv = [math.log1p(max(x, 0)) for x in v]
            lm, ls = st.mean(lv), st.stdev(lv)
            if ls > 0:
                logs += [(x - lm) / ls for x in lv]
        print('%-18s %-12s %3d/%-3d %-16s %6.2f %6.2f' %
              (r['name'], r['test'], zeros, tot, ','.join(cvs), skew(raw),
               skew(logs)))


if __name__ == '__main__':
    main()
