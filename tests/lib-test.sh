#!/bin/sh
# tests/lib.sh's own checks, no guest: a suite that ran no check fails, and
# an unknown scenario name is refused before anything runs. Run by
# `make check-unit` (tests/run-unit.sh).
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d /tmp/wblab-libtest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export WBLAB_E2E_DIR="$tmp"
bad=0
ok() { echo "ok   - $*"; }
no() { echo "FAIL - $*"; bad=1; }

# suite BODY: a suite sourcing lib.sh, its $0 in tests/ as the real ones'.
suite() { sh -c ". tests/lib.sh; $1" tests/lib-test.sh >"$tmp/out" 2>&1; }

suite 'finish' && no "a suite with no check passes" || ok "a suite with no check fails"
grep -q "no check ran" "$tmp/out" && ok "and says no check ran" || no "no message: $(cat "$tmp/out")"
suite 'pass one; finish' && ok "a suite whose checks passed passes" || no "a passing suite fails"
suite 'pass one; fail two; finish' && no "a suite with a failed check passes" ||
	ok "a suite with a failed check fails"

suite 'scenarios "a b c"; echo "want=$want"' && grep -q "^want=a b c$" "$tmp/out" &&
	ok "no scenario named: all of them" || no "scenarios with no name: $(cat "$tmp/out")"
suite 'scenarios "a b c" c a; wants a && wants c && ! wants b' &&
	ok "the scenarios named, only those" || no "scenarios a c: $(cat "$tmp/out")"
suite 'scenarios "a b c" a nope; echo ran'
rc=$?
[ $rc -eq 2 ] && grep -q "unknown scenario 'nope'; known scenarios: a b c" "$tmp/out" &&
	! grep -q "^ran$" "$tmp/out" && ok "an unknown scenario is exit 2 naming the known ones" ||
	no "unknown scenario: exit $rc, $(cat "$tmp/out")"

# The real suite: refused at once, no guest booted (that would take minutes).
t0=$(date +%s)
timeout 20 tests/e2e-matrix.sh no-such-scenario >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "unknown scenario 'no-such-scenario'" "$tmp/out" &&
	ok "tests/e2e-matrix.sh no-such-scenario: exit 2 in $(($(date +%s) - t0)) s" ||
	no "tests/e2e-matrix.sh no-such-scenario: exit $rc, $(head -c 300 "$tmp/out")"
exit $bad
