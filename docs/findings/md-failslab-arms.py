#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The arms of the deterministic md mempool reproducer
(workloads/md-failslab; docs/findings/swap-iscsi-deadlock.txt, "Run 12").

Usage: /usr/bin/python3 docs/findings/md-failslab-arms.py [--ref KERNEL]
           RUN_DIR...

Every cell (and retried attempt) of the runs, one line each: run, cell,
kernel, topology, outcome, the `stall` event's title, md0's in-flight
counts from the watcher's dump and whether the standstill ended after
failslab was disarmed; then per arm (kernel x topology) n, stuck, the
95 % Clopper-Pearson interval and Fisher's exact test (two-sided)
against the arm of the same topology on the reference kernel (--ref,
default the first kernel named in the runs) and, for a -bitmap
topology, against the reference kernel's -nobitmap arm of the same
level. Stuck is outcome `hung` with a `stall` event; `ok` is not
stuck; anything else (infra-error, workload-failed without a stall)
is listed and left out of n. Exact binomial and hypergeometric sums,
no SciPy (not installed here): the bounds are found by bisection to
1e-12.
"""
import glob
import json
import math
import os
import re
import sys


def binom_cdf(k, n, p):
    """P(X <= k), X ~ Bin(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i)
               for i in range(k + 1))


def clopper_pearson(x, n, alpha=0.05):
    def solve(f, target):
        lo, hi = 0.0, 1.0
        for _ in range(200):
            mid = (lo + hi) / 2
            if f(mid) > target:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2
    lower = 0.0 if x == 0 else solve(
        lambda p: -(1 - binom_cdf(x - 1, n, p)), -alpha / 2)
    upper = 1.0 if x == n else solve(lambda p: binom_cdf(x, n, p),
                                     alpha / 2)
    return lower, upper


def fisher(a, b, c, d):
    """Two-sided Fisher exact p of [[a, b], [c, d]] (as R's
    fisher.test: tables at most as probable as the observed one)."""
    r1, c1, n = a + b, a + c, a + b + c + d

    def prob(x):
        return (math.comb(c1, x) * math.comb(n - c1, r1 - x)
                / math.comb(n, r1))
    p0 = prob(a)
    lo, hi = max(0, r1 + c1 - n), min(r1, c1)
    return min(1.0, sum(prob(x) for x in range(lo, hi + 1)
                        if prob(x) <= p0 * (1 + 1e-7)))


def console_text(cdir):
    for name in ('console.log', 'console.log.gz'):
        p = os.path.join(cdir, name)
        if os.path.exists(p):
            if name.endswith('.gz'):
                import gzip
                with gzip.open(p, 'rt', errors='replace') as f:
                    return f.read()
            with open(p, errors='replace') as f:
                return f.read()
    return ''


def cells(run):
    for cj in sorted(glob.glob(os.path.join(run, 'cells', '*', 'cell.json'))
                     + glob.glob(os.path.join(run, 'cells', '*',
                                              'attempt-*', 'cell.json'))):
        with open(cj) as f:
            c = json.load(f)
        cdir = os.path.dirname(cj)
        text = console_text(cdir)
        stall = '; '.join(e.get('title', '') for e in c.get('events', [])
                          if e.get('kind') == 'stall')
        m = re.search(r'wblab: stall dump 1:.*', text)
        inflight = re.findall(r'md0[^\n]{0,40}?inflight[^\n]{0,30}', text)
        ended = re.search(r'wblab: stall ended: progress after (\d+) s',
                          text)
        yield {
            'run': os.path.basename(run.rstrip('/')),
            'cell': os.path.basename(cdir),
            'kernel': c.get('kernel', {}).get('name'),
            'version': c.get('kernel', {}).get('version'),
            'topology': (c.get('topology') or {}).get('name'),
            'outcome': c.get('outcome'),
            'accel': c.get('accel'),
            'stall': stall,
            'dump1': m.group(0)[:160] if m else '',
            'inflight': inflight[0] if inflight else '',
            'ended': ended.group(1) if ended else '',
            'failslab': c.get('failslab'),
        }


def main():
    args = sys.argv[1:]
    ref_kernel = None
    if args[:1] == ['--ref']:
        ref_kernel = args[1]
        args = args[2:]
    rows = [c for run in args for c in cells(run)]
    order = [ref_kernel] if ref_kernel else []
    for r in rows:
        print(f"{r['run']} {r['cell']}: {r['kernel']} ({r['version']}, "
              f"{r['accel']}) {r['topology']} {r['outcome']}"
              f"{' stall: ' + r['stall'] if r['stall'] else ''}"
              f"{' ended after ' + r['ended'] + ' s' if r['ended'] else ''}"
              f"{' failslab ' + r['failslab']['cache'] if r['failslab'] else ' NO failslab'}")
        if r['dump1']:
            print(f"    {r['dump1']}")
        if r['kernel'] not in order:
            order.append(r['kernel'])
    arms = {}
    for r in rows:
        if r['outcome'] not in ('ok', 'hung'):
            continue
        stuck = r['outcome'] == 'hung' and bool(r['stall'])
        a = arms.setdefault((r['topology'], r['kernel']), [0, 0])
        a[0] += 1
        a[1] += stuck
    print()
    print(f"{'topology':16} {'kernel':25} {'n':>3} {'stuck':>5}  "
          f"{'95% CP':>15}  Fisher p (vs {order[0] if order else '-'}"
          f"; a bitmap arm also vs its -nobitmap)")
    for (topo, kern) in sorted(arms, key=lambda k: (k[0], order.index(k[1]))):
        n, s = arms[(topo, kern)]
        lo, hi = clopper_pearson(s, n)
        p = []
        refs = [(topo, order[0])]
        if topo.endswith('-bitmap'):
            refs.append((topo[:-len('-bitmap')] + '-nobitmap', order[0]))
        for rk in refs:
            ref = arms.get(rk)
            if ref and rk != (topo, kern):
                p.append(f"{fisher(s, n - s, ref[1], ref[0] - ref[1]):.3g}"
                         f" (vs {rk[0]})")
        print(f"{topo:16} {kern:25} {n:3} {s:5}  "
              f"{100 * lo:5.1f}-{100 * hi:5.1f} %  {'; '.join(p)}")


if __name__ == '__main__':
    main()
