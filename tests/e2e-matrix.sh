#!/bin/sh
# Matrix engine end to end: parallel slots, order, kill -9 and --resume,
# host faults (virsh destroy, a paused guest, a guest that makes no
# progress), SIGINT, a full results disk, long cell ids. Real guests
# (debian-6.1, no-op workloads, 512 MiB / 1 vCPU so two fit this host),
# never more than 2 at once. A second libvirt endpoint (lab/second-endpoint.sh:
# a session libvirtd of user wblab2 on 127.0.0.1:16599, never the system
# daemon) stands in for a second host. About 20 cells: run from `make check-matrix`
# (and `make check-slow`), not the default e2e suite.
# Usage: tests/e2e-matrix.sh [SCENARIO...]   (default: all)
. "$(dirname "$0")/lib.sh"

scenarios "parallel kill9 destroy pause deadline sigint diskfull hosts restart hostgone" "$@"
echo "# wblab matrix end-to-end tests, results in $R"

# matrix FILE REPS [WORKLOAD]: a small no-op matrix.
matrix() {
	cat >"$1" <<EOF
description: e2e
kernels: [debian-6.1]
topologies: [none]
workloads: [${3:-noop}]
reps: $2
guests:
  - memory: 512
    vcpus: 1
EOF
}

# The run dir a results dir holds (one run).
run_dir() { ls -d "$1"/2*/ 2>/dev/null | head -n 1 | sed 's:/$::'; }
run_id() { basename "$(run_dir "$1")"; }

# Domains or networks of one run still there?
run_left() {
	virsh -c qemu:///system list --all --name 2>/dev/null | grep -q "^wblab-$1-" && return 0
	virsh -c qemu:///system net-list --all --name 2>/dev/null | grep -q "^wblab-$1-" && return 0
	return 1
}
nothing_left() { ! run_left "$1"; }
# A guest that powered off is torn down by libvirt a moment after wblab exits.
gone() { wait_for 30 nothing_left "$1"; }

# wait_for SECONDS CMD...: poll until CMD succeeds.
wait_for() {
	n=$(($1 * 2))
	shift
	while [ $n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.5
		n=$((n - 1))
	done
	return 1
}

# A domain of the run in results dir $1 is running (prints its name).
running_domain() {
	id=$(run_id "$1")
	[ -n "$id" ] || return 1
	virsh -c qemu:///system list --name 2>/dev/null | grep "^wblab-$id-" | head -n 1 | grep .
}

ncells_done() { jq '[.cells[] | select(.outcome != "infra-error")] | length' "$(run_dir "$1")/run.json" 2>/dev/null; }
at_least_done() { [ "$(ncells_done "$1")" -ge "$2" ] 2>/dev/null; }

# 1. Four cells, two slots: both slots used, order from the seed, all ok.
if wants parallel; then
	matrix "$R/m4.yaml" 4
	t0=$(date +%s)
	./wblab matrix run "$R/m4.yaml" --jobs 2 --seed 7 --progress plain \
		--results "$R/par" --json >"$R/par.json" 2>"$R/par.log"
	rc=$?
	echo "# parallel: exit $rc in $(($(date +%s) - t0)) s"
	d=$(run_dir "$R/par")
	[ $rc -eq 0 ] && pass "matrix run exits 0" || fail "matrix run exits $rc (see $R/par.log)"
	jcheck "$R/par.json" '.cells | length == 4 and all(.outcome == "ok")' "four cells, all ok"
	jcheck "$R/par.json" '.spec.seed == "7" and (.plan | length) == 4' "run.json records the seed and the plan"
	jcheck "$R/par.json" '[.cells[].slot] | unique == [0, 1]' "both slots ran cells"
	jcheck "$R/par.json" '[.cells[].host] | unique == ["local"]' "cells name their host"
	./wblab matrix show "$R/m4.yaml" --seed 7 | awk '!/^#/ {print $4}' >"$R/order.txt"
	jq -r '.plan[].id' "$R/par.json" >"$R/plan.txt"
	check "the seed reproduces the order (matrix show = run.json plan)" cmp -s "$R/order.txt" "$R/plan.txt"
	c=$(ls -d "$d"/cells/*/ | head -n 1)
	jcheck "$c/cell.json" '.host == "local" and (.slot == 0 or .slot == 1) and .attempt == 1' "cell.json: host, slot, attempt"
	grep -q "start .* on local slot 1" "$R/par.log" && pass "plain progress: timestamped start lines per slot" ||
		fail "no 'start ... slot 1' line in $R/par.log"
	grep -Eq '\[4/4, 0 not ok, 0 infra-error' "$R/par.log" && pass "plain progress: done/total, failures" ||
		fail "no overall count line in $R/par.log"
	check "wblab.db has the four cells" sh -c "[ \$(sqlite3 '$R/par/wblab.db' \"select count(*) from cells where outcome='ok'\") -eq 4 ]"
	check "nothing of the run left" gone "$(run_id "$R/par")"
fi

# 2. kill -9 of wblab mid-matrix, then --resume: finished cells kept,
#    unfinished ones rerun, none twice, nothing left.
if wants kill9; then
	matrix "$R/m3.yaml" 3
	./wblab matrix run "$R/m3.yaml" --jobs 1 --progress plain --results "$R/k9" >"$R/k9.log" 2>&1 &
	pid=$!
	wait_for 400 at_least_done "$R/k9" 1
	wait_for 120 running_domain "$R/k9"
	sleep 3
	kill -9 $pid
	wait $pid 2>/dev/null
	id=$(run_id "$R/k9")
	d=$(run_dir "$R/k9")
	first=$(jq -r '.cells[0].id' "$d/run.json")
	stamp=$(jq -r .timings.started "$d/cells/$first/cell.json")
	# The workers die with wblab and destroy their domains.
	wait_for 60 nothing_left "$id" && pass "kill -9: no domain or network of the run left" ||
		fail "kill -9: $(virsh -c qemu:///system list --name | grep "$id")"
	./wblab matrix run --resume "$d" --progress plain >"$R/k9r.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] && pass "resume exits 0" || fail "resume exits $rc (see $R/k9r.log)"
	jcheck "$d/run.json" '(.cells | length) == 3 and all(.cells[]; .outcome == "ok") and .finished != ""' "resume: all three cells ok, run finished"
	jcheck "$d/cells/$first/cell.json" ".timings.started == \"$stamp\"" "resume: the finished cell was kept"
	check "resume: the kept cell ran once (one worker log)" sh -c "[ \$(ls '$d/logs' | grep -c '^$first\\.') -eq 1 ]"
	check "resume: the kept cell did not start again" sh -c "! grep -q 'start $first' '$R/k9r.log'"
	check "resume: each cell has one cell.json" sh -c "[ \$(ls '$d'/cells/*/cell.json | wc -l) -eq 3 ]"
	check "resume: nothing of the run left" gone "$id"
fi

# 3. QEMU destroyed from outside (virsh destroy): libvirt's stop reason
#    makes it infra-error (not crashed); retried, the retry counted. The
#    workload's long name makes a cell id whose socket path needs a hash.
if wants destroy; then
	home=$R/home
	mkdir -p "$home/workloads"
	for f in build lab guests topologies; do ln -sf "$top/$f" "$home/$f"; done
	for f in "$top"/workloads/*.yaml; do ln -sf "$f" "$home/workloads/"; done
	long=noop-with-a-name-long-enough-to-overflow-the-channel-socket-path
	cp "$top/workloads/noop.yaml" "$home/workloads/$long.yaml"
	matrix "$R/m1.yaml" 1 "$long"
	WBLAB_HOME=$home ./wblab matrix run "$R/m1.yaml" --retries 1 --progress plain --results "$R/ds" >"$R/ds.log" 2>&1 &
	pid=$!
	dom=
	wait_for 120 running_domain "$R/ds" && dom=$(running_domain "$R/ds")
	echo "# destroy: domain $dom (${#dom} bytes)"
	sleep 5
	virsh -c qemu:///system destroy "$dom" >/dev/null 2>&1
	wait $pid
	rc=$?
	d=$(run_dir "$R/ds")
	c=$d/cells/debian-6.1_none_${long}_1
	a=$(ls -d "$d"/attempts/*/ 2>/dev/null | head -n 1)
	jcheck "$a/cell.json" '.outcome == "infra-error" and (.outcome_reason | test("destroyed from outside"))' "virsh destroy: the attempt is infra-error (libvirt stop reason), not crashed"
	jcheck "$c/cell.json" '.outcome == "ok" and .attempt == 2' "virsh destroy: retried once, the retry ok and counted"
	# The retry backs off (2 s before the first): the attempt's end and the
	# retry's start, whole seconds of ISO 8601, at least 2 s apart.
	gap=$(jq -rn --slurpfile a "$a/cell.json" --slurpfile c "$c/cell.json" \
		'($c[0].timings.started | fromdateiso8601) - ($a[0].timings.finished | fromdateiso8601)' 2>/dev/null)
	[ -n "$gap" ] && [ "$gap" -ge 2 ] && pass "the retry waited its back-off ($gap s after the attempt)" ||
		fail "retry back-off: ${gap:-no times} s between the attempt's end and the retry's start"
	[ $rc -eq 0 ] && pass "a retried infra-error is not a failure of the run" || fail "exit $rc"
	check "long cell id: the run ran it (hashed domain name)" sh -c "[ ${#dom} -gt 0 ] && [ ${#dom} -lt 80 ]"
	check "destroy: nothing of the run left" gone "$(run_id "$R/ds")"
fi

# 4. The host disk holding the guest's disks fills up: QEMU pauses the
#    guest on the I/O error; the cell is infra-error, not hung.
if wants pause; then
	# A small ext4 (QEMU opens disks with O_DIRECT, which tmpfs may refuse).
	mnt=$R/smallfs
	mkdir -p "$mnt"
	truncate -s 1700M "$R/smallfs.img"
	mkfs.ext4 -q -F "$R/smallfs.img"
	if mount -o loop "$R/smallfs.img" "$mnt" && chmod 755 "$mnt"; then
		printf 'description: e2e pause\nkernels: [debian-6.1]\ntopologies: [xfs-disk]\nworkloads: [smoke]\n' >"$R/mp.yaml"
		WBLAB_RUNDIR=$mnt ./wblab matrix run "$R/mp.yaml" --retries 0 --progress plain \
			--results "$R/ps" >"$R/ps.log" 2>&1 &
		pid=$!
		wait_for 120 running_domain "$R/ps"
		# Leave the guest no room: its next writes to disk0 fail.
		dd if=/dev/zero of="$mnt/fill" bs=1M >/dev/null 2>&1
		t0=$(date +%s)
		wait $pid
		el=$(($(date +%s) - t0))
		c=$(cell_dir "$R/ps")
		jcheck "$c/cell.json" '.outcome == "infra-error" and (.outcome_reason | test("paused the guest on a host I/O error"))' \
			"paused on I/O error: infra-error, not hung"
		[ $el -lt 300 ] && pass "paused guest ended in $el s, not at a phase timer" || fail "paused guest took $el s"
		check "pause: nothing of the run left" gone "$(run_id "$R/ps")"
		rm -f "$mnt/fill"
		umount "$mnt"
		rm -f "$R/smallfs.img"
	else
		fail "cannot mount a small filesystem for the pause test"
	fi
fi

# 5. A guest that stops making progress (paused from outside) with no hang
#    report on its console: the cell's overall deadline ends it, infra-error.
if wants deadline; then
	matrix "$R/md.yaml" 1
	./wblab matrix run "$R/md.yaml" --deadline 60 --retries 0 --progress plain --results "$R/dl" >"$R/dl.log" 2>&1 &
	pid=$!
	wait_for 120 running_domain "$R/dl" && dom=$(running_domain "$R/dl")
	virsh -c qemu:///system suspend "$dom" >/dev/null 2>&1
	t0=$(date +%s)
	wait $pid
	rc=$?
	el=$(($(date +%s) - t0))
	c=$(cell_dir "$R/dl")
	jcheck "$c/cell.json" '.outcome == "infra-error" and (.outcome_reason | test("overall deadline")) and (.outcome_reason | test("no hang evidence"))' \
		"no progress, no hang evidence: the deadline makes it infra-error"
	[ $el -lt 120 ] && pass "the deadline ended it ($el s after the pause)" || fail "took $el s"
	[ $rc -eq 1 ] && pass "an unretried infra-error exits 1" || fail "exit $rc"
	check "deadline: nothing of the run left" gone "$(run_id "$R/dl")"
fi

# 6. SIGINT: the running domain is destroyed, the run is resumable.
if wants sigint; then
	matrix "$R/mi.yaml" 1
	./wblab matrix run "$R/mi.yaml" --progress plain --results "$R/si" >"$R/si.log" 2>&1 &
	pid=$!
	wait_for 120 running_domain "$R/si"
	sleep 3
	kill -INT $pid
	wait $pid
	rc=$?
	d=$(run_dir "$R/si")
	[ $rc -ne 0 ] && pass "SIGINT: exit $rc" || fail "SIGINT: exit 0"
	check "SIGINT: no domain of the run left" gone "$(run_id "$R/si")"
	jcheck "$d/run.json" '.finished == ""' "SIGINT: run.json is not finished"
	grep -q "resumable: wblab matrix run --resume" "$R/si.log" && pass "SIGINT: says how to resume" || fail "no resume hint"
	./wblab matrix run --resume "$d" --progress plain >"$R/sir.log" 2>&1
	jcheck "$d/run.json" '(.cells | length) == 1 and .cells[0].outcome == "ok" and .finished != ""' "SIGINT: --resume finishes the run"
fi

# 7. The results disk fills up: a clear error, the cell is infra-error,
#    earlier results intact, the run resumable.
if wants diskfull; then
	mnt=$R/results-tmpfs
	mkdir -p "$mnt"
	if mount -t tmpfs -o size=96m,mode=755 wblab-e2e-res "$mnt"; then
		matrix "$R/mf.yaml" 2
		./wblab matrix run "$R/mf.yaml" --jobs 1 --retries 0 --progress plain --results "$mnt" >"$R/df.log" 2>&1 &
		pid=$!
		wait_for 400 at_least_done "$mnt" 1
		d=$(run_dir "$mnt")
		first=$(jq -r '.cells[0].id' "$d/run.json")
		sum=$(md5sum "$d/cells/$first/cell.json" | cut -d' ' -f1)
		wait_for 120 running_domain "$mnt"
		dd if=/dev/zero of="$mnt/fill" bs=1M >/dev/null 2>&1
		wait $pid
		rc=$?
		[ $rc -ne 0 ] && pass "disk full: exit $rc" || fail "disk full: exit 0"
		grep -q "results disk is full" "$R/df.log" && pass "disk full: a clear error" || fail "disk full: no clear error (see $R/df.log)"
		grep -Eq "done .*: infra-error" "$R/df.log" && pass "disk full: the cell is infra-error" || fail "disk full: no infra-error line"
		check "disk full: the finished cell is intact" sh -c "[ \$(md5sum '$d/cells/$first/cell.json' | cut -d' ' -f1) = $sum ]"
		check "disk full: run.json still parses" jq -e .run "$d/run.json"
		check "disk full: nothing of the run left" gone "$(basename "$d")"
		rm -f "$mnt/fill"
		./wblab matrix run --resume "$d" --progress plain >"$R/dfr.log" 2>&1
		jcheck "$d/run.json" '(.cells | length) == 2 and all(.cells[]; .outcome == "ok")' "disk full: --resume finishes the run once there is room"
		umount "$mnt"
	else
		fail "cannot mount a tmpfs for the disk-full test"
	fi
fi

# Multi-host scenarios: the second endpoint is ours, started, restarted and
# stopped here only.
URI2=qemu+tcp://127.0.0.1:16599/session
left2() { virsh -c $URI2 list --all --name 2>/dev/null | grep -q "^wblab-$1-"; }
on_host() { jq -e --arg h "$2" '[.cells[] | select(.host == $h)] | length > 0' "$(run_dir "$1")/run.json" >/dev/null 2>&1 ||
	virsh -c "$( [ "$2" = second ] && echo $URI2 || echo qemu:///system)" list --name 2>/dev/null | grep -q "^wblab-$(run_id "$1")-"; }
second_running() { id=$(run_id "$1"); [ -n "$id" ] && virsh -c $URI2 list --name 2>/dev/null | grep "^wblab-$id-" | head -n 1 | grep .; }

if wants hosts || wants restart || wants hostgone; then
	lab/second-endpoint.sh start && lab/second-endpoint.sh hosts "$R/hosts.yaml" || fail "second endpoint did not start"
fi

# 8. Two endpoints: cells land on both; artifacts reach the second one as
#    volumes of its wblab pool (virStorageVolUpload), not by copying.
if wants hosts; then
	matrix "$R/mh.yaml" 2
	./wblab matrix run "$R/mh.yaml" --hosts "$R/hosts.yaml" --accel tcg --progress plain \
		--results "$R/hs" --json >"$R/hs.json" 2>"$R/hs.log"
	rc=$?
	[ $rc -eq 0 ] && pass "two hosts: exit 0" || fail "two hosts: exit $rc (see $R/hs.log)"
	jcheck "$R/hs.json" '[.cells[].host] | sort == ["local", "second"]' "two hosts: one cell on each endpoint"
	jcheck "$R/hs.json" 'all(.cells[]; .outcome == "ok")' "two hosts: both cells ok"
	check "second host: kernel, initramfs, modules and image are pool volumes" sh -c \
		"virsh -c $URI2 vol-list wblab | grep -q -- '-bzImage' && virsh -c $URI2 vol-list wblab | grep -q 'img-.*root.img'"
	grep -q "host second: uploaded" "$R/hs.log" && echo "# $(grep -c 'host second: uploaded' "$R/hs.log") volumes uploaded this run" ||
		echo "# volumes were already in the pool"
	c=$(jq -r '.cells[] | select(.host == "second") | .dir' "$R/hs.json")
	jcheck "$(run_dir "$R/hs")/$c/cell.json" '.host_uri == "'$URI2'" and .kernel.guest_release == "6.1.0-57-amd64"' \
		"the second host's cell booted the uploaded kernel"
	check "two hosts: nothing left on the second endpoint" sh -c "! virsh -c $URI2 list --all --name | grep -q '^wblab-$(run_id "$R/hs")-'"
fi

# 9. libvirtd (the second endpoint's) restarted mid-cell: the cell ends
#    infra-error (connection lost), is retried, and the run completes.
if wants restart; then
	matrix "$R/mr.yaml" 1
	# Only the second endpoint, so the cell is there when it restarts.
	awk '/- name: second/ {on = 1} on || /^hosts:/' "$R/hosts.yaml" >"$R/hosts2.yaml"
	./wblab matrix run "$R/mr.yaml" --hosts "$R/hosts2.yaml" --accel tcg --progress plain \
		--results "$R/rs" >"$R/rs.log" 2>&1 &
	pid=$!
	if wait_for 180 second_running "$R/rs"; then
		sleep 3
		lab/second-endpoint.sh restart
		wait $pid
		rc=$?
		d=$(run_dir "$R/rs")
		a=$(ls -d "$d"/attempts/*/ 2>/dev/null | head -n 1)
		jcheck "$a/cell.json" '.outcome == "infra-error" and (.outcome_reason | test("connection was lost"))' \
			"libvirtd restarted: the attempt is infra-error (connection lost)"
		jcheck "$d/run.json" '.cells[0].outcome == "ok" and .cells[0].attempts == 2' "libvirtd restarted: retried and ok"
		[ $rc -eq 0 ] && pass "libvirtd restarted: exit 0" || fail "exit $rc (see $R/rs.log)"
		check "libvirtd restarted: nothing left on the second endpoint" sh -c "! virsh -c $URI2 list --all --name | grep -q '^wblab-$(basename "$d")-'"
	else
		wait $pid
		fail "restart: the cell never ran on the second endpoint (see $R/rs.log)"
	fi
fi

# 10. A host that goes away (its daemon and its QEMUs die): its cells move
#     to the other host; nothing is counted from it.
if wants hostgone; then
	matrix "$R/mg.yaml" 3
	./wblab matrix run "$R/mg.yaml" --hosts "$R/hosts.yaml" --accel tcg --progress plain \
		--results "$R/hg" >"$R/hg.log" 2>&1 &
	pid=$!
	if wait_for 180 second_running "$R/hg"; then
		dom=$(second_running "$R/hg")
		sleep 3
		qpid=$(cat /run/wblab2/libvirt/qemu/run/"$dom".pid 2>/dev/null || true)
		kill -9 "$(cat /run/wblab2/libvirtd.pid)"
		[ -n "$qpid" ] && kill -9 "$qpid"
		wait $pid
		rc=$?
		d=$(run_dir "$R/hg")
		jcheck "$d/run.json" '(.hosts[] | select(.name == "second") | .up) == false' "host gone: marked down"
		jcheck "$d/run.json" '(.cells | length) == 3 and all(.cells[]; .outcome == "ok" and .host == "local")' \
			"host gone: all cells ended ok on the remaining host"
		[ $rc -eq 0 ] && pass "host gone: exit 0" || fail "host gone: exit $rc (see $R/hg.log)"
		grep -q "host second is gone" "$R/hg.log" && pass "host gone: said so" || fail "host gone: no message"
	else
		wait $pid
		fail "host gone: no cell ran on the second endpoint (see $R/hg.log)"
	fi
	lab/second-endpoint.sh start
fi

finish
