#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Are two JSON documents the same up to a rounding?

    tools/json-within.py OLD NEW [TOL]

OLD and NEW are JSON files, or tools/same-output.sh's reparse-cells.json
(sections "## PATH" each followed by one cell.json). Every key, string,
boolean and null must be identical; every number must be within TOL
(default 0.005: half a unit of two decimals, the coarsest rounding the
collectors used before json_number()). Prints the largest difference and
where; exit 0 when within, 1 otherwise, 2 on bad input.
"""
import json
import sys


def sections(path):
    text = open(path, encoding='utf-8').read()
    if not text.startswith('## '):
        return {'': json.loads(text)}
    out = {}
    for part in text.split('\n## ')[0:]:
        head, _, body = part.lstrip('# ').partition('\n')
        out[head] = json.loads(body)
    return out


def walk(a, b, where, worst, bad):
    num = (int, float)
    if isinstance(a, bool) or isinstance(b, bool) or \
            not (isinstance(a, num) and isinstance(b, num)):
        if type(a) is not type(b):
            bad.append('%s: %r became %r' % (where, a, b))
        elif isinstance(a, dict):
            if list(a) != list(b):
                bad.append('%s: keys %s became %s' % (where, list(a), list(b)))
            for k in a:
                if k in b:
                    walk(a[k], b[k], where + '.' + k, worst, bad)
        elif isinstance(a, list):
            if len(a) != len(b):
                bad.append('%s: %d items became %d' % (where, len(a), len(b)))
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, '%s.%d' % (where, i), worst, bad)
        elif a != b:
            bad.append('%s: %r became %r' % (where, a, b))
        return
    d = abs(a - b)
    if d > worst[0]:
        worst[:] = [d, where, a, b]


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    tol = float(sys.argv[3]) if len(sys.argv) == 4 else 0.005
    old, new = sections(sys.argv[1]), sections(sys.argv[2])
    if list(old) != list(new):
        print('documents differ: %s / %s' % (list(old), list(new)))
        return 1
    worst, bad = [0.0, None, None, None], []
    for k in old:
        walk(old[k], new[k], k, worst, bad)
    for b in bad:
        print(b)
    print('%d documents; largest number difference %.6g%s' %
          (len(old), worst[0],
           ' at %s (%r -> %r)' % tuple(worst[1:]) if worst[1] else ''))
    return 1 if bad or worst[0] > tol + 1e-9 else 0


if __name__ == '__main__':
    sys.exit(main())
