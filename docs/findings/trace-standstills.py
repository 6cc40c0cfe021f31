#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The stall watcher's decision replayed on a cell's trace, for
docs/findings/swap-iscsi-deadlock.txt ("The healthy cells").

The watcher dumps once nothing moved for 20 s (dump 1) and again if
still nothing moved 15 s later (dump 2; a `stall` event needs both and
the same tasks at the same wait sites in them), where moving is a block
device completing a request, swap-out (pswpout) or page-out (pgpgout)
while tasks wait. A cell's trace.gz has the events behind those counters
from the workload's start to the collect phase: block_rq_complete (every
request-based device: the members under md complete when md does),
mm_vmscan_write_folio (reclaim's page-out: pswpout here) and
block_bio_queue writes (pgpgout). So a standstill of those events of
35 s or more is where the watcher, running as agent/stallwatch.c does
since c3440c2, would have taken both dumps; one of 20 s, dump 1. With
each standstill: the tasks in direct reclaim (or kswapd awake) all
through it, the waiters the watcher counts (PSI memory, procs_blocked).

The plan traces block events of writes only (each block event's filter
is rwbs ~ "W*" || rwbs ~ "FW*"), while the watcher also counts completed
reads (swap-in, page cache): a read the trace does not show can move the
watcher's counters inside a standstill seen here. So the standstills are
upper bounds: a cell with none of 20 s here had no watcher dump either;
one with a standstill of 35 s here may have given the watcher less.
(In the first cells run with the c3440c2 watcher, run
20261205-092622-5146, dump 1 came 20.6 s and 20.8 s after the start of
the standstill seen here in cells 3 and 2, and 31 s after it in cell 1.)

What this cannot replay: procs_blocked and PSI themselves (a standstill
with nobody in reclaim, e.g. the hog's hold, is marked "no reclaimer":
the watcher would not dump there unless a task waited for I/O), and the
wait sites the dumps would show. Only standstills between two events
count, inside the span every CPU's buffer covered (trace_stats.txt:
a CPU that overran starts the span at its oldest event; one that dropped
events ends it at its last).

With --completions the replay is the watcher of 9f311e3 and later:
swap-out and page-out are counted when a write is submitted, and since
then they move the watcher only while no device holds a write in flight,
so where a write is held (a submission's own) only block_rq_complete is
progress.

Usage: /usr/bin/python3 docs/findings/trace-standstills.py
         [--completions] CELL_DIR...
  or:  ... [--completions] --list FILE (cell.json paths, one a line; swap-direct* and
       dirty-flood* cells with a trace.gz, one per run/cell/attempt)
Output: one line a cell: run, cell, attempt, workload, outcome, stall
event (y/-), the watcher's dumps on the console, the longest standstill,
and each standstill of 20 s or more; then counts by workload and outcome.
"""
import collections
import gzip
import json
import os
import re
import subprocess
import sys

PROGRESS = ('block_rq_complete:', 'mm_vmscan_write_folio:')
COMPLETIONS = '--completions' in sys.argv
EV = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\S+) ?(.*)$')


def span_limits(d):
    """(start, end) bounds from CPUs that overran or dropped events."""
    lo, hi = None, None
    try:
        text = open(os.path.join(d, 'trace_stats.txt')).read()
    except OSError:
        return lo, hi
    cpu = collections.defaultdict(dict)
    for m in re.finditer(r'cpu(\d+)/stats:([a-z ]+):\s*([\d.]+)', text):
        cpu[m.group(1)][m.group(2)] = float(m.group(3))
    for c in cpu.values():
        if c.get('overrun', 0) > 0 and 'oldest event ts' in c:
            lo = max(lo or 0, c['oldest event ts'])
        if c.get('dropped events', 0) > 0:
            hi = -1  # the end: that CPU's last event, found while reading
    return lo, hi


def events(d):
    """(t, cpu, comm, event, rest) of the events the replay needs."""
    p = subprocess.Popen(
        ['zgrep', '-E',
         'block_rq_complete|mm_vmscan_write_folio|block_bio_queue: .* [A-Z]*W|'
         'direct_reclaim_(begin|end)|kswapd_(wake|sleep)',
         os.path.join(d, 'trace.gz')],
        stdout=subprocess.PIPE, text=True, errors='replace')
    for line in p.stdout:
        m = EV.match(line)
        if m:
            yield (float(m.group(4)), int(m.group(3)), m.group(1),
                   m.group(5), m.group(6))
    p.wait()


def replay(d):
    lo, hi = span_limits(d)
    last_cpu = {}
    prog = []
    inside = {}  # comm-pid -> reclaim began at
    spans = []  # (comm, begin, end) of direct reclaim / kswapd awake
    first = None
    for t, cpu, comm, ev, rest in events(d):
        last_cpu[cpu] = t
        first = t if first is None else first
        if ev == 'block_rq_complete:' or (
                not COMPLETIONS and
                (ev in PROGRESS or ev == 'block_bio_queue:')):
            prog.append(t)
        elif ev == 'mm_vmscan_direct_reclaim_begin:':
            inside[comm] = t
        elif ev == 'mm_vmscan_direct_reclaim_end:' and comm in inside:
            spans.append((comm, inside.pop(comm), t))
        elif ev == 'mm_vmscan_kswapd_wake:':
            inside.setdefault('kswapd', t)
        elif ev == 'mm_vmscan_kswapd_sleep:' and 'kswapd' in inside:
            spans.append(('kswapd', inside.pop('kswapd'), t))
    if first is None:
        return None
    end = max(last_cpu.values())
    if hi == -1:
        end = min(last_cpu.values())
    for comm, b in inside.items():
        spans.append((comm, b, float('inf')))
    start = max(lo or first, first)
    prog = [t for t in prog if start <= t <= end]
    still = []
    for a, b in zip(prog, prog[1:]):
        if b - a >= 20:
            who = sorted({c for c, s, e in spans if s <= a and e >= b})
            still.append((a, b, who))
    longest = max((b - a for a, b in zip(prog, prog[1:])), default=0.0)
    return longest, still


def cell_facts(d):
    try:
        c = json.load(open(os.path.join(d, 'cell.json')))
    except (OSError, ValueError):
        return None
    w = c.get('workload')
    w = w if isinstance(w, str) else (w or {}).get('name')
    stall = any(e.get('kind') == 'stall' for e in c.get('events', []))
    try:
        con = open(os.path.join(d, 'console.log'), errors='replace').read()
    except OSError:
        con = ''
    dumps = '%d+%d' % (con.count('wblab: stall dump 1:'),
                       con.count('wblab: stall dump 2:'))
    return (c.get('run'), c.get('cell'), c.get('attempt'), w,
            c.get('outcome'), stall, dumps)


def cells(argv):
    if argv[:1] != ['--list']:
        return argv
    out, seen = [], set()
    for p in open(argv[1]).read().split():
        d = os.path.dirname(p)
        if '/wblab-test-' in p or not os.path.isfile(
                os.path.join(d, 'trace.gz')):
            continue
        f = cell_facts(d)
        if not f or not f[3] or not f[3].startswith(
                ('swap-direct', 'dirty-flood')):
            continue
        if f[:3] in seen:
            continue
        seen.add(f[:3])
        out.append(d)
    return sorted(out)


def main():
    by = collections.Counter()
    for d in cells([a for a in sys.argv[1:] if a != '--completions']):
        f = cell_facts(d)
        r = replay(d) if f else None
        if r is None:
            continue
        longest, still = r
        two = [s for s in still if s[1] - s[0] >= 35 and s[2]]
        one = [s for s in still if s[2]]
        print('%s\t%s\t%s\t%s\t%s\tstall %s\tdumps %s\tlongest %.1f s\t%s'
              % (f[0], f[1], f[2], f[3], f[4], 'y' if f[5] else '-', f[6],
                 longest, '; '.join(
                     '%.1f-%.1f (%.1f s) %s' % (
                         a, b, b - a, ','.join(w) or 'no reclaimer')
                     for a, b, w in still)))
        by[(f[3], f[4], 'replay: both dumps' if two else
            'replay: dump 1 only' if one else 'replay: no dump',
            'stall' if f[5] else 'no stall')] += 1
    print('\nn\tworkload, outcome, replayed watcher, stall event')
    for k, v in sorted(by.items()):
        print('%d\t%s' % (v, ', '.join(str(x) for x in k)))


if __name__ == '__main__':
    main()
