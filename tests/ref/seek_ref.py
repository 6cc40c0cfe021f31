#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Reference values for tests/test_seek.c: collect/seek.c's figures computed
again, independently, from a captured trace, with SciPy's spearmanr.

Usage (from the top of the checkout):
    zcat tests/data/seek/random-6.1-direct-writeback/trace.gz | \
        /usr/bin/python3 tests/ref/seek_ref.py 254:32

FS_DEV is the test filesystem's MAJ:MIN (fsdev.txt). Writer classes as
collect/windows.h defines them: direct and memcg between their reclaim
begin/end events (a begin whose end never came runs to the trace's end,
an end without a begin from its start), a kswapd pid always kswapd, a
kworker between writeback_start and writeback_written the flusher, in
that order of precedence. A write bio queued at the fs device gives its
pages their queuer (class, pid); a write request issued at a device is
the queuer's of its first page, and each (device, pid, class) is one
stream in issue order. Reclaim's written folios (mm_vmscan_write_folio's
pfn) are joined to their last page-cache insertion
(mm_filemap_add_to_page_cache's pfn, ino, ofs), one sequence per
(class, pid, inode). rho is the n-weighted mean of the sequences' rho
(n >= 3), rho_w32 the mean over disjoint windows of 32.
"""
import collections
import re
import sys

import numpy as np
from scipy import stats

LINE = re.compile(r'^\s*(.*)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$')
BLK = re.compile(r'(\d+),(\d+) (\S+) (?:\d+ \(.*?\) )?(\d+) \+ (\d+)')
REMAP = re.compile(r'(\d+),(\d+) (\S+) (\d+) \+ (\d+) <- \((\d+),(\d+)\) (\d+)')
CLASSES = ['direct', 'memcg', 'kswapd', 'flusher', 'other']
BEGIN = {'mm_vmscan_direct_reclaim_begin': 'direct',
         'mm_vmscan_memcg_reclaim_begin': 'memcg',
         'writeback_start': 'flusher'}
END = {'mm_vmscan_direct_reclaim_end': 'direct',
       'mm_vmscan_memcg_reclaim_end': 'memcg',
       'writeback_written': 'flusher'}


def parse(f):
    for line in f:
        m = LINE.match(line)
        if m:
            comm, pid, _, ts, ev, args = m.groups()
            yield comm, int(pid), float(ts), ev, args


def windows(lines):
    """{pid: {kind: [(begin, end)]}}, the kswapd pids, first and last ts."""
    w = collections.defaultdict(lambda: collections.defaultdict(list))
    opened = {}
    kswapd = set()
    first = last = None
    for _, pid, ts, ev, _ in lines:
        first = ts if first is None else first
        last = ts
        if ev in ('mm_vmscan_kswapd_wake', 'mm_vmscan_kswapd_sleep'):
            kswapd.add(pid)
        if ev in BEGIN and (pid, BEGIN[ev]) not in opened:
            opened[(pid, BEGIN[ev])] = ts
        elif ev in END:
            b = opened.pop((pid, END[ev]), first)
            w[pid][END[ev]].append((b, ts))
    for (pid, kind), b in opened.items():
        w[pid][kind].append((b, last))
    return w, kswapd


def cls_at(w, kswapd, pid, ts):
    def inside(kind):
        return any(b <= ts <= e for b, e in w.get(pid, {}).get(kind, []))
    if inside('direct'):
        return 'direct'
    if inside('memcg'):
        return 'memcg'
    if pid in kswapd:
        return 'kswapd'
    if inside('flusher'):
        return 'flusher'
    return 'other'


def rho(seqs):
    whole = n = win = nwin = 0.0
    for s in seqs:
        if len(s) >= 3:
            r = stats.spearmanr(np.arange(len(s)), s).correlation
            if not np.isnan(r):
                whole += r * len(s)
                n += len(s)
        for i in range(0, len(s) - 31, 32):
            r = stats.spearmanr(np.arange(32), s[i:i + 32]).correlation
            if not np.isnan(r):
                win += r
                nwin += 1
    return (whole / n if n else None), (win / nwin if nwin else None)


def main():
    fs = sys.argv[1].replace(':', ',')
    lines = list(parse(sys.stdin))
    w, kswapd = windows(lines)
    page = {}
    streams = collections.OrderedDict()
    folio = {}
    groups = collections.OrderedDict()
    written = collections.Counter()
    joined = collections.Counter()
    for comm, pid, ts, ev, args in lines:
        if ev == 'block_bio_queue':
            m = BLK.match(args)
            if not m or not m.group(3).startswith(('W', 'FW')):
                continue
            dev = m.group(1) + ',' + m.group(2)
            sec, nr = int(m.group(4)), int(m.group(5))
            if dev != fs or not nr:
                continue
            c = cls_at(w, kswapd, pid, ts)
            for i in range((nr + 7) // 8):
                page[(dev, sec + 8 * i)] = (c, pid)
        elif ev == 'block_bio_remap':
            m = REMAP.match(args)
            if not m or not m.group(3).startswith(('W', 'FW')):
                continue
            q = page.get((m.group(6) + ',' + m.group(7), int(m.group(8))))
            if q:
                dev = m.group(1) + ',' + m.group(2)
                sec, nr = int(m.group(4)), int(m.group(5))
                for i in range((nr + 7) // 8):
                    page[(dev, sec + 8 * i)] = q
        elif ev == 'block_rq_issue':
            m = BLK.match(args)
            if not m or not m.group(3).startswith(('W', 'FW')):
                continue
            dev = m.group(1) + ',' + m.group(2)
            sec, nr = int(m.group(4)), int(m.group(5))
            if not nr:
                continue
            c, p = page.get((dev, sec), ('unknown', -1))
            streams.setdefault((dev, p, c), []).append((sec, nr))
        elif ev == 'mm_filemap_add_to_page_cache':
            m = re.search(r' ino ([0-9a-f]+) pfn=0x([0-9a-f]+) ofs=(\d+)',
                          args)
            if m:
                folio[int(m.group(2), 16)] = (int(m.group(1), 16),
                                              int(m.group(3)))
        elif ev == 'mm_vmscan_write_folio':
            m = re.search(r'pfn=0x([0-9a-f]+)', args)
            c = cls_at(w, kswapd, pid, ts)
            written[c] += 1
            if m and int(m.group(1), 16) in folio:
                joined[c] += 1
                ino, ofs = folio[int(m.group(1), 16)]
                groups.setdefault((c, pid, ino), []).append(ofs)
    for c in CLASSES:
        req = runs = 0
        kib = 0.0
        hist = [0] * 5
        gaps = []
        seqs = []
        for (dev, p, cc), rs in streams.items():
            if cc != c:
                continue
            req += len(rs)
            runs += 1
            kib += sum(nr for _, nr in rs) / 2
            for (s0, n0), (s1, _) in zip(rs, rs[1:]):
                g = abs(s1 - (s0 + n0))
                hist[0 if not g else 1 if g / 2 <= 64 else
                     2 if g / 2 <= 1024 else 3 if g / 2 <= 16384 else 4] += 1
                if g:
                    runs += 1
                    gaps.append(g / 2)
            seqs.append([s for s, _ in rs])
        ngaps = sum(hist)
        gaps.sort()
        p50 = gaps[int(np.ceil(0.5 * len(gaps))) - 1] if gaps else None
        r, rw = rho(seqs)
        o, ow = rho([g for k, g in groups.items() if k[0] == c])
        print(f'{c}: requests {req} kib {kib} runs {runs} '
              f'run_kib_mean {kib / runs if runs else None} '
              f'req_kib_mean {kib / req if req else None} hist {hist} '
              f'seek_pct {100 * sum(hist[3:]) / ngaps if ngaps else None} '
              f'gap_kib_p50 {p50} sector_rho {r} sector_rho_w32 {rw} '
              f'written {written[c]} joined {joined[c]} '
              f'offset_rho {o} offset_rho_w32 {ow}')


main()
