#!/bin/sh
# End-to-end tests: real guests under QEMU through libvirt (KVM if the
# probe says it works, else TCG). Needs make deps and make services first.
. "$(dirname "$0")/lib.sh"

echo "# wblab end-to-end tests, results in $R"
check "doctor says a cell can run" ./wblab doctor
./wblab doctor | sed 's/^/#   /'

# The guest image: built once (debootstrap + mkfs.ext4 -d), then a cache hit.
./wblab image build >"$R/image1.log" 2>&1 && pass "image build" || fail "image build (see $R/image1.log)"
t0=$(date +%s%N)
./wblab image build >"$R/image2.log" 2>&1
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
grep -q ' cached ' "$R/image2.log" && [ $ms -lt 1000 ] && pass "second image build is a cache hit ($ms ms)" ||
	fail "second image build: $(cat "$R/image2.log") in $ms ms"

# Unknown names fail with the list of known ones and exit 2.
./wblab run --kernel debian-6.1 --topology nope --workload smoke --results "$R/x" 2>"$R/unknown.err"
[ $? -eq 2 ] && grep -q "unknown topology 'nope'; known topologies:.*xfs-disk" "$R/unknown.err" &&
	pass "unknown topology: exit 2 with the known list" || fail "unknown topology handling"

# 1. The smoke cell on xfs-disk.
t0=$(date +%s)
./wblab run --kernel debian-6.1 --topology xfs-disk --workload smoke --results "$R/smoke" --json >"$R/smoke.json"
rc=$?
echo "# smoke cell: exit $rc in $(( $(date +%s) - t0 )) s"
c=$(cell_dir "$R/smoke")
[ $rc -eq 0 ] && pass "wblab run exits 0" || fail "wblab run exits $rc"
jcheck "$R/smoke.json" '.cells | length == 1 and .[0].outcome == "ok"' "--json prints run.json with the cell"
jcheck "$R/smoke.json" '.host.accel == "kvm" or .host.accel == "tcg"' "run.json records the acceleration"
jcheck "$c/cell.json" '.outcome == "ok"' "cell outcome ok"
jcheck "$c/cell.json" '.kernel.name == "debian-6.1" and (.kernel.hash | length) == 64' "cell.json names the kernel and its hash"
jcheck "$c/cell.json" '.kernel.guest_release == "6.1.0-57-amd64"' "the guest ran the kernel asked for"
jcheck "$c/cell.json" '.topology.layers[1].fstype == "xfs" and .workload == "smoke" and .rep == 1' "cell.json topology/workload/rep"
jcheck "$c/cell.json" '.timings.boot_s > 0 and .timings.workload_s > 0 and .timings.total_s >= .timings.boot_s' "timings recorded"
jcheck "$c/cell.json" '.console_kind == "none" and (.events | length) == 0' "a normal run reports no kernel events"
jcheck "$c/fio.json" '[.jobs[] | .jobname] == ["write", "read"]' "fio.json is fio's own JSON with both jobs"
jcheck "$c/fio.json" '.jobs[0].write.io_kbytes == 131072 and .jobs[1].read.io_kbytes == 131072' "fio moved 128 MiB each way"
jcheck "$c/cell.json" '.metrics.fio[0].write.bw_kib_s > 0 and .metrics.fio[1].read.iops > 0' "fio figures in cell.json metrics"
jcheck "$c/cell.json" '.metrics.vmstat_delta.nr_dirtied >= 32768' "vmstat delta shows the 128 MiB dirtied"
check "console.log has the guest kernel's boot" grep -q 'Linux version 6.1.0-57-amd64' "$c/console.log"
check "console.log has the agent's hello" grep -q 'wblab-agent: hello sent' "$c/console.log"
check "topology.txt shows the XFS mount" grep -Eq '^/mnt/scratch +/dev/vd[a-z]+ +xfs' "$c/topology.txt"
check "vmstat.before and vmstat.after exist" test -s "$c/vmstat.before" -a -s "$c/vmstat.after"
check "wblab.db has the cell" sh -c "sqlite3 '$R/smoke/wblab.db' 'select outcome from cells' | grep -qx ok"
check "no wblab domain left after the run" no_domains_left "$R/smoke"

# 2. A guest that never boots ends boot-failed within its timeout.
t0=$(date +%s)
./wblab run --kernel debian-6.1 --topology none --workload noop --results "$R/noboot" \
	--boot-timeout 15 --cmdline-extra "rdinit=/nonexistent panic=0" >/dev/null 2>&1
el=$(( $(date +%s) - t0 ))
c=$(cell_dir "$R/noboot")
jcheck "$c/cell.json" '.outcome == "boot-failed"' "a guest that never boots is boot-failed"
[ $el -lt 60 ] && pass "boot-failed within its timeout ($el s)" || fail "boot-failed took $el s"
check "its console is kept" grep -q 'Kernel panic' "$c/console.log"
check "no wblab domain left after boot-failed" no_domains_left "$R/noboot"

# 3. Infrastructure failures are never a kernel outcome. libvirt
#    unreachable before anything started: exit 1 naming the host, and no
#    run (no cell to count, nothing to resume); a host lost during a run
#    makes infra-error cells (tests/e2e-matrix.sh).
./wblab run --kernel debian-6.1 --topology none --workload noop --results "$R/infra" \
	--uri qemu+unix:///system?socket=/nonexistent >/dev/null 2>"$R/infra.err"
rc=$?
[ $rc -eq 1 ] && [ -z "$(cell_dir "$R/infra")" ] && grep -q 'no host to run on: local:' "$R/infra.err" &&
	pass "libvirt unreachable: exit 1 naming the host, no cell recorded" ||
	fail "libvirt unreachable: exit $rc, $(head -c 300 "$R/infra.err")"

# 4. SIGTERM in the middle of a cell: the domain is destroyed, the cell
#    recorded as infra-error (interrupted), nothing left running.
./wblab run --kernel debian-6.1 --topology xfs-disk --workload smoke --results "$R/sigterm" >"$R/sigterm.log" 2>&1 &
pid=$!
for i in $(seq 1 120); do
	[ -n "$(run_objects list "$R/sigterm")" ] && break
	sleep 0.5
done
sleep 5
kill -TERM $pid
wait $pid
rc=$?
c=$(cell_dir "$R/sigterm")
[ $rc -ne 0 ] && pass "SIGTERM: wblab exits non-zero ($rc)" || fail "SIGTERM: exit 0"
jcheck "$c/cell.json" '.outcome == "infra-error" and (.outcome_reason | test("interrupted"))' "SIGTERM: cell is infra-error (interrupted)"
check "SIGTERM: no wblab domain left" no_domains_left "$R/sigterm"

for t in tests/e2e.d/*.sh; do
	[ -f "$t" ] && . "$t"
done
finish
