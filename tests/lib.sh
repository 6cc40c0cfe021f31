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
		fail "$3 ($1: $2 is $(jq -c "$2" "$1" 2>&1 | head -c 200))"
	fi
}

# The one cell directory of the newest run under a results dir.
cell_dir() {
	ls -d "$1"/*/cells/*/ 2>/dev/null | head -n 1
}

# A guest that powered itself off is torn down by libvirt a moment after
# its cell ends: give that up to 20 s.
no_domains_left() {
	for i in $(seq 1 40); do
		virsh -c qemu:///system list --all --name 2>/dev/null | grep -q '^wblab-' || return 0
		sleep 0.5
	done
	return 1
}

finish() {
	echo "# $passes passed, $failures failed (results kept in $R)"
	[ "$failures" -eq 0 ]
}
