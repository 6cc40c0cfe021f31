# Fault injection (docs/hardening.md): each fault is one cheap cell (two
# at a time), asserting its outcome, that nothing of it is left running,
# and what it kept. Sourced by tests/e2e.sh. The agent's faults come from
# wblab.fault= on the kernel command line (src/agent/agent.c).

frun() { # frun NAME ARGS...: a run in the background into $R/f-NAME
	n=$1
	shift
	./wblab run "$@" --results "$R/f-$n" >"$R/f-$n.log" 2>&1 &
}
# No domain of this run left (other users' cells may be running).
gone() {
	id=$(basename "$(ls -d "$1"/2*/ 2>/dev/null | head -n 1)")
	[ -n "$id" ] && ! virsh -c qemu:///system list --all --name 2>/dev/null | grep -q "$id"
}
# Boot timeouts are generous: a loaded TCG host can take minutes to boot.
NOOP="--kernel debian-6.1 --topology none --workload noop --boot-timeout 600"

# 1. A kernel panic during boot; 2. the agent's last frame cut off.
frun panic $NOOP --cmdline-extra "rdinit=/nonexistent"
frun trunc $NOOP --cmdline-extra "wblab.fault=truncate"
wait
c=$(cell_dir "$R/f-panic")
jcheck "$c/cell.json" '.outcome == "boot-failed" or .outcome == "crashed"' "fault panic-at-boot: boot-failed or crashed"
jcheck "$c/cell.json" '[.events[].kind] | index("panic") != null' "fault panic-at-boot: the panic event"
check "fault panic-at-boot: console kept" grep -q "Kernel panic - not syncing" "$c/console.log"
check "fault panic-at-boot: no domain left" gone "$R/f-panic"
c=$(cell_dir "$R/f-trunc")
jcheck "$c/cell.json" '.outcome == "infra-error" and (.outcome_reason | test("ended inside a F frame"))' "fault truncated frame: infra-error with the reason"
check "fault truncated frame: no domain left" gone "$R/f-trunc"

# 3. Garbage on the channel; 4. a file the plan did not ask for.
frun garbage $NOOP --cmdline-extra "wblab.fault=garbage"
frun refuse $NOOP --cmdline-extra "wblab.fault=refuse"
wait
c=$(cell_dir "$R/f-garbage")
jcheck "$c/cell.json" '.outcome == "infra-error" and (.outcome_reason | test("malformed frame header"))' "fault garbage frames: infra-error with the reason"
check "fault garbage frames: no domain left" gone "$R/f-garbage"
c=$(cell_dir "$R/f-refuse")
jcheck "$c/cell.json" '.outcome == "ok"' "fault unasked file: the cell is still ok"
jcheck "$c/cell.json" '.channel.refused[0] | test("evil.sh .* not a file the plan asked for")' "fault unasked file: refused, with the reason"
jcheck "$c/cell.json" '.metrics.collector_errors.channel | test("evil.sh")' "fault unasked file: a collector error"
check "fault unasked file: not written" test ! -e "$c/evil.sh"

# 5. A hang mid-workload (timeout 40 s); 6. a console flood past small caps
#    (QEMU's UART moves ~30 KB/s, so the caps are lowered for the test).
frun hang --kernel debian-6.1 --topology ext4-disk --workload fault-hang --boot-timeout 600
WBLAB_CONSOLE_CAP=65536,65536 frun flood $NOOP --cmdline-extra "wblab.fault=flood:1"
wait
c=$(cell_dir "$R/f-hang")
jcheck "$c/cell.json" '.outcome == "hung"' "fault hang: hung"
# The workload's timer starts after warm-up and arm: at load 3-4 the arm
# of this debian-6.1 cell took 6.9 s (make check, 07:52), which used to
# count against the bound.
jcheck "$c/cell.json" '(.timings.total_s - .timings.boot_s - .timings.setup_s - .timings.warmup_s - .timings.arm_s) <= 40 + 10 + 5 + 5' \
	"fault hang: decided within timeout + 10 s (+5 s SysRq dumps) of the workload's start"
check "fault hang: console kept with the hung task" grep -q "blocked for more than" "$c/console.log"
check "fault hang: SysRq-w's blocked tasks on the console" grep -q "Show Blocked State" "$c/console.log"
check "fault hang: no domain left" gone "$R/f-hang"
c=$(cell_dir "$R/f-flood")
jcheck "$c/cell.json" '.outcome == "ok"' "fault console flood: ok"
jcheck "$c/cell.json" '.console_log.omitted > 0 and (.console_log.note | test("console capped"))' "fault console flood: capped with a note"
jcheck "$c/cell.json" '.metrics.collector_errors.console | test("console capped")' "fault console flood: a collector error"
check "fault console flood: head (boot) and tail (poweroff) kept" sh -c \
	"grep -q 'Linux version' '$c/console.log' && grep -q 'plan done' '$c/console.log' && grep -q 'wblab: console capped' '$c/console.log'"
check "fault console flood: file within its caps" test "$(wc -c <"$c/console.log")" -lt $((65536 * 2 + 200))

# 7. Hostile spec values never reach a shell or an option: exit 2 naming
#    file:line: field, nothing run, nothing created.
H=$R/f-home
mkdir -p "$H/lab/kernels" "$H/guests" "$H/topologies" "$H/workloads"
for d in build lab/configs lab/patches; do ln -s "$top/$d" "$H/$d"; done
cp "$top"/lab/kernels/*.yaml "$H/lab/kernels/"
cp "$top"/guests/*.yaml "$H/guests/"
cp "$top"/topologies/*.yaml "$H/topologies/"
cp "$top"/workloads/*.yaml "$H/workloads/"
pw=$R/f-pwned
printf 'source:\n  package: "linux;touch %s"\n' "$pw" >"$H/lab/kernels/evil1.yaml"
printf 'source:\n  package: linux-source-6.1\nconfig:\n  base: "$(touch %s)"\n' "$pw" >"$H/lab/kernels/evil2.yaml"
printf 'source:\n  git: "ext::sh -c touch\\ %s"\n' "$pw" >"$H/lab/kernels/evil3.yaml"
printf 'source:\n  package: linux-source-6.1\npatches: ["../../../etc/passwd"]\n' >"$H/lab/kernels/evil4.yaml"
printf 'description: x\ndisks: {count: 1, size: 1G}\nlayers:\n  - {name: "<>&\x27\\"", type: disk, index: 0}\n' >"$H/topologies/evil.yaml"
printf 'description: x\ntimeout: 10\ntimeout: 20\npre: ["true"]\nmemcg_max: "1G\\n-x"\n' >"$H/workloads/evil.yaml"
for k in evil1:2 evil2:4 evil3:2 evil4:3; do
	WBLAB_HOME=$H ./wblab run --kernel ${k%:*} --topology none --workload noop --results "$R/f-spec" 2>"$R/f-spec.err" >/dev/null
	rc=$?
	[ $rc -eq 2 ] && grep -q "${k%:*}.yaml:${k#*:}: " "$R/f-spec.err" && pass "fault hostile spec ${k%:*}: exit 2, file:line named" ||
		fail "fault hostile spec ${k%:*}: exit $rc: $(cat "$R/f-spec.err")"
done
WBLAB_HOME=$H ./wblab run --kernel debian-6.1 --topology evil --workload evil --results "$R/f-spec" 2>"$R/f-spec.err" >/dev/null
rc=$?
[ $rc -eq 2 ] && grep -q "evil.yaml:4: layers\[0\].name" "$R/f-spec.err" && grep -q "evil.yaml:3: timeout: duplicate key" "$R/f-spec.err" &&
	pass "fault hostile topology and workload: exit 2, file:line: field" || fail "fault hostile topology/workload: exit $rc: $(cat "$R/f-spec.err")"
for n in ../topologies/xfs-disk -rf "xfs-disk;id"; do
	WBLAB_HOME=$H ./wblab run --kernel debian-6.1 --topology "$n" --workload noop --results "$R/f-spec" >/dev/null 2>&1
	[ $? -eq 2 ] && pass "fault hostile name '$n': exit 2" || fail "fault hostile name '$n'"
done
check "fault hostile specs: nothing ran" test ! -e "$pw"
check "fault hostile specs: no cell recorded" test ! -d "$R/f-spec"

# 8. The results disk fills during a cell (wblab refuses to start a cell
#    with under 64 MiB free, so a filler takes the rest once the cell has
#    started): a clear error, the earlier results intact, and no record of
#    a cell without its cell.json.
F=$R/f-full
mkdir -p "$F"
if mount -t tmpfs -o size=80m tmpfs "$F"; then
	cp -a "$R/f-refuse/." "$F/"
	(cd "$F" && find . -type f ! -name '*.tmp.*' ! -name wblab.db -exec sha256sum {} + >"$R/f-full.sums")
	./wblab run $NOOP --results "$F" >"$R/f-full.log" 2>&1 &
	pid=$!
	old=$(ls -d "$F"/2*/)
	for i in $(seq 1 600); do
		for d in "$F"/2*/; do
			case " $old " in *" $d "*) continue ;; esac
			ls "$d"cells/*/plan.txt >/dev/null 2>&1 && break 2
		done
		sleep 1
	done
	dd if=/dev/zero of="$F/filler" bs=1M >/dev/null 2>&1
	wait $pid
	rc=$?
	[ $rc -ne 0 ] && pass "fault disk full: wblab run fails (exit $rc)" || fail "fault disk full: exit 0"
	check "fault disk full: the error says so" grep -qi "no space left\|disk is full" "$R/f-full.log"
	check "fault disk full: earlier results intact" sh -c "cd '$F' && sha256sum --quiet -c '$R/f-full.sums'"
	check "fault disk full: wblab.db intact" sh -c "sqlite3 '$F/wblab.db' 'pragma integrity_check' | grep -qx ok"
	bad=0
	for id in $(sqlite3 "$F/wblab.db" "select run_id || '/cells/' || id from cells" 2>/dev/null); do
		[ -f "$F/$id/cell.json" ] || bad=1
	done
	[ $bad -eq 0 ] && pass "fault disk full: wblab.db records no cell without cell.json" ||
		fail "fault disk full: wblab.db has a cell without cell.json"
	check "fault disk full: no domain left" gone "$F"
	rm -f "$F/filler"
	umount "$F"
else
	fail "fault disk full: cannot mount a tmpfs (needs root)"
fi

# 9. A corrupted kernel cache entry is found by its seal and rebuilt (a
#    private cache with a copy of debian-6.1: the shared one is in use).
C=$R/f-cache
src=$(ls -d /var/lib/wblab/cache/kernels/debian-6.1-*/ 2>/dev/null | head -n 1)
deb=$(ls /var/lib/wblab/cache/downloads/linux-image-6.1.0-*.deb 2>/dev/null | head -n 1)
if [ -n "$src" ] && [ -n "$deb" ]; then
	mkdir -p "$C/kernels" "$C/downloads"
	cp -a --sparse=always "$src" "$C/kernels/"
	cp "$deb" "$C/downloads/"
	k=$C/kernels/$(basename "$src")
	WBLAB_CACHE=$C ./wblab kernel build debian-6.1 >"$R/f-cache1.log" 2>&1
	check "fault cache: a sealed entry" test -s "$k/seal.json"
	good=$(sha256sum <"$k/bzImage")
	check "fault cache: the seal's SHA-256 is sha256sum's" grep -q "$(echo "$good" | cut -c1-64)" "$k/seal.json"
	printf 'X' | dd of="$k/bzImage" bs=1 seek=4096 conv=notrunc 2>/dev/null
	WBLAB_CACHE=$C ./wblab kernel build debian-6.1 >"$R/f-cache2.log" 2>&1
	check "fault cache: the corruption is reported" grep -q "corrupt (bzImage: SHA-256" "$R/f-cache2.log"
	[ "$(sha256sum <"$k/bzImage")" = "$good" ] && pass "fault cache: the entry is rebuilt" ||
		fail "fault cache: bzImage not rebuilt ($(tail -n 3 "$R/f-cache2.log"))"
	rm -rf "$C"
else
	fail "fault cache: no cached debian-6.1 to copy (run wblab kernel build debian-6.1)"
fi
