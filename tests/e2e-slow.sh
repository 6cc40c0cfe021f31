#!/bin/sh
# Slow end-to-end tests: kernels built from source (tens of minutes on a
# cold cache). Uses the lab's cache (WBLAB_CACHE or /var/lib/wblab/cache),
# so a second run takes seconds.
#  1. wblab kernel build 6.1 and 6.1-direct-writeback;
#  2. asking again for 6.1-direct-writeback is a cache hit in < 2 s;
#  3. the two kernels' release strings differ and name their variants;
#  4. wblab kernel build 6.1-seed-patch fails, names the hunks of
#     mm/vmscan.c that do not apply, and adds nothing to the cache;
#  5. a fragment asking for an option olddefconfig drops fails the build,
#     naming the option (uses a scratch wblab home; about a minute);
#  6. the jobs: bisect and validate on a git tree of the 6.1 source
#     (tests/jobs/e2e-jobs.sh: 6 kernel builds and a few dozen cells), and
#     the nightly's whole path (tests/jobs/e2e-nightly.sh), and wblab
#     run --tree on that tree (tests/jobs/e2e-tree.sh); the same jobs on
#     a git tree of the 7.2 source (tests/jobs/e2e-jobs-7x.sh);
#  8. the 7.x kernels and every topology's smoke cell on 7.2 and
#     debian-7.2 (tests/e2e-7x-slow.sh).
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
wblab=$here/wblab
cache=${WBLAB_CACHE:-/var/lib/wblab/cache}
tmp=$(mktemp -d /tmp/wblab-e2e-slow.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0

pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
now() { date +%s.%N; }

[ -x "$wblab" ] || { echo "$wblab not built: run make" >&2; exit 1; }

# 1. Build both (or find them cached).
for k in 6.1 6.1-direct-writeback; do
	t0=$(now)
	if "$wblab" kernel build "$k" >"$tmp/$k.out" 2>"$tmp/$k.err"; then
		pass "kernel build $k: $(cat "$tmp/$k.out") [$(echo "$(now) - $t0" | bc) s]"
	else
		fail "kernel build $k"; tail -20 "$tmp/$k.err"
	fi
done

# 2. The second request is a cache hit, and quick.
t0=$(now)
"$wblab" kernel build 6.1-direct-writeback >"$tmp/hit.out" 2>&1
rc=$?
dt=$(echo "$(now) - $t0" | bc)
if [ $rc = 0 ] && grep -q " cached " "$tmp/hit.out" && [ "$(echo "$dt < 2" | bc)" = 1 ]; then
	pass "6.1-direct-writeback again: cache hit in $dt s"
else
	fail "6.1-direct-writeback again: rc=$rc in $dt s: $(cat "$tmp/hit.out")"
fi

# 3. Release strings: from kernel.json and from the bzImage itself.
version() { "$wblab" kernel show "$1" | sed -n 's/^version: *//p'; }
bzimage() { "$wblab" kernel show "$1" | sed -n 's/^bzImage: *//p'; }
va=$(version 6.1)
vb=$(version 6.1-direct-writeback)
case "$va/$vb" in
*-wblab/*-wblab-dw) pass "versions $va and $vb" ;;
*) fail "versions '$va' and '$vb' (want ...-wblab and ...-wblab-dw)" ;;
esac
ba=$(file -b "$(bzimage 6.1)" | sed -n 's/.*version \([^ ]*\).*/\1/p')
bb=$(file -b "$(bzimage 6.1-direct-writeback)" | sed -n 's/.*version \([^ ]*\).*/\1/p')
if [ -n "$ba" ] && [ "$ba" = "$va" ] && [ "$bb" = "$vb" ] && [ "$ba" != "$bb" ]; then
	pass "bzImage versions $ba and $bb"
else
	fail "bzImage versions '$ba' '$bb' vs kernel.json '$va' '$vb'"
fi

# 4. The seed patch does not apply to 6.1: clear message, nothing cached.
ls "$cache/kernels" >"$tmp/before" 2>/dev/null
"$wblab" kernel build 6.1-seed-patch >"$tmp/seed.out" 2>"$tmp/seed.err"
rc=$?
ls "$cache/kernels" >"$tmp/after" 2>/dev/null
if [ $rc != 0 ] && grep -q "mm/vmscan.c: hunk #1 FAILED at line 1826" "$tmp/seed.err" &&
   grep -q "seed-disallow-direct-reclaim-writeback.patch does not apply" "$tmp/seed.err"; then
	pass "6.1-seed-patch fails (rc=$rc) naming the hunks:"; sed 's/^/    /' "$tmp/seed.err"
else
	fail "6.1-seed-patch: rc=$rc"; cat "$tmp/seed.err"
fi
# (Other kernels may come and go meanwhile: look only for this one's traces.)
if ! grep -q '^6.1-seed-patch-' "$tmp/after" && [ ! -e "$cache/build/6.1-seed-patch" ] &&
   ! ls -d "$cache"/build/.check-6.1-seed-patch.* >/dev/null 2>&1; then
	pass "6.1-seed-patch left the cache as it was"
else
	fail "6.1-seed-patch left traces in the cache:"; diff "$tmp/before" "$tmp/after"
fi

# 5. A dropped config option fails the build by name.
home=$tmp/home
mkdir -p "$home/lab/kernels" "$home/lab/configs" "$home/lab/patches"
cp "$here/lab/configs/wblab.config" "$home/lab/configs/"
printf '# CONFIG_MD is not set\nCONFIG_MD_RAID1=y\n' >"$home/lab/configs/bad.config"
cat >"$home/lab/kernels/e2e-badconfig.yaml" <<YAML
source:
  package: linux-source-6.1
config:
  base: defconfig
  fragments: [kvm_guest.config, wblab.config, bad.config]
localversion: -e2e
YAML
WBLAB_HOME=$home "$wblab" kernel build e2e-badconfig >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
if [ $rc != 0 ] && grep -q "CONFIG_MD_RAID1=y (.*bad.config:2)" "$tmp/bad.err"; then
	pass "dropped option fails the build:"; grep -A3 "did not survive" "$tmp/bad.err" | sed 's/^/    /'
else
	fail "dropped option: rc=$rc"; cat "$tmp/bad.err"
fi
ls -d "$cache"/kernels/e2e-badconfig-* >/dev/null 2>&1 && fail "e2e-badconfig reached the cache"
rm -rf "$cache/build/e2e-badconfig" "$cache/build/e2e-badconfig.lock"

# 6. The jobs: bisect and validate on a git tree of the 6.1 source.
if "$here/tests/jobs/e2e-jobs.sh"; then
	pass "jobs (tests/jobs/e2e-jobs.sh)"
else
	fail "jobs (tests/jobs/e2e-jobs.sh)"
fi

# 6a. The jobs on a git tree of the 7.2 source: a planted 10 ms sleep in
#     memcg reclaim validated and bisected.
if "$here/tests/jobs/e2e-jobs-7x.sh"; then
	pass "jobs on 7.2 (tests/jobs/e2e-jobs-7x.sh)"
else
	fail "jobs on 7.2 (tests/jobs/e2e-jobs-7x.sh)"
fi

# 6b. The nightly's whole path on that tree: nights, confirmation, mail,
#     git bisect run, --resume after SIGKILL.
if "$here/tests/jobs/e2e-nightly.sh"; then
	pass "nightly (tests/jobs/e2e-nightly.sh)"
else
	fail "nightly (tests/jobs/e2e-nightly.sh)"
fi

# 6c. wblab run --tree: the same tree as a user's own, two refs and a
#     dirty working tree (docs/quickstart.md).
if "$here/tests/jobs/e2e-tree.sh"; then
	pass "run --tree (tests/jobs/e2e-tree.sh)"
else
	fail "run --tree (tests/jobs/e2e-tree.sh)"
fi

# 7. Faults that need the lab kernel (LKDTM stack overflow in reclaim).
if "$here/tests/e2e-faults-slow.sh"; then
	pass "faults on the lab kernel (tests/e2e-faults-slow.sh)"
else
	fail "faults on the lab kernel (tests/e2e-faults-slow.sh)"
fi

# 8. The 7.x kernels: sid and experimental, every topology's smoke cell.
if "$here/tests/e2e-7x-slow.sh"; then
	pass "7.x kernels (tests/e2e-7x-slow.sh)"
else
	fail "7.x kernels (tests/e2e-7x-slow.sh)"
fi

if [ $fails = 0 ]; then
	echo "e2e-slow: all passed"
else
	echo "e2e-slow: $fails failed"
	exit 1
fi
