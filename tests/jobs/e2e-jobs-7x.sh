#!/bin/sh
# The jobs on a 7.x tree (issue 42 item 5; run by tests/e2e-slow.sh,
# `make check-slow`):
#  1. a git tree from the 7.2 source: a base commit and 16 small commits,
#     the 11th the planted 10 ms sleep in every memcg reclaim
#     (tests/jobs/make-test-tree.sh --version 7.2; why that change:
#     tests/jobs/7x-memcg-reclaim-sleep.patch);
#  2. wblab validate on the base (--config-from 7.2: the first build of the
#     tree starts from 7.2's object tree) of the sleep as a patch exits 1
#     with workload-time starred; of a harmless comment patch exits 0
#     (`same` within 50%) or 4 (still unknown at --max-reps: a time that
#     varies 3x between cells on a loaded TCG host), never 1;
#  3. wblab bisect on workload-time with dirty-flood on ext4-disk names the
#     planted commit, in at most ceil(log2 17) + 1 = 6 kernel builds.
# Prints each step's wall time, builds and the load average. Kernels,
# cells and the tree are real; kernels and the tree are cached, cells are
# not. Environment: JOBS_TREE (default /var/lib/wblab/jobs-test-7.2/linux),
# JOBS_RESULTS (default a fresh directory under /var/lib/wblab/jobs-test-7.2),
# JOBS_CONFIG_FROM (default 7.2: the lab kernel whose config the tree's
# kernels take and whose built object tree the tree's first build starts
# from; 7.2-fi is 7.2's config plus fault injection, inactive unless a
# workload arms it).
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
wblab=$here/wblab
tree=${JOBS_TREE:-/var/lib/wblab/jobs-test-7.2/linux}
results=${JOBS_RESULTS:-/var/lib/wblab/jobs-test-7.2/results-$(date +%Y%m%d-%H%M%S)}
matrix=$here/tests/jobs/dirty-ext4-7x.yaml
planted=$here/tests/jobs/7x-memcg-reclaim-sleep.patch
config=${JOBS_CONFIG_FROM:-7.2}
fails=0
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
now() { date +%s; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
mkdir -p "$results"
out=$results/out
mkdir -p "$out"

t0=$(now)
"$here/tests/jobs/make-test-tree.sh" --version 7.2 "$tree" >"$out/tree" ||
	{ fail "test tree"; exit 1; }
base=$(sed -n 's/^base //p' "$out/tree")
head=$(sed -n 's/^head //p' "$out/tree")
want=$(git -C "$tree" log --format=%H \
	--grep='^mm: vmscan: let memcg reclaim wait 10 ms for the flushers$' "$base..$head")
echo "config from $config"
echo "tree $tree: base $base head $head, the planted commit is $want [$(($(now) - t0)) s]"

# 2. validate
v() { # name patch
	name=$1
	shift
	t0=$(now)
	echo "validate $name: start at load $(load)"
	"$wblab" validate --tree "$tree" --base "$base" --config-from "$config" "$@" \
		--matrix "$matrix" --results "$results" >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	dt=$(($(now) - t0))
	sed 's/^/    /' "$out/$name.out"
	grep -E 'built in|started from|object tree' "$out/$name.err" | sed 's/^/    /'
	echo "validate $name: exit $rc in $dt s, load $(load)"
}
v sleep --patch "$planted"
[ "$rc" = 1 ] && pass "validate sleep: exit 1" ||
	{ fail "validate sleep: exit $rc (want 1)"; tail -20 "$out/sleep.err"; }
grep -q '^  \* different workload-time' "$out/sleep.out" &&
	pass "validate sleep: workload-time starred" ||
	fail "validate sleep: workload-time not starred"
v harmless --patch "$here/tests/jobs/harmless.patch"
case $rc in
0) grep -q 'same *workload-time' "$out/harmless.out" &&
	pass "validate harmless: exit 0, workload-time same" ||
	fail "validate harmless: exit 0 without workload-time same" ;;
4) # Unknown must mean the cells ran out, not the host: no infra-error.
	grep -q '; 0 infra-error' "$out/harmless.out" &&
		pass "validate harmless: exit 4 (unknown at --max-reps, no regression)" ||
		fail "validate harmless: exit 4 with infra-error cells left out" ;;
*) fail "validate harmless: exit $rc (want 0 or 4)"; tail -20 "$out/harmless.err" ;;
esac

# 3. bisect
t0=$(now)
echo "bisect: start at load $(load)"
"$wblab" bisect --tree "$tree" --good "$base" --bad "$head" --matrix "$matrix" \
	--config-from "$config" --metric workload-time --results "$results" \
	>"$out/bisect.out" 2>"$out/bisect.err"
rc=$?
dt=$(($(now) - t0))
builds=$(sed -n 's/.* tested, \([0-9]*\) kernel builds.*/\1/p' "$out/bisect.out")
cat "$out/bisect.out"
echo "bisect: exit $rc in $dt s, $builds kernel builds, load $(load)"
if [ $rc = 0 ] && grep -q "^first bad commit: $want " "$out/bisect.out"; then
	pass "bisect names $want in $dt s, $builds kernel builds"
else
	fail "bisect: rc=$rc in $dt s (want $want)"
	tail -30 "$out/bisect.err"
fi
if [ -n "$builds" ] && [ "$builds" -le 6 ]; then
	pass "bisect: $builds builds <= ceil(log2 17) + 1 = 6"
else
	fail "bisect: '$builds' builds > 6"
fi

echo "results in $results"
[ $fails = 0 ]
