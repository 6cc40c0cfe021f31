# Shared helpers for the end-to-end test scripts (sourced, POSIX sh).
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export WBLAB_HOME="$top"
R=${WBLAB_E2E_DIR:-$(mktemp -d /tmp/wblab-e2e.XXXXXX)}
failures=0
passes=0

pass() { passes=$((passes + 1)); echo "ok   - $*"; }
fail() { failures=$((failures + 1)); echo "FAIL - $*"; }

# check DESC COMMAND...: run the command, pass or fail on its status.
check() {
	desc=$1
	shift
	if "$@" >/dev/null 2>&1; then pass "$desc"; else fail "$desc"; fi
}

# jcheck FILE FILTER DESC: jq -e FILTER FILE must be true.
jcheck() {
	if jq -e "$2" "$1" >/dev/null 2>&1; then
		pass "$3"
	else
		# A cell's outcome and reason say why, in CI's log too.
		fail "$3 ($1: $2 is $(jq -c "$2" "$1" 2>&1 | head -c 200)$(jq -r \
			'select(.outcome?) | "; outcome \(.outcome): \(.outcome_reason)"' \
			"$1" 2>/dev/null | head -c 300))"
	fi
}

# The one cell directory of the newest run under a results dir.
cell_dir() {
	ls -d "$1"/*/cells/*/ 2>/dev/null | head -n 1
}

# The helpers below run in subshells, ( ... ), so their variables never
# clobber the caller's (POSIX sh has no local).

# run_ids DIR...: the ids of the runs under results dirs (DIR/<run-id>/,
# docs/results.md).
run_ids() (
	for d in "$@"; do
		for r in "$d"/*/; do
			id=$(basename "$r")
			case $id in
			[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9]-*)
				[ -d "$r" ] && echo "$id" ;;
			esac
		done
	done
)

# run_objects LIST DIR...: the libvirt objects `virsh LIST --all --name`
# names (list: domains, net-list: networks) that belong to the runs under
# the results dirs: wblab-<run-id>-<cell>[-net]. Only those, never another
# run's: a suite running beside this one has its own. Fails if virsh does.
run_objects() (
	what=$1
	shift
	ids=$(run_ids "$@")
	names=$(virsh -c qemu:///system "$what" --all --name 2>/dev/null) || exit 1
	printf '%s\n' "$names" | while read -r n; do
		for id in $ids; do
			case $n in "wblab-$id-"*) echo "$n" ;; esac
		done
	done
)

# none_left LIST DIR...: no domain (list) or network (net-list) of the
# runs under the results dirs is left. A guest that powered itself off is
# torn down by libvirt a moment after its cell ends: give that up to 20 s.
# No run under the dirs fails: there would be nothing to look for.
none_left() (
	what=$1
	shift
	[ -n "$(run_ids "$@")" ] || exit 1
	for _ in $(seq 1 40); do
		left=$(run_objects "$what" "$@") && [ -z "$left" ] && exit 0
		sleep 0.5
	done
	exit 1
)
no_domains_left() { none_left list "$@"; }
no_networks_left() { none_left net-list "$@"; }

# scenarios ALL [NAME...]: the scenarios a suite runs, in $want: the names
# given, or every one of ALL (space-separated) with none. An unknown name
# is exit 2 naming the known ones, before anything runs: it would match no
# `wants` and run nothing.
scenarios() {
	all=$1
	shift
	want=${*:-$all}
	for s in $want; do
		case " $all " in
		*" $s "*) ;;
		*)
			echo "unknown scenario '$s'; known scenarios: $all" >&2
			# The results dir mktemp made for nothing.
			[ -n "${WBLAB_E2E_DIR:-}" ] || rmdir "$R" 2>/dev/null
			exit 2
			;;
		esac
	done
}

# wants NAME: the suite runs scenario NAME (scenarios set $want).
wants() { case " $want " in *" $1 "*) return 0 ;; esac; return 1; }

# The suite's status: a failed check, or no check at all (a suite that
# checked nothing showed nothing), fails it.
finish() {
	echo "# $passes passed, $failures failed (results kept in $R)"
	if [ $((passes + failures)) -eq 0 ]; then
		echo "FAIL - no check ran"
		return 1
	fi
	[ "$failures" -eq 0 ]
}
