#!/bin/sh
# Cells on a libvirt host that shares nothing with wblab but the connection
# (lab/remote-endpoint.sh: a system libvirtd and virtlogd in their own mount
# namespace on 127.0.0.1:16600). A matrix split over the local and the
# remote host, the two-guest iSCSI topology on the remote, its libvirtd
# killed and restarted mid-cell, a wblab killed -9 mid-cell whose remote
# domain and volumes the next run reaps, a remote pool too small for the
# artifacts. Real TCG guests, at most two at
# once: run from `make check-remote` (in check-slow), under a guest slot.
# Usage: tests/e2e-remote.sh [SCENARIO...]   (default: all)
. "$(dirname "$0")/lib.sh"

scenarios "split iscsi restart reap full" "$@"
echo "# wblab remote-host end-to-end tests, results in $R"

URI=qemu+tcp://127.0.0.1:16600/system
POOL=/var/lib/wblab/remote-pool # the remote's path: absent here
V="virsh -c $URI"

matrix() { # FILE TOPOLOGY WORKLOAD REPS
	printf 'description: e2e remote\nkernels: [debian-6.1]\ntopologies: [%s]\nworkloads: [%s]\nreps: %s\n' \
		"$2" "$3" "$4" >"$1"
}
run_dir() { ls -d "$1"/2*/ 2>/dev/null | head -n 1 | sed 's:/$::'; }
remote_running() { $V list --name 2>/dev/null | grep "^wblab-" | head -n 1 | grep .; }
wait_for() {
	n=$(($1 * 10))
	shift
	while [ $n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}
# Nothing of a run left on the remote: domains, networks, cell volumes.
clean_remote() {
	! $V list --all --name | grep -q '^wblab-' &&
		! $V net-list --all --name | grep -q '^wblab-' &&
		! $V vol-list wblab | grep -q ' wblab-'
}

lab/remote-endpoint.sh start || { fail "remote endpoint did not start"; finish; exit 1; }
lab/remote-endpoint.sh hosts "$R/hosts.yaml"
# The remote first: a cell goes there when both are free.
awk '/^hosts:/ {print; next} /- name: remote/ {on = 1} on' "$R/hosts.yaml" >"$R/remote-only.yaml"
{ echo "hosts:"; awk '/- name: remote/ {on = 1} on' "$R/hosts.yaml"; awk '/- name: local/ {on = 1} /- name: remote/ {on = 0} on' "$R/hosts.yaml"; } >"$R/remote-first.yaml"
check "the remote's pool path does not exist on the orchestrator's side" sh -c "! test -e $POOL"

# 1. Six cells over both hosts: same kernel, topology and workload.
if wants split; then
	matrix "$R/split.yaml" ext4-disk dirty-flood 6
	./wblab matrix run "$R/split.yaml" --hosts "$R/hosts.yaml" --jobs 2 --accel tcg \
		--progress plain --results "$R/split" --json >"$R/split.json" 2>"$R/split.log"
	rc=$?
	[ $rc -eq 0 ] && pass "split: exit 0" || fail "split: exit $rc (see $R/split.log)"
	jcheck "$R/split.json" '[.cells[] | select(.host == "remote")] | length >= 1' "split: cells ran on the remote"
	jcheck "$R/split.json" '[.cells[] | select(.host == "local")] | length >= 1' "split: cells ran locally"
	jcheck "$R/split.json" 'all(.cells[]; .outcome == "ok")' "split: every cell ok on both hosts"
	d=$(run_dir "$R/split")
	# The same kernel, topology and workload on each host, n >= 3 each
	# (the engine places a cell wherever a slot is free, so 6 cells may
	# split 4:2; then a run on the short host adds to it).
	short=$(jq -r '[.cells[].host] | group_by(.) | map({h: .[0], n: length}) | map(select(.n < 3)) | .[0].h // empty' "$R/split.json")
	if [ -n "$short" ]; then
		awk -v h="$short" '/^hosts:/ {print; next} /- name: / {on = ($3 == h)} on' "$R/hosts.yaml" >"$R/short.yaml"
		matrix "$R/split2.yaml" ext4-disk dirty-flood 2
		./wblab matrix run "$R/split2.yaml" --hosts "$R/short.yaml" --jobs 1 --accel tcg \
			--progress plain --results "$R/split" --json >"$R/split2.json" 2>>"$R/split.log"
	fi
	for c in "$R"/split/2*/cells/*/cell.json; do
		jq -c '{host, outcome, total_s: .timings.total_s, boot_s: .timings.boot_s,
			workload_s: .timings.workload_s, domain_start_s: .timings.domain_start_s,
			direct: .metrics.vmscan_write_file_direct_pages,
			write_mib_s: ((.metrics.fio // [])[0].write.bw_kib_s / 1024)}' "$c"
	done | jq -s '.' >"$R/split-cells.json"
	jq -r 'group_by(.host)[] | "# \(.[0].host): n \(length), \(map(.outcome) | unique | join(",")); wall \(map(.total_s) | add / length | . * 10 | round / 10) s (\(map(.total_s | . * 10 | round / 10) | join(", "))), domain start \(map(.domain_start_s) | add / length | . * 100 | round / 100) s, boot \(map(.boot_s) | add / length | . * 10 | round / 10) s, fio write \(map(.write_mib_s) | add / length | . * 10 | round / 10) MiB/s, reclaim-wr-direct \(map(.direct) | join(" "))"' "$R/split-cells.json"
	jcheck "$R/split-cells.json" '(group_by(.host) | length == 2) and all(group_by(.host)[]; length >= 3 and all(.[]; .outcome == "ok"))' \
		"split: n >= 3 on each host, every one ok"
	c=$(jq -r '[.cells[] | select(.host == "remote")][0].dir' "$R/split.json")
	jcheck "$d/$c/cell.json" '.host_facts.remote == true and .host_facts.libvirt_version > 0 and .kernel.guest_release == "6.1.0-57-amd64"' \
		"split: the remote cell booted the uploaded kernel and records its host"
	# The console a pty, the channel a socket at a path of the remote's choosing.
	check "split: the remote domain names no console or channel path" sh -c \
		"grep -q '<serial type=\"pty\"' $d/$c/domain.xml && grep -q '<source mode=\"bind\"/>' $d/$c/domain.xml && ! grep -q 'sock' $d/$c/domain.xml"
	for p in $(grep -o "$POOL/[^\"<]*" "$d/$c/domain.xml" | sort -u); do
		test -e "$p" && fail "split: $p exists on the orchestrator's side"
	done
	grep -q "$POOL/" "$d/$c/domain.xml" && pass "split: every disk and kernel path is the remote's (none exists here)" ||
		fail "split: no pool path in $d/$c/domain.xml"
	check "split: nothing left on the remote" clean_remote
fi

# 2. The two-guest topology: target guest and isolated network on the remote.
if wants iscsi; then
	matrix "$R/iscsi.yaml" iscsi-remote-xfs dirty-flood 1
	./wblab matrix run "$R/iscsi.yaml" --hosts "$R/remote-only.yaml" --accel tcg \
		--progress plain --results "$R/iscsi" --json >"$R/iscsi.json" 2>"$R/iscsi.log"
	rc=$?
	[ $rc -eq 0 ] && pass "iscsi: exit 0" || fail "iscsi: exit $rc (see $R/iscsi.log)"
	jcheck "$R/iscsi.json" 'all(.cells[]; .outcome == "ok" and .host == "remote")' "iscsi: the two-guest cell ok on the remote"
	d=$(run_dir "$R/iscsi")
	c=$(jq -r '.cells[0].dir' "$R/iscsi.json")
	check "iscsi: the target guest's console came over the connection" test -s "$d/$c/console-target.log"
	check "iscsi: nothing left on the remote" clean_remote
fi

# 3. The remote's libvirtd killed mid-cell and restarted: the attempt is
#    infra-error (connection lost), the retry runs on the local host.
if wants restart; then
	matrix "$R/rs.yaml" ext4-disk dirty-flood 1
	./wblab matrix run "$R/rs.yaml" --hosts "$R/remote-first.yaml" --jobs 1 --accel tcg \
		--progress plain --results "$R/rs" >"$R/rs.log" 2>&1 &
	pid=$!
	if wait_for 300 remote_running; then
		# Mid-cell: the guest's kernel is up (its console, which comes
		# over the connection, has grown past the boot messages).
		con=/var/lib/wblab/run/$(remote_running)/console.log
		wait_for 120 sh -c "[ \$(stat -c %s $con) -gt 20000 ]" || fail "restart: the remote console did not grow"
		lab/remote-endpoint.sh kill
		t0=$(date +%s)
		lab/remote-endpoint.sh restart
		echo "# remote libvirtd down for $(($(date +%s) - t0)) s"
		wait $pid
		rc=$?
		d=$(run_dir "$R/rs")
		a=$(ls -d "$d"/attempts/*/ 2>/dev/null | head -n 1)
		jcheck "$a/cell.json" '.outcome == "infra-error" and .host == "remote" and (.outcome_reason | test("connection was lost"))' \
			"restart: the remote attempt is infra-error (connection lost)"
		jcheck "$d/run.json" '.cells[0].outcome == "ok" and .cells[0].host == "local" and .cells[0].attempts == 2' \
			"restart: retried on the local host and ok"
		[ $rc -eq 0 ] && pass "restart: exit 0" || fail "restart: exit $rc (see $R/rs.log)"
		check "restart: nothing left on the remote" clean_remote
	else
		kill $pid
		wait $pid
		fail "restart: no cell ran on the remote (see $R/rs.log)"
	fi
fi

# 4. wblab and its worker killed -9 mid-cell: the remote domain and its
#    volumes stay; the next run finds them by their owner tag and removes
#    them.
if wants reap; then
	matrix "$R/rp.yaml" ext4-disk dirty-flood 1
	setsid ./wblab matrix run "$R/rp.yaml" --hosts "$R/remote-only.yaml" --accel tcg \
		--progress plain --results "$R/rp" >"$R/rp.log" 2>&1 &
	pid=$!
	if wait_for 300 remote_running; then
		kill -9 -$pid
		wait $pid
		check "reap: the killed cell's volumes and owner tag are on the remote" sh -c \
			"$V vol-list wblab | grep -q -- '--root.qcow2' && $V vol-list wblab | grep -q '\.owner '"
		# A run with nothing to do but connect (its one cell fails fast).
		./wblab matrix run "$R/rp.yaml" --hosts "$R/remote-only.yaml" --accel tcg \
			--progress plain --results "$R/rp2" --timeout 1 >"$R/rp2.log" 2>&1
		grep -q "deleted volume .*--root.qcow2" "$R/rp2.log" && pass "reap: the next run deleted the volumes by owner tag" ||
			fail "reap: no volume reaped (see $R/rp2.log)"
		check "reap: nothing left on the remote" clean_remote
	else
		kill -9 -$pid
		fail "reap: no cell ran on the remote (see $R/rp.log)"
	fi
fi

# 5. The remote's pool full, in its mount namespace: a tmpfs over the pool
#    dir. (a) 64 MiB: the artifacts' upload fails, the host is dropped
#    with the reason and the cell runs on the local host. (b) Room for the
#    artifacts and 48 MiB more: the upload succeeds, the cell's disks fill
#    the pool mid-cell (dirty-flood writes 256 MiB); the attempt is
#    infra-error with the reason and the cell is retried on the local host.
#    Neither is counted as a kernel result.
if wants full; then
	vpid=$(cat /var/tmp/wblab-remote/run/virtlogd.pid)
	# The artifacts' allocation in the pool (bytes), before the tmpfs.
	$V pool-refresh wblab >/dev/null
	need=$($V vol-list wblab --details | awk '$1 ~ /^(img|k)-/ && $1 !~ /\.done$/ {
		a = $6; u = $7; m = u ~ /^KiB/ ? 1024 : u ~ /^MiB/ ? 1048576 : u ~ /^GiB/ ? 1073741824 : 1
		s += a * m } END { printf "%d", s / 1048576 + 1 }')
	echo "# the artifacts take $need MiB in the remote's pool"
	full() { # NAME SIZE
		matrix "$R/$1.yaml" ext4-disk dirty-flood 1
		nsenter -t "$vpid" -m -- mount -t tmpfs -o "size=$2" tmpfs $POOL &&
			$V pool-refresh wblab >/dev/null
		./wblab matrix run "$R/$1.yaml" --hosts "$R/remote-first.yaml" --jobs 1 --accel tcg \
			--progress plain --results "$R/$1" --json >"$R/$1.json" 2>"$R/$1.log"
		rc=$?
		nsenter -t "$vpid" -m -- umount -l $POOL
		$V pool-refresh wblab >/dev/null
	}
	full fu 64m
	[ $rc -eq 0 ] && pass "pool full at upload: exit 0" || fail "pool full at upload: exit $rc (see $R/fu.log)"
	grep -q "host remote is gone (cannot upload the artifacts to its pool)" "$R/fu.log" &&
		pass "pool full at upload: the host is dropped with the reason" || fail "pool full at upload: no reason (see $R/fu.log)"
	jcheck "$(run_dir "$R/fu")/run.json" 'all(.cells[]; .outcome == "ok" and .host == "local")' \
		"pool full at upload: the cell ran on the local host, ok"
	full fm "$((need + 48))m"
	[ $rc -eq 0 ] && pass "pool full mid-cell: exit 0" || fail "pool full mid-cell: exit $rc (see $R/fm.log)"
	d=$(run_dir "$R/fm")
	a=$(ls -d "$d"/attempts/*/ 2>/dev/null | head -n 1)
	jcheck "$a/cell.json" '.outcome == "infra-error" and .host == "remote"' \
		"pool full mid-cell: the remote attempt is infra-error"
	echo "# the attempt's reason: $(jq -r .outcome_reason "$a/cell.json" 2>/dev/null)"
	grep -E "(retry|done) .*infra-error .*(I/O error|disk full|[Nn]o space)" "$R/fm.log" >/dev/null &&
		pass "pool full mid-cell: the reason names the full disk" || fail "pool full mid-cell: no reason (see $R/fm.log)"
	jcheck "$d/run.json" '.cells[0].outcome == "ok" and .cells[0].host == "local" and .cells[0].attempts == 2' \
		"pool full mid-cell: retried on the local host and ok"
	check "pool full: nothing left on the remote" clean_remote
fi

lab/remote-endpoint.sh stop
finish
