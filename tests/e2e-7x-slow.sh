#!/bin/sh
# The 7.x kernels end to end (issue 42; docs/kernels.md "The 7.x
# kernels"), on the lab's cache: a second run takes minutes, not hours.
#  1. wblab kernel build debian-7.2 7.2 7.3-rc (sid and experimental
#     through the private apt; the host's apt untouched);
#  2. a copy of debian-7.2 pinned to a version sid does not carry fails
#     with exit 3, names the version sid carries, and leaves kernels/,
#     downloads/ and src/ as they were;
#  3. the smoke matrices (lab/matrices/smoke-7.x.yaml, smoke-7.x-slow.yaml,
#     smoke-7.x-swap.yaml):
#     every shipped topology's smoke (or noop) cell on 7.2 and on
#     debian-7.2, all ok.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
wblab=$here/wblab
cache=${WBLAB_CACHE:-/var/lib/wblab/cache}
tmp=$(mktemp -d /tmp/wblab-e2e-7x.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0

pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

[ -x "$wblab" ] || { echo "$wblab not built: run make" >&2; exit 1; }

# 1. The three kernels (or find them cached).
for k in debian-7.2 7.2 7.3-rc; do
	t0=$(date +%s)
	if "$wblab" kernel build "$k" >"$tmp/$k.out" 2>"$tmp/$k.err"; then
		pass "kernel build $k: $(cat "$tmp/$k.out") [$(($(date +%s) - t0)) s]"
	else
		fail "kernel build $k (exit $?)"; tail -20 "$tmp/$k.err"
	fi
done

# 2. A pinned version sid no longer carries: exit 3, a clear message,
#    the cache as it was.
home=$tmp/home
mkdir -p "$home/lab/kernels"
sed 's/^version: .*/version: 7.2.0-0/' "$here/lab/kernels/debian-7.2.yaml" \
	>"$home/lab/kernels/e2e-gone.yaml"
ls -a "$cache/kernels" "$cache/downloads" "$cache/src" >"$tmp/before" 2>/dev/null
WBLAB_HOME=$home "$wblab" kernel build e2e-gone >"$tmp/gone.out" 2>"$tmp/gone.err"
rc=$?
ls -a "$cache/kernels" "$cache/downloads" "$cache/src" >"$tmp/after" 2>/dev/null
if [ $rc = 3 ] && grep -q "no longer carries linux-image-.* 7.2.0-0; it carries" "$tmp/gone.err" &&
	grep -q "wblab kernel list --available" "$tmp/gone.err"; then
	pass "a gone version: exit 3, names what sid carries"
else
	fail "a gone version: exit $rc"; cat "$tmp/gone.err"
fi
cmp -s "$tmp/before" "$tmp/after" && pass "a gone version: the cache as it was" ||
	{ fail "a gone version changed the cache"; diff "$tmp/before" "$tmp/after"; }

# 3. Every topology boots and works on 7.2 and debian-7.2: smoke where
#    it has a mount (22 + 2 cells), noop on the swap-only ones (10 cells).
for m in smoke-7.x:22 smoke-7.x-slow:2 smoke-7.x-swap:10; do
	name=${m%:*}; want=${m#*:}
	"$wblab" matrix run "$name" --jobs 1 --progress plain --results "$tmp/res" \
		--json >"$tmp/$name.json" 2>"$tmp/$name.log"
	rc=$?
	n=$(jq '[.cells[] | select(.outcome == "ok")] | length' "$tmp/$name.json" 2>/dev/null)
	if [ $rc = 0 ] && [ "${n:-0}" = "$want" ]; then
		pass "$name: $want cells ok"
	else
		fail "$name: exit $rc, ${n:-0} of $want ok"
		jq -r '.cells[] | select(.outcome != "ok") | "\(.id) \(.outcome)"' "$tmp/$name.json" 2>/dev/null
	fi
done

if [ $fails = 0 ]; then
	echo "e2e-7x-slow: all passed"
else
	echo "e2e-7x-slow: $fails failed"
	exit 1
fi
