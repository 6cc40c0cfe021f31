#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The premature-OOM table of docs/kernels.md ("Premature OOMs"), from
oom-premature cells: kills, dirty + writeback at each kill, fio's rate,
and the memcg reclaim passes a kill needs, read from each cell's files.

A cgroup v2 charge kills only after 16 reclaim passes in a row that
reclaimed nothing (mm/memcontrol.c try_charge_memcg(), MAX_RECLAIM_RETRIES;
a pass that reclaimed anything retries without counting). A pass is an
mm_vmscan_memcg_reclaim_begin/_end pair of one task in trace.gz, empty
when _end says nr_reclaimed=0; "most in a row" is one task's longest run
of consecutive empty passes (an upper bound on one charge's count: the
trace does not show where one charge ends and the next begins), and
"killable" the same over passes of one gfp mask that may kill. In 6.1 a
charge's first empty pass is retried once to drain the per-CPU stocks
and then 16 more are counted, so the kill comes at the 18th empty pass
in a row (mm/memcontrol.c:2691-2745); a __GFP_NORETRY charge (readahead,
a refault of a program's text: readahead_gfp_mask()) gives up after the
second and never kills.

Per cell:
  kills      memory.events oom_kill (memcg.events), and oom (charges that
             ran out of retries)
  premature  metrics.memcg_oom.premature_kills (cell.json): kills while
             the memcg held more than 1/16 of its limit dirty or under
             writeback (memory.stat read at the event by the oomwatch)
  dwb_mib    dirty + writeback at each kill, MiB (memcg-oom.tsv rows
             where oom_kill moved)
  fio        fio's write rate, MiB/s (metrics.fio)
  churn      the hog's churn rounds done (hog.out "churn N:" lines; a
             killed hog's successor starts over from its static part)
  p95        memcg reclaim stall p95, ms (metrics.trace.memcg_reclaim)
  passes     memcg reclaim passes (empty; most in a row)
  gap        the longest time between two write completions at the
             test stack's leaf (block_rq_complete of a device some
             block_bio_remap went to, once one has: not the root disk),
             from the first to the last one

With a stalling topology (stall-NAME.tsv and the dm-stall helper's
trace_marker lines "wblab-stall NAME N suspended|resume"), per stall:
the drain (suspend asked to done: a suspend first waits for every bio
dm-delay holds), the suspended window, the write completions inside it
(0 if the device really stopped), the memcg reclaim passes inside it
(empty; most in a row), and the tasks with any event in it.

Usage: /usr/bin/python3 docs/findings/oom-passes.py CELL_DIR...
       ... --tsv   one line a cell, tab-separated, for the tables
"""
import gzip
import json
import os
import re
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+): ?(.*)$')
MARK = re.compile(r'wblab-stall (\S+) (\d+) (\w+)')


def read_events(path):
    out = {}
    try:
        for line in open(path):
            k, _, v = line.partition(' ')
            out[k] = int(v)
    except OSError:
        pass
    return out


def kills_dwb(cell):
    """MiB dirty + writeback at each oom_kill the oomwatch saw."""
    out, last = [], 0
    try:
        rows = open(os.path.join(cell, 'memcg-oom.tsv')).read().split('\n')
    except OSError:
        return out
    head = rows[0].split('\t')
    for r in rows[1:]:
        f = r.split('\t')
        if len(f) != len(head):
            continue
        d = dict(zip(head, f))
        k = int(d['oom_kill'])
        if k > last:
            out.append((int(d['file_dirty']) + int(d['file_writeback'])) /
                       2**20)
        last = k
    return out


class Passes:
    """Passes, empty ones, and runs of empty passes: one task's longest
    (most), and one task's longest in charges that may kill (killable:
    the same gfp mask pass after pass, without __GFP_NORETRY, which
    gives up after the drain's retry, or __GFP_RETRY_MAYFAIL)."""

    def __init__(self):
        self.n = self.empty = self.most = self.killable = 0
        self.run, self.krun = {}, {}

    def end(self, pid, gfp, reclaimed):
        self.n += 1
        may_kill = gfp is not None and 'NORETRY' not in gfp and \
            'RETRY_MAYFAIL' not in gfp
        if reclaimed:
            self.run[pid] = 0
            self.krun[pid] = (gfp, 0)
            return
        self.empty += 1
        self.run[pid] = self.run.get(pid, 0) + 1
        self.most = max(self.most, self.run[pid])
        last, k = self.krun.get(pid, (None, 0))
        k = k + 1 if may_kill and last == gfp else (1 if may_kill else 0)
        self.krun[pid] = (gfp, k)
        self.killable = max(self.killable, k)

    def __str__(self):
        return '%d (%d; %d, %d killable)' % (self.n, self.empty, self.most,
                                             self.killable)


def leaves(path):
    """Devices block_bio_remap sent bios to ("253,32 W 84168 + 8 <-
    (251,0) 84168"): the test stack's leaf under a dm or md layer."""
    out = set()
    with gzip.open(path, 'rt', errors='replace') as f:
        for line in f:
            if 'block_bio_remap: ' in line and '<- (' in line:
                out.add(line.split('block_bio_remap: ')[1].split()[0])
    return out


def trace(cell):
    """Whole-trace passes, completion gap, and per-stall windows."""
    allp, stalls = Passes(), {}
    path = os.path.join(cell, 'trace.gz')
    if not os.path.exists(path):
        return allp, None, {}, None
    cur, last_c, gap, gfp, leaf = None, None, 0.0, {}, leaves(path)
    end = None
    with gzip.open(path, 'rt', errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            comm, pid, ts, ev, args = m.groups()
            ts = end = float(ts)
            if ev == 'tracing_mark_write':
                mk = MARK.search(args)
                if not mk:
                    continue
                n, what = int(mk.group(2)), mk.group(3)
                st = stalls.setdefault(n, {'passes': Passes(), 'done': 0,
                                           'tasks': set()})
                st[what] = ts
                cur = st if what == 'suspended' else None
                continue
            if ev == 'block_rq_complete' and leaf and \
                    args.split()[0] not in leaf:
                continue  # another disk: the root's journal, say
            if ev == 'block_rq_complete':
                if last_c is not None:
                    gap = max(gap, ts - last_c)
                last_c = ts
                if cur is not None:
                    cur['done'] += 1
            if cur is not None:
                cur['tasks'].add(comm)
            if ev == 'mm_vmscan_memcg_reclaim_begin':
                gfp[pid] = args.split('gfp_flags=')[-1].strip()
            if ev == 'mm_vmscan_memcg_reclaim_end':
                r = int(args.split('nr_reclaimed=')[1].split()[0])
                allp.end(pid, gfp.get(pid), r)
                if cur is not None:
                    cur['passes'].end(pid, gfp.get(pid), r)
    return allp, gap, stalls, end


def churn_rounds(cell):
    try:
        text = open(os.path.join(cell, 'hog.out')).read()
    except OSError:
        return None
    return len(re.findall(r'^hog\[\d+\]: churn \d+:', text, re.M))


def cell_row(cell):
    d = json.load(open(os.path.join(cell, 'cell.json')))
    m = d.get('metrics') or {}
    ev = read_events(os.path.join(cell, 'memcg.events'))
    fio = sum(j['write']['bw_kib_s'] for j in m.get('fio') or []) / 1024
    allp, gap, stalls, end = trace(cell)
    tr = m.get('trace') or {}
    return {
        'cell': os.path.basename(cell.rstrip('/')),
        'kernel': d.get('kernel', {}).get('name') if isinstance(
            d.get('kernel'), dict) else d.get('kernel'),
        'outcome': d.get('outcome'),
        'kills': ev.get('oom_kill'),
        'oom': ev.get('oom'),
        'premature': (m.get('memcg_oom') or {}).get('premature_kills'),
        'dwb': kills_dwb(cell),
        'fio': fio,
        'passes': allp,
        'gap': gap,
        'stalls': stalls,
        'trace_end': end,
        'churn': churn_rounds(cell),
        'p95': ((tr.get('memcg_reclaim') or {}).get('stall_us') or
                {}).get('p95'),
        'trace_complete': tr.get('complete'),
        'lost': tr.get('lost_events'),
    }


def main(argv):
    tsv = '--tsv' in argv
    cells = [a for a in argv if a != '--tsv']
    for c in cells:
        r = cell_row(c)
        dwb = ', '.join('%.1f' % x for x in r['dwb']) or '-'
        gap = '%.2f s' % r['gap'] if r['gap'] is not None else '-'
        if tsv:
            print('\t'.join(str(x) for x in (
                r['cell'], r['outcome'], r['kills'], r['oom'],
                r['premature'], dwb, '%.2f' % r['fio'], r['churn'],
                '%.0f' % (r['p95'] / 1000) if r['p95'] is not None else '-',
                r['passes'], gap, 'complete' if r['trace_complete'] else
                'cut at %.2f s' % (r['trace_end'] or 0))))
            continue
        print('%s: %s, oom_kill %s (oom %s, premature %s), dirty+wb at '
              'kill %s MiB, fio %.2f MiB/s, %s churn rounds, memcg reclaim '
              'stall p95 %s ms, passes %s, longest completion gap %s%s' % (
                  r['cell'], r['outcome'], r['kills'], r['oom'],
                  r['premature'], dwb, r['fio'], r['churn'],
                  '%.0f' % (r['p95'] / 1000) if r['p95'] is not None
                  else '-', r['passes'], gap,
                  '' if r['trace_complete'] else
                  ' (trace cut at %.2f s: %s events lost)' % (
                      r['trace_end'] or 0, r['lost'])))
        for n, st in sorted(r['stalls'].items()):
            if 'suspended' not in st or 'resume' not in st:
                print('  stall %d: not whole in the trace (it ends at '
                      '%.2f s)' % (n, r['trace_end'] or 0))
                continue
            print('  stall %d: drain %.2f s, suspended %.2f s (%.2f-%.2f), '
                  '%d write completions in it, passes %s, tasks: %s' % (
                      n, st['suspended'] - st.get('suspend', st['suspended']),
                      st.get('resume', st['suspended']) - st['suspended'],
                      st['suspended'], st.get('resume', float('nan')),
                      st['done'], st['passes'],
                      ' '.join(sorted(st['tasks'] - {'wblab-agent'})) or '-'))


if __name__ == '__main__':
    main(sys.argv[1:])
