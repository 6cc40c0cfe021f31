#!/bin/sh
# wblab run --tree: a user's own git tree in one command (run by
# tests/e2e-slow.sh; docs/quickstart.md is this, by hand):
#  1. the jobs' test tree (tests/jobs/make-test-tree.sh): two refs, the
#     commit before the direct-writeback revert and the revert, built with
#     the lab's configuration and run on dirty-flood/ext4-disk, n=3: the
#     report's baseline is the first ref, and reclaim-wr-direct goes from
#     0 to more than 0 pages;
#  2. uncommitted changes: without --ref, HEAD with the changes is built
#     as a snapshot commit (git stash create) and the tree is untouched;
#     with --ref, a warning names them;
#  3. bad use: --ref without --tree, --tree with --kernel, a ref that does
#     not resolve: exit 2 or 1 with the reason.
# Prints each step's wall time and the load average.
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
wblab=$here/wblab
tree=${JOBS_TREE:-/var/lib/wblab/jobs-test/linux}
results=${TREE_RESULTS:-/var/lib/wblab/jobs-test/tree-$(date +%Y%m%d-%H%M%S)}
fails=0
checks=0
pass() { checks=$((checks + 1)); echo "ok: $*"; }
fail() { checks=$((checks + 1)); echo "FAIL: $*"; fails=$((fails + 1)); }
now() { date +%s; }
mkdir -p "$results"

"$here/tests/jobs/make-test-tree.sh" "$tree" >"$results/tree" || { fail "test tree"; exit 1; }
base=$(sed -n 's/^base //p' "$results/tree")
head=$(sed -n 's/^head //p' "$results/tree")
revert=$(git -C "$tree" log --format=%H --grep='^mm: vmscan: let direct reclaim write dirty file folios again$' "$base..$head")
before=$(git -C "$tree" rev-parse "$revert~1")

# 3. Bad use first: nothing is built.
"$wblab" run --ref HEAD --topology ext4-disk --workload dirty-flood 2>"$results/e1"
[ $? -eq 2 ] && grep -q -- '--ref needs --tree' "$results/e1" && pass "--ref without --tree: exit 2" ||
	fail "--ref without --tree: $(cat "$results/e1")"
"$wblab" run --tree "$tree" --kernel 6.1 --topology ext4-disk --workload dirty-flood 2>"$results/e2"
[ $? -eq 2 ] && grep -q 'not with --kernel' "$results/e2" && pass "--tree with --kernel: exit 2" ||
	fail "--tree with --kernel: $(cat "$results/e2")"
"$wblab" run --tree "$tree" --ref no-such-ref --topology ext4-disk --workload dirty-flood \
	--results "$results/bad" 2>"$results/e3"
rc=$?
[ $rc -ne 0 ] && grep -q 'no-such-ref' "$results/e3" && [ ! -d "$results/bad" ] &&
	pass "a ref that does not resolve: exit $rc naming it, no run" || fail "bad ref: exit $rc, $(cat "$results/e3")"

# 1. Two refs, the first the baseline.
echo "# load before the A/B: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(now)
"$wblab" run --tree "$tree" --ref "$before" --ref "$revert" --topology ext4-disk \
	--workload dirty-flood -n 3 --results "$results/ab" >"$results/ab.log" 2>&1
rc=$?
echo "# --tree A/B (2 builds, 6 cells): exit $rc in $(($(now) - t0)) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
run=$(ls -d "$results"/ab/*/ 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && [ -n "$run" ] && pass "--tree A/B ran (exit 0)" || fail "--tree A/B: exit $rc, $(tail -5 "$results/ab.log")"
"$wblab" report --format json "$run" >"$results/ab.json" 2>"$results/ab-report.err"
b=git-$(echo "$before" | cut -c1-12)
p=git-$(echo "$revert" | cut -c1-12)
jq -e --arg b "$b" '.groups[0].baseline == $b' "$results/ab.json" >/dev/null 2>&1 &&
	pass "the report's baseline is the first ref ($b)" ||
	fail "baseline: $(jq -c '.groups[0].baseline' "$results/ab.json" 2>&1 | head -c 200)"
"$wblab" show --json "$run" >"$results/ab-show.json"
jq -e --arg b "$b" --arg p "$p" '
	([.kernels[] | select(.kernel == $b)][0].figures["reclaim-wr-direct"].mean // 0) == 0 and
	([.kernels[] | select(.kernel == $p)][0].figures["reclaim-wr-direct"].mean // 0) > 0' \
	"$results/ab-show.json" >/dev/null 2>&1 &&
	pass "reclaim-wr-direct: 0 pages on the ref before the revert, > 0 on the revert" ||
	fail "known answer: $(jq -c '[.kernels[] | {kernel, d: .figures["reclaim-wr-direct"]}]' "$results/ab-show.json" 2>&1 | head -c 400)"

# 2. Uncommitted changes: built as a snapshot without --ref, named with it.
git -C "$tree" checkout -q "$before"
f=Documentation/admin-guide/sysctl/vm.rst
echo ".. wblab e2e-tree: an uncommitted line" >>"$tree/$f"
"$wblab" run --tree "$tree" --ref HEAD --topology none --workload noop \
	--results "$results/dirty-ref" >"$results/dirty-ref.log" 2>&1
grep -q 'uncommitted changes; they are in none of the refs' "$results/dirty-ref.log" &&
	pass "--ref on a dirty tree: the changes are named, not dropped silently" ||
	fail "dirty --ref: $(tail -3 "$results/dirty-ref.log")"
"$wblab" run --tree "$tree" --topology none --workload noop \
	--results "$results/dirty" >"$results/dirty.log" 2>&1
rc=$?
snap=$(sed -n 's/.*uncommitted changes, as commit \([0-9a-f]*\).*/\1/p' "$results/dirty.log")
[ $rc -eq 0 ] && [ -n "$snap" ] && git -C "$tree" diff --quiet "$before" "$snap" -- "$f"; same=$?
[ $rc -eq 0 ] && [ -n "$snap" ] && [ $same -ne 0 ] &&
	[ "$(git -C "$tree" rev-parse HEAD)" = "$before" ] && ! git -C "$tree" diff --quiet -- "$f" &&
	[ -z "$(git -C "$tree" stash list)" ] &&
	pass "no --ref on a dirty tree: HEAD with the changes built as $snap; tree, index and stash untouched" ||
	fail "dirty tree: exit $rc, snapshot '$snap', $(tail -3 "$results/dirty.log")"
git -C "$tree" checkout -q -- "$f"
git -C "$tree" checkout -q "$head"

echo "# $checks checks, $fails failed (results in $results)"
[ $checks -gt 0 ] && [ $fails -eq 0 ]
