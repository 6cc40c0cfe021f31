#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The census of docs/findings/swap-iscsi-deadlock.txt, "The healthy cells".

Every swap-direct* and dirty-flood* cell whose cell.json is listed in
argv[1] (made with: find /var/lib/wblab /work /tmp /var/tmp -xdev -name
cell.json > LIST), one per (run, cell, attempt): a retried attempt and
its retry are two cells, as in the report; copies of the same cell in
other checkouts' tests/data counted once: outcome, whether the stall watcher was
in its plan, whether it took a dump, whether the cell has a stall event.
With a second argument, every cell with the watcher or a stall is listed.
Usage: /usr/bin/python3 docs/findings/stall-census.py LIST [detail]
"""
import json, os, sys, collections, subprocess
seen = {}
for p in open(sys.argv[1]).read().split():
    if '/wblab-test-' in p or 'wblab-same-output' in p:
        continue
    try:
        c = json.load(open(p))
    except Exception:
        continue
    w = c.get('workload')
    if not isinstance(w, str):
        w = (w or {}).get('name')
    if not w or not (w.startswith('swap-direct') or w.startswith('dirty-flood')):
        continue
    key = (c.get('run'), c.get('cell'), c.get('attempt'))
    d = os.path.dirname(p)
    con = os.path.join(d, 'console.log')
    has = os.path.isfile(con)
    dump = has and subprocess.run(['grep', '-q', '-F', 'wblab: stall dump 1', con]).returncode == 0
    pl = os.path.join(d, 'plan.txt')
    watch = os.path.isfile(pl) and 'bg\twatch\t' in open(pl, errors='replace').read()
    st = [e.get('title') for e in c.get('events', []) if e.get('kind') == 'stall']
    k = c.get('kernel', {}); k = k.get('name') if isinstance(k, dict) else k
    t = c.get('topology', {}); t = t.get('name') if isinstance(t, dict) else t
    row = (p, w, k, t, c.get('outcome'), watch, dump, st)
    if key not in seen or (watch and not seen[key][5]):
        seen[key] = row
by = collections.Counter((r[1], r[4], r[5], r[6], bool(r[7])) for r in seen.values())
print(len(seen), "distinct cells (run, cell, attempt)")
print("n  (workload, outcome, watcher in plan, watcher dumped, stall event)")
for k, v in sorted(by.items()):
    print(v, k)
if len(sys.argv) > 2:
    for r in sorted(seen.values()):
        if r[5] or r[7]:
            print(r[0], r[2], r[3], r[4], 'dump' if r[6] else '-', r[7])
