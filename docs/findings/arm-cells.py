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
cell logged (swap-direct-minfree's first pre: step), if any. Counting
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


def cells(run):
    for p in sorted(glob.glob(os.path.join(run, 'cells', '*', 'cell.json')) +
                    glob.glob(os.path.join(run, 'attempts', '*',
                                           'cell.json'))):
        yield p


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
                         c.get('outcome', '?'), st or ev or '-', mf]))
