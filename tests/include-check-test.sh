#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015 # ok and no always succeed
# tools/include-check's own checks, on small trees made here (sources,
# objects built with cc, a floors file): the floors are enforced, in the
# include graph and in the link graph, and the shipped tree passes. Run by
# `make check-unit` (tests/run-unit.sh).
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/wblab-inccheck.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
bad=0
ran=0
ok() { echo "ok   - $*"; ran=$((ran + 1)); }
no() { echo "FAIL - $*"; bad=1; ran=$((ran + 1)); }

# tree NAME: an empty tree with floors "top" over "low" (and "side" beside top).
tree() {
	t=$tmp/$1
	mkdir -p "$t/src/top" "$t/src/low" "$t/src/side" "$t/build/src/top" \
		"$t/build/src/low" "$t/build/src/side"
	printf 'Floors:\n\n    floor: top side\n    floor: low\n' >"$t/floors.md"
}

# put TREE FILE TEXT: a source file, and its object when it is a .c.
put() {
	printf '%s\n' "$3" >"$tmp/$1/src/$2"
	case $2 in
	*.c) cc -c -I"$tmp/$1/src" -o "$tmp/$1/build/src/${2%.c}.o" \
		"$tmp/$1/src/$2" || no "cc $2" ;;
	esac
}

# check TREE: include-check on it, output in $tmp/out; its exit status.
check() {
	"$top/tools/include-check" --src "$tmp/$1/src" --build "$tmp/$1/build" \
		--floors "$tmp/$1/floors.md" >"$tmp/out" 2>&1
}

base() {
	tree "$1"
	put "$1" low/l.h 'int low(void);'
	put "$1" low/l.c '#include "low/l.h"
int low(void) { return 1; }'
	put "$1" top/t.h 'int top(void);'
	put "$1" top/t.c '#include "top/t.h"
#include "low/l.h"
int top(void) { return low(); }'
	put "$1" side/s.h 'int side(void);'
	put "$1" side/s.c '#include "side/s.h"
#include "low/l.h"
int side(void) { return low(); }'
}

base down
check down && grep -q "every arrow down" "$tmp/out" &&
	ok "arrows down the floors pass" || no "a good tree fails: $(cat "$tmp/out")"

# low includes top's header and top nothing of low's: no cycle, which
# is all the check saw before the floors, but an arrow up.
tree up
put up top/t.h 'int top(void);'
put up top/t.c '#include "top/t.h"
int top(void) { return 1; }'
put up low/u.c '#include "top/t.h"
int lowup(void) { return 0; }'
check up
[ $? -eq 1 ] && grep -q "floor: include arrow low -> top goes up (low/u.c includes top/t.h): low is on floor 2, top on 1" "$tmp/out" &&
	! grep -q "cycle" "$tmp/out" &&
	ok "an include arrow up with no cycle fails, naming the file" || no "arrow up: $(cat "$tmp/out")"

base sideways
put sideways side/x.c '#include "top/t.h"
int sidex(void) { return 0; }'
check sideways
[ $? -eq 1 ] && grep -q "floor: include arrow side -> top goes sideways" "$tmp/out" &&
	ok "an arrow between folders of one floor fails" || no "sideways: $(cat "$tmp/out")"

# A call up through a header of low's own: no include arrow up, a link one.
base link
put link low/c.h 'int top(void);'
put link low/c.c '#include "low/c.h"
int lowcall(void) { return top(); }'
check link
[ $? -eq 1 ] && grep -q "floor: link arrow low -> top goes up (low/c uses top)" "$tmp/out" &&
	! grep -q "include arrow" "$tmp/out" &&
	ok "a call up seen only by the linker fails" || no "link up: $(cat "$tmp/out")"

base nofloor
mkdir -p "$tmp/nofloor/src/extra" "$tmp/nofloor/build/src/extra"
put nofloor extra/e.c '#include "low/l.h"
int extra(void) { return low(); }'
check nofloor
[ $? -eq 1 ] && grep -q "floor: extra is on no floor of" "$tmp/out" &&
	ok "a folder on no floor fails" || no "no floor: $(cat "$tmp/out")"

base nofile
printf 'no floors here\n' >"$tmp/nofile/floors.md"
check nofile
[ $? -eq 1 ] && grep -q "declares no floors" "$tmp/out" &&
	ok "a floors file without floors fails" || no "no floors: $(cat "$tmp/out")"

# The shipped tree, on its own objects (make include-check's run).
if [ -d "$top/build/src" ]; then
	(cd "$top" && tools/include-check) >"$tmp/out" 2>&1 &&
		ok "the shipped tree stands on docs/design.md's floors" ||
		no "the shipped tree: $(cat "$tmp/out")"
fi

[ $ran -gt 0 ] || no "no check ran"
exit $bad
