#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tools/same-output.sh [BASE]: does this checkout behave as BASE (default
# main) does? For a change that must not change behaviour (a reshaping, a
# helper shared instead of copied), built from both trees and diffed:
#
#   plans      every shipped topology x workload x role's guest plan, and
#              every spec as loaded (build/tests/plan-dump, each tree with
#              its own specs)
#   matrices   wblab matrix show --json of every lab/matrices spec
#   console    wblab parse-console --json over the shared corpus
#              ($WBLAB_CORPUS, default ../shared/corpus/console) and
#              tests/data/console
#   reports    wblab report of each tests/data/report run, and of the two
#              A/A runs together, as mail, json and html (the mail's
#              "wblab VERSION" left out: BASE's archive has no git, so
#              its build says "unknown")
#   reparse    wblab reparse of a copy of every cell of captured files in
#              tests/data (collect, io, stack, cell-smoke): cell.json as
#              written (the time of the reparse left out)
#
# BASE is exported with git archive and built once under
# $TMPDIR/wblab-same-output/<commit>. Exit 0 when all is identical, 1 with
# the diff otherwise, 2 when something could not be built or run.
# SAME_OUTPUT_SKIP="reparse ..." leaves parts out (say so when you do).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-main}
corpus=${WBLAB_CORPUS:-$top/../shared/corpus/console}
work=${TMPDIR:-/tmp}/wblab-same-output
skip=${SAME_OUTPUT_SKIP:-}

die() {
	echo "same-output: $*" >&2
	exit 2
}

sha=$(git -C "$top" rev-parse --verify -q "$base^{commit}") ||
	die "no commit $base"
[ -d "$corpus/logs" ] || die "no corpus at $corpus/logs (set WBLAB_CORPUS)"
bdir=$work/base-$sha
if [ ! -x "$bdir/wblab" ] || [ ! -x "$bdir/build/tests/plan-dump" ]; then
	rm -rf "$bdir"
	mkdir -p "$bdir" || die "cannot make $bdir"
	git -C "$top" archive "$sha" | tar -x -C "$bdir" || die "git archive $sha"
	nice -n 10 make -C "$bdir" -s -j2 wblab build/tests/plan-dump \
		>"$bdir.log" 2>&1 || die "cannot build $base (see $bdir.log)"
fi
nice -n 10 make -C "$top" -s -j2 wblab build/tests/plan-dump >/dev/null ||
	die "cannot build $top"

skipped() {
	case " $skip " in *" $1 "*) return 0 ;; esac
	return 1
}

# The reparse input: a run of copies of the captured cells, with an empty
# cell.json and console.log where the capture has none.
make_cells() {
	mkdir -p "$1/cells"
	ids=
	for d in $(cd "$top/tests/data" &&
		find collect io stack cell-smoke -type f ! -name '*.md' \
			! -name '*.py' -exec dirname {} \; | sort -u); do
		id=$(echo "$d" | tr / -)
		cp -r "$top/tests/data/$d" "$1/cells/$id"
		[ -f "$1/cells/$id/cell.json" ] || echo '{}' >"$1/cells/$id/cell.json"
		[ -f "$1/cells/$id/console.log" ] || : >"$1/cells/$id/console.log"
		ids="$ids${ids:+,}{\"id\":\"$id\",\"dir\":\"cells/$id\"}"
	done
	echo "{\"cells\":[$ids]}" >"$1/run.json"
}

# outputs TREE OUT: everything TREE's wblab makes of the same inputs.
outputs() {
	t=$1
	o=$2
	rm -rf "$o"
	mkdir -p "$o"
	# From inside TREE: specs are looked up in ./topologies first.
	(cd "$t" && WBLAB_HOME=$t "$t/build/tests/plan-dump") >"$o/plans.txt" 2>&1 ||
		echo "plan-dump failed: $?" >>"$o/plans.txt"
	for m in "$t"/lab/matrices/*.yaml; do
		(cd "$t" && ./wblab matrix show --json "$m") >>"$o/matrices.json" 2>&1
	done
	"$t/wblab" parse-console --json "$corpus"/logs/* \
		"$top"/tests/data/console/*.log >"$o/console.json" 2>&1
	r=$top/tests/data/report
	for run in "$r/ab" "$r/deadlock" "$r"/aa/* "$r/aa/*"; do
		name=$(echo "${run#"$r"/}" | tr '/*' '-x')
		for fmt in mail json html; do
			# shellcheck disable=SC2086 # the A/A glob is meant
			"$t/wblab" report --format $fmt $run 2>&1 |
				sed -e 's|wblab-plot-[A-Za-z0-9]*|wblab-plot-X|g' \
					-e 's|; wblab [0-9a-f]*\(-dirty\)*$|; wblab (version)|' \
					-e 's|; wblab unknown$|; wblab (version)|' \
					>"$o/report-$name.$fmt"
		done
	done
	if ! skipped reparse; then
		make_cells "$o/run"
		"$t/wblab" reparse "$o/run" >"$o/reparse.txt" 2>&1
		for c in "$o"/run/cells/*/cell.json; do
			echo "## $c"
			cat "$c"
		done | sed -e "s|$o/||" -e 's/"at":"[^"]*"/"at":"(when)"/' \
			>"$o/reparse-cells.json"
		rm -rf "$o/run"
	fi
}

outputs "$bdir" "$work/out-base"
outputs "$top" "$work/out-here"
if diff -ru "$work/out-base" "$work/out-here"; then
	n=$(grep -c '^## plan' "$work/out-here/plans.txt")
	echo "same-output: identical to $base ($sha): $n plans," \
		"$(find "$corpus/logs" -type f | wc -l) corpus logs," \
		"$(find "$work/out-here" -name "report-*" | wc -l) reports${skip:+, skipped: $skip}"
	exit 0
fi
echo "same-output: differs from $base ($sha)" >&2
exit 1
