#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every cell and retried attempt of the given runs, one line each, for
the arms of docs/findings/swap-iscsi-deadlock.txt "How often".

Usage: /usr/bin/python3 docs/findings/arm-cells.py RUN_DIR...

A line: run, cell (attempt), workload, outcome, then the evidence of a
stuck cell: the `stall` event's title; or, for an attempt that ended
infra-error, what its console shows instead: "watcher blocked in SITE"
when the SysRq-w that wblab takes at the agent's timeout finds
wblab-watch in D state in reclaim (mempool_alloc or
throttle_direct_reclaim: the watcher was itself one of the stuck
reclaimers, so it could not dump), "iscsi timeout" when both iSCSI
sessions' recovery timed out (the network received nothing for 120 s)
with no dump; the last column is the default vm.min_free_kbytes the
cell logged (swap-direct-minfree's first pre: step), if any, and what
the console shows of every cell: the watcher's dumps ("dumps 1+1" for
both, "dump 1, recovered" when progress came back within the gap),
GFP_ATOMIC allocation failures, iSCSI ping timeouts, pswpout at the
end (vmstat.after) and its rise in the 20 s before it last rose
(timeseries.tsv), and after the watcher's dump 2 its rise to the last
sample ("+0 after dump 2": stuck to the end; more: the standstill
ended, as shape A's did on the lab kernels); before those, what the
cell's setup read back (md's write-intent bitmap from /proc/mdstat, or what the plan asked mdadm for
when a stuck cell collected nothing; lru_gen's mask). Counting
what is stuck stays a judgement the report states; this lists the
evidence.
"""
import glob
import json
import os
import re
import sys


def console_evidence(con):
    try:
        text = open(con, errors='replace').read()
    except OSError:
        return '', ''
    ev = []
    w = text.find('sysrq: Show Blocked State')
    if w >= 0:
        task = None
        for line in text[w:].splitlines():
            m = re.search(r'task:(\S+)\s+state:D', line)
            if m:
                task = m.group(1)
            elif task == 'wblab-watch' and re.search(
                    r'mempool_alloc|throttle_direct_reclaim', line):
                ev.append('watcher blocked in ' +
                          line.split()[-1].split('+')[0])
                break
    rec = len(re.findall(r'session\d+: session recovery timed out', text))
    if rec and 'wblab: stall dump 1' not in text:
        ev.append('iscsi timeout (%d sessions), no dump' % rec)
    m = re.search(r'\] (\d+)\n(?:.*\n){0,3}.*wblab-agent: run pre', text)
    return '; '.join(ev), m.group(1) if m else ''


def console_facts(d):
    try:
        text = open(os.path.join(d, 'console.log'), errors='replace').read()
    except OSError:
        return ''
    f = []
    d1 = text.count('wblab: stall dump 1:')
    d2 = text.count('wblab: stall dump 2:')
    rec = text.count('wblab: stall recovered')
    if d1:
        f.append('dumps %d+%d' % (d1, d2) + (', %d recovered' % rec
                                             if rec else ''))
    a = len(re.findall(r'page allocation failure: .*GFP_ATOMIC', text))
    if a:
        f.append('GFP_ATOMIC failures %d' % a)
    pt = len(re.findall(r'ping timeout of \d+ secs expired', text))
    if pt:
        f.append('ping timeouts %d' % pt)
    try:
        vm = open(os.path.join(d, 'vmstat.after')).read()
        m = re.search(r'^pswpout (\d+)$', vm, re.M)
        if m:
            f.append('pswpout %s' % m.group(1))
    except OSError:
        pass
    f.append(swap_tail(d))
    f.append(after_dump2(d, text))
    return ', '.join(x for x in f if x)


def uptime_of(lines, what):
    """The uptime of the first console line 'wblab-agent: WHAT' (a
    regular expression), or None (stall-episodes.py reads it too)."""
    for l in lines:
        m = re.match(r'\[\s*([\d.]+)\] wblab-agent: ' + what, l)
        if m:
            return float(m.group(1))
    return None


def after_dump2(d, text):
    """pswpout's rise from the watcher's dump 2 to the last sample of
    timeseries.tsv, whose clock starts at the agent's "bg sampler"
    line."""
    m2 = re.search(r'\[\s*([\d.]+)\] wblab: stall dump 2:', text)
    s0 = uptime_of(text.splitlines(), 'bg sampler')
    pts = pswpout_points(d)
    if not m2 or s0 is None or not pts:
        return ''
    t2 = float(m2.group(1)) - s0
    at = [p for t, p in pts if t <= t2]
    if not at:
        return ''
    return 'pswpout +%d after dump 2 (to %.0f s)' % (pts[-1][1] - at[-1],
                                                     pts[-1][0])


def pswpout_points(d):
    """(sampler time, pswpout) of the cell's timeseries.tsv; None when
    it is missing or unreadable (stall-episodes.py reads it too)."""
    try:
        rows = [l.rstrip('\n').split('\t') for l in
                open(os.path.join(d, 'timeseries.tsv'))]
        c = rows[0].index('pswpout')
        return [(float(r[0]), int(r[c])) for r in rows[1:] if len(r) > c]
    except (OSError, ValueError, IndexError):
        return None


def swap_tail(d):
    """pswpout's rise in the 20 s before its last rise (timeseries.tsv):
    a hog step that timed out with this well above 0 was slow, not
    stuck."""
    pts = pswpout_points(d)
    if not pts:
        return ''
    top = max(p for _, p in pts)
    t_top = min(t for t, p in pts if p == top)
    before = next(p for t, p in pts if t >= t_top - 20)
    return 'pswpout +%d in the 20 s to %.0f s' % (top - before, t_top)


def cell_setup(d, c):
    """What the cell's setup read back: md's write-intent bitmap (the
    'bitmap:' line of /proc/mdstat in topology.txt) and lru_gen's
    enabled mask (metrics.lru_gen), so an arm shows it ran as named."""
    f = []
    try:
        topo = open(os.path.join(d, 'topology.txt'), errors='replace').read()
    except OSError:
        topo = ''
    if re.search(r'^md\d+ : ', topo, re.M):
        m = re.search(r'^\s+bitmap: (\S+ pages)', topo, re.M)
        f.append('md bitmap ' + m.group(1) if m else 'md no bitmap')
    else:
        # A cell stuck to the end has no topology.txt: what mdadm was
        # asked for instead, from the plan the agent ran.
        try:
            plan = open(os.path.join(d, 'plan.txt'), errors='replace').read()
        except OSError:
            plan = ''
        m = re.search(r'\tmdadm\t--create\t.*', plan)
        if m:
            b = re.search(r'\t--bitmap=(\w+)', m.group(0))
            f.append('plan: mdadm ' +
                     ('--bitmap=' + b.group(1) if b else 'no --bitmap'))
    lg = (c.get('metrics') or {}).get('lru_gen')
    if isinstance(lg, dict) and lg.get('enabled'):
        f.append('lru_gen ' + lg['enabled'])
    return ', '.join(f)


def cells(run):
    for p in sorted(glob.glob(os.path.join(run, 'cells', '*', 'cell.json')) +
                    glob.glob(os.path.join(run, 'attempts', '*',
                                           'cell.json'))):
        yield p


if __name__ == '__main__':
    for run in sys.argv[1:]:
        for p in cells(run):
            c = json.load(open(p))
            d = os.path.dirname(p)
            w = c.get('workload')
            w = w.get('name') if isinstance(w, dict) else w
            st = '; '.join(e.get('title', '') for e in c.get('events', [])
                           if e.get('kind') == 'stall')
            ev, mf = console_evidence(os.path.join(d, 'console.log'))
            if c.get('outcome') != 'infra-error':
                ev = ''
            print('\t'.join([os.path.basename(run.rstrip('/')),
                             os.path.basename(d), w or '?',
                             c.get('outcome', '?'), st or ev or '-', mf,
                             cell_setup(d, c), console_facts(d)]))
