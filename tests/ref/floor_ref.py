#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The zero-base floor of test_decide_jobs zero_base_has_a_floor.

reclaim-wr-direct, log1p scale: a = log1p([0, 0, 0]) (3 real 6.1 cells of
tests/data/report/fsync/ab), b = log1p([2, 2, 3]). With no spread on a,
Welch-Satterthwaite's df is nb - 1 = 2, and Student's t with 2 degrees
of freedom has the closed-form CDF F(t) = 1/2 + t / (2 sqrt(2 + t^2))
(exact; SciPy's stats.t.cdf(t, 2) and R's pt(t, 2) agree). Prints the
Welch p (R: t.test(b, a)), 'beyond' p against a margin m (R: t.test(b,
a, mu = m, alternative = "greater")) for log 1.1 (10%) and log 33 (a
rise of 32 pages from 0), and TOST's p within log 33.
"""
import math

la = [0.0, 0.0, 0.0]
lb = [math.log1p(x) for x in (2, 2, 3)]
mb = sum(lb) / 3
se = math.sqrt(sum((x - mb) ** 2 for x in lb) / 2 / 3)


def cdf(t):
    return 0.5 + t / (2 * math.sqrt(2 + t * t))


print("welch p      %.10f" % (2 * (1 - cdf(mb / se))))
for name, m in (("10%", math.log1p(0.1)), ("32 pages", math.log(33))):
    print("beyond %-8s %.10f" % (name, 1 - cdf((mb - m) / se)))
m = math.log(33)
print("tost 32 pages %.10f" % max(cdf((mb - m) / se), 1 - cdf((mb + m) / se)))

# test_decide_rule report_verdict_has_the_floor: the same 3 zeros against
# log1p([0, 3, 0]): Welch p, and TOST within log 1.1 (no floor) and log 33.
lb = [math.log1p(x) for x in (0, 3, 0)]
mb = sum(lb) / 3
se = math.sqrt(sum((x - mb) ** 2 for x in lb) / 2 / 3)
print("report: welch p %.10f" % (2 * (1 - cdf(mb / se))))
for name, m in (("10%", math.log1p(0.1)), ("32 pages", math.log(33))):
    print("report: tost %-8s %.10f" %
          (name, max(cdf((mb - m) / se), 1 - cdf((mb + m) / se))))

# Within the floor, `same` is TOST on the values themselves (arithmetic
# means) against 32 pages (a geometric mean of 1 + x within it says
# nothing of a count large in a few cells): 3 zeros against [2, 2, 3] and
# against [0, 3, 0]. Welch-Satterthwaite df with no spread on a: nb - 1.
for name, b in (("2,2,3", (2, 2, 3)), ("0,3,0", (0, 3, 0))):
    mb = sum(b) / 3
    se = math.sqrt(sum((x - mb) ** 2 for x in b) / 2 / 3)
    print("raw tost %s within 32 pages %.10f" %
          (name, max(cdf((mb - 32) / se), 1 - cdf((mb + 32) / se))))
