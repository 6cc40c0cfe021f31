#!/usr/bin/env python3
# The one-sided Welch test of a change beyond a threshold (non-inferiority:
# stats_welch_beyond(), decide/procedure.c) on the seeky runs of
# tests/data/report/seeky: fio-write (MiB/s, as the registry records it) of
# 6.1 against 6.1-direct-writeback, 5 cells each, on the log1p scale with
# the margin log1p(0.10). Student's t CDF from mpmath's regularized
# incomplete beta (R: t.test(log1p(b), log1p(a), mu = -log1p(0.1),
# alternative = "less")$p.value).
import glob
import json
import math
import os

import mpmath

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', 'data', 'report', 'seeky')


def values(kernel):
    out = []
    for f in sorted(glob.glob(os.path.join(DATA, '*', 'cells', '*',
                                           'cell.json'))):
        c = json.load(open(f))
        k = c['kernel']['name'] if isinstance(c['kernel'], dict) else c['kernel']
        if k == kernel and c['outcome'] == 'ok':
            out.append(c['metrics']['fio'][0]['write']['bw_kib_s'] / 1024)
    return out


def t_cdf(t, df):
    x = df / (df + t * t)
    tail = 0.5 * mpmath.betainc(df / 2, 0.5, 0, x, regularized=True)
    return float(1 - tail) if t > 0 else float(tail)


def var(x):
    m = sum(x) / len(x)
    return sum((v - m) ** 2 for v in x) / (len(x) - 1)


a = [math.log1p(v) for v in values('6.1')]
b = [math.log1p(v) for v in values('6.1-direct-writeback')]
va, vb = var(a) / len(a), var(b) / len(b)
se = math.sqrt(va + vb)
df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
diff = sum(b) / len(b) - sum(a) / len(a)
for pct in (5, 10, 11):
    m = math.log1p(pct / 100)
    print(f'{pct}%: p_down {t_cdf((diff + m) / se, df):.9g}')
print(f'two-sided welch p {2 * t_cdf(-abs(diff) / se, df):.9g}')
