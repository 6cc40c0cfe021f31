#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every dump the stall watcher took in the given cell directories, one
line each, for docs/findings/swap-iscsi-deadlock.txt: the time, how
long nothing had moved, how many tasks waited, md0's writes in flight,
the tasks in D state with the first md/wbt/throttle/refill frame under
each, and whether progress came back within the gap ("recovered").
Also the watcher's dumps that wblab's `stall` event does not count (a
dump 1 with no dump 2).

Then every standstill of pswpout of 15 s or more in the cell's
timeseries.tsv, the last one too if it lasts to the last sample (the
sampler's clock starts with it: the times are turned into uptime with
its "bg sampler" line), and when wblab ended the hog's step (its "run
hog" line + the workload's 150 s).

Usage: /usr/bin/python3 docs/findings/stall-episodes.py CELL_DIR...
"""
import importlib.util, re, sys, os

# One reader of timeseries.tsv's pswpout, arm-cells.py's.
_spec = importlib.util.spec_from_file_location(
    'arm_cells', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              'arm-cells.py'))
_arm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_arm)
pswpout_points = _arm.pswpout_points
uptime_of = _arm.uptime_of


def standstills(d, lines, min_s=15.0):
    s0, hog = uptime_of(lines, 'bg sampler'), uptime_of(lines, 'run hog')
    pts = pswpout_points(d)
    if pts is None:
        return
    if s0 is None or hog is None:
        return
    since, prev = None, None
    for t, v in pts:
        if prev is not None and v != prev and t - since >= min_s:
            print('%s  pswpout still %.1f s, uptime %.1f-%.1f (hog step '
                  'ended at %.1f)' % (os.path.basename(d), t - since,
                                       since + s0, t + s0, hog + 150))
        if v != prev:
            since = t
        prev = v
    if since is not None and pts[-1][0] - since >= min_s:
        print('%s  pswpout still %.1f s, uptime %.1f-%.1f to the last '
              'sample (hog step ended at %.1f)' % (
                  os.path.basename(d), pts[-1][0] - since, since + s0,
                  pts[-1][0] + s0, hog + 150))


for d in sys.argv[1:]:
    try:
        t = open(os.path.join(d, 'console.log'),
                 errors='replace').read().splitlines()
    except OSError:
        continue
    i = 0
    while i < len(t):
        m = re.search(r'\[\s*([\d.]+)\] wblab: stall dump (\d): no progress for (\d+) s, (\d+) tasks (.*)', t[i])
        if not m:
            i += 1; continue
        md = ''
        tasks = []
        cur = None
        j = i + 1
        while j < len(t) and 'wblab: stall dump %s end' % m.group(2) not in t[j]:
            l = t[j]
            mm = re.search(r'dev md0 done \d+ inflight (\d+) (\d+)', l)
            if mm: md = mm.group(2)
            mt = re.search(r'task:(\S+)\s+state:D', l)
            if mt:
                cur = [mt.group(1), None]; tasks.append(cur)
            elif re.search(r'task:\S+\s+state:', l):
                cur = None
            elif cur and cur[1] is None:
                f = re.search(r' (raid1_write_request\+\S+|raid1_make_request\+\S+|md_account_bio\+\S+|__swap_writepage\+\S+|wbt_wait|throttle_direct_reclaim|refill_work|mempool_alloc_noprof)', l)
                if f and not f.group(1).startswith('mempool'):
                    cur[1] = f.group(1).split('/')[0]
            j += 1
        after = ' '.join(x for x in t[j:j+3] if 'recovered' in x)
        print('%s  dump %s at %s s: %s s still, %s tasks %s; md0 in flight %s; D: %s%s' % (
            os.path.basename(d), m.group(2), m.group(1), m.group(3), m.group(4), m.group(5), md,
            ', '.join('%s@%s' % (a, b) for a, b in tasks), '; recovered' if after else ''))
        i = j
    standstills(d, t)
