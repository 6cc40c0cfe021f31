# Reproducer bundles through wblab: the smoke cell's bundle rerun, and a
# bundle whose kernel is not the lab's refused. Sourced by tests/e2e.sh
# (the by-hand way, without wblab, is in topologies.sh: it needs the seed
# stack's two guests).

c=$(cell_dir "$R/smoke")
b="$R/bundle-smoke"
./wblab repro "$c" -o "$b" >"$R/bundle-smoke.log" 2>&1
check "wblab repro bundles the smoke cell" test -s "$b/bundle.json" -a -x "$b/qemu.sh" -a -x "$b/run-by-hand.sh"
jcheck "$b/bundle.json" '.signature != null and .kernel.hash == "'"$(jq -r .kernel.hash "$c/cell.json")"'"' \
	"bundle.json names the cell's kernel by its cache key"
./wblab run --repro "$b" -n 1 --results "$R/rerun-smoke" >"$R/rerun-smoke.out" 2>"$R/rerun-smoke.err"
rc=$?
[ $rc -eq 0 ] && grep -q '^the signature came back in 1 of 1 cells$' "$R/rerun-smoke.out" &&
	pass "run --repro: the ok cell's signature came back in 1 of 1" ||
	fail "run --repro: exit $rc, $(tail -n 3 "$R/rerun-smoke.out" "$R/rerun-smoke.err")"
cp -r "$b" "$b-other"
jq '.kernel.hash = "0000000000000000000000000000000000000000000000000000000000000000"' \
	"$b/bundle.json" >"$b-other/bundle.json"
./wblab run --repro "$b-other" -n 1 --results "$R/rerun-other" >/dev/null 2>"$R/rerun-other.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'cache key' "$R/rerun-other.err" && [ ! -e "$R/rerun-other" ] &&
	pass "run --repro refuses a bundle of another build of the kernel (exit 2, nothing run)" ||
	fail "run --repro, other kernel: exit $rc, $(cat "$R/rerun-other.err")"
