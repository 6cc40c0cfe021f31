#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The `stall` event re-derived from every console, for
docs/findings/swap-iscsi-deadlock.txt ("The healthy cells"): runs
`wblab parse-console --json` (the console parser of the checkout it is
run from) on the console.log of every swap-direct* and dirty-flood* cell
listed in LIST (cell.json paths, one a line), one per (run, cell,
attempt), and counts the cells by workload, outcome and whether the
parser finds a `stall`, beside whether the cell.json recorded one.
Usage (from the top of a built checkout):
  /usr/bin/python3 docs/findings/console-stalls.py LIST [detail]
"""
import collections
import json
import os
import subprocess
import sys

seen = {}
for p in open(sys.argv[1]).read().split():
    if '/wblab-test-' in p:
        continue
    d = os.path.dirname(p)
    con = os.path.join(d, 'console.log')
    try:
        c = json.load(open(p))
    except (OSError, ValueError):
        continue
    w = c.get('workload')
    w = w if isinstance(w, str) else (w or {}).get('name')
    if not w or not w.startswith(('swap-direct', 'dirty-flood')):
        continue
    key = (c.get('run'), c.get('cell'), c.get('attempt'))
    if key in seen or not os.path.isfile(con):
        continue
    out = subprocess.run(['./wblab', 'parse-console', '--json', con],
                         capture_output=True, text=True).stdout
    ev = json.loads(out).get('events', []) if out.strip() else []
    now = [e.get('title') for e in ev if e.get('kind') == 'stall']
    then = [e.get('title') for e in c.get('events', [])
            if e.get('kind') == 'stall']
    seen[key] = (w, c.get('outcome'), bool(now), bool(then), d, now)
by = collections.Counter((v[0], v[1], 'stall now' if v[2] else '-',
                          'stall recorded' if v[3] else '-')
                         for v in seen.values())
print(len(seen), 'cells (run, cell, attempt) with a console')
for k, v in sorted(by.items()):
    print(v, ', '.join(str(x) for x in k))
if len(sys.argv) > 2:
    for v in sorted(seen.values(), key=lambda v: v[4]):
        if v[2] or v[3]:
            print(v[4], v[1], v[5])
