# Storage topologies, each with the smoke workload in a real guest.
# Sourced by tests/e2e.sh (helpers from tests/lib.sh).

# topo_cell NAME: run the smoke cell on topology NAME, print its wall time.
topo_cell() {
	t0=$(date +%s)
	./wblab run --kernel debian-6.1 --topology "$1" --workload smoke \
		--results "$R/topo-$1" >"$R/topo-$1.log" 2>&1
	echo "# $1: smoke cell in $(( $(date +%s) - t0 )) s"
	c=$(cell_dir "$R/topo-$1")
	jcheck "$c/cell.json" '.outcome == "ok"' "$1: cell ok"
	jcheck "$c/fio.json" '.jobs[0].write.io_kbytes == 131072 and .jobs[1].read.io_kbytes == 131072' \
		"$1: fio wrote and read 128 MiB at the top of the stack"
}

topo_cell raid5-xfs
check "raid5-xfs: md RAID5 active with 4 members" grep -Eq '^md0 : active raid5( vd[a-z]+\[[0-9]\]){4}' "$c/topology.txt"
check "raid5-xfs: XFS mounted from md0" grep -Eq '^/mnt/scratch +/dev/md0 +xfs' "$c/topology.txt"
jcheck "$c/cell.json" '.topology.layers[4].type == "md" and .topology.layers[4].level == 5' "raid5-xfs: cell.json layer list"

topo_cell iscsi-xfs
check "iscsi-xfs: an iSCSI session over loopback" grep -Eq 'tcp: \[[0-9]+\] 127\.0\.0\.1:3260,1 iqn\.2026-12\.org\.wblab:lun0' "$c/topology.txt"
check "iscsi-xfs: LIO exports the LUN" grep -q 'iqn.2026-12.org.wblab:lun0' "$c/topology.txt"
check "iscsi-xfs: XFS mounted from the iSCSI disk" grep -Eq '^/mnt/scratch +/dev/sd[a-z]+ +xfs' "$c/topology.txt"

topo_cell overlay-xfs
check "overlay-xfs: an overlay mount" grep -Eq '^/mnt/union +overlay +overlay .*upperdir=/mnt/base/ovl-upper' "$c/topology.txt"

topo_cell overlay-raid-iscsi-xfs
check "seed stack: four iSCSI sessions to the target guest" \
	test "$(grep -Ec 'tcp: \[[0-9]+\] 10\.77\.0\.2:3260,1 iqn\.2026-12\.org\.wblab:m[0-3]' "$c/topology.txt")" -eq 4
check "seed stack: md RAID5 of the four iSCSI disks" grep -Eq '^md0 : active raid5( sd[a-z]+\[[0-9]\]){4}' "$c/topology.txt"
check "seed stack: XFS on md0" grep -Eq '^/dev/md0 /mnt/base xfs ' "$c/topology.txt"
check "seed stack: overlay on top" grep -Eq '^/mnt/union +overlay +overlay' "$c/topology.txt"
check "seed stack: the target guest's targetcli ls" sh -c "sed -n '/## target guest/,\$p' '$c/topology.txt' | grep -q 'iqn.2026-12.org.wblab:m3'"
check "seed stack: the target guest's console is kept" grep -q 'wblab-agent: hello sent' "$c/console-target.log"
check "no wblab domain left" no_domains_left "$R"/topo-*
check "no wblab network left" no_networks_left "$R"/topo-*

# The seed stack's cell as a reproducer bundle, run by hand: its own
# run-by-hand.sh, plain QEMU and socat, no wblab and no libvirt.
b="$R/bundle-seed"
./wblab repro "$c" -o "$b" >"$R/bundle-seed.log" 2>&1
check "wblab repro bundles the two-guest cell" test -x "$b/run-by-hand.sh" -a -x "$b/qemu-target.sh"
check "the bundle's guests meet on loopback only" sh -c "for f in '$b/qemu-target.sh' '$b/qemu.sh'; do grep -q 'socket,id=net0,udp=127.0.0.1:[^,]*,localaddr=127.0.0.1:' \"\$f\" || exit 1; done; ! grep -q mcast '$b/qemu-target.sh' '$b/qemu.sh'"
k=$(./wblab kernel show --json "$(jq -r .kernel.name "$c/cell.json")" | jq -r .artifact.dir)
t0=$(date +%s)
KERNEL="$k/bzImage" MODULES="$k/modules.img" \
	INITRD=$(sed -n 's:.*<initrd>\(.*\)</initrd>.*:\1:p' "$b/domain.xml") \
	ROOT_IMAGE=$(./wblab image list --json | jq -r '.[] | select(.name == "debian-12") | .path') \
	"$b/run-by-hand.sh" >"$b/by-hand.log" 2>&1
rc=$?
echo "# seed stack by hand: exit $rc in $(( $(date +%s) - t0 )) s: $(head -n 1 "$b/by-hand.log")"
[ $rc -eq 0 ] && grep -q '^done in ' "$b/by-hand.log" && pass "by hand: the plan ran to its end" ||
	fail "by hand: exit $rc, $(cat "$b/by-hand.log")"
check "by hand: the main guest logged in to the target's four LUNs" \
	test "$(grep -a -Ec 'tcp: \[[0-9]+\] 10\.77\.0\.2:3260,1 iqn\.2026-12\.org\.wblab:m[0-3]' "$b/channel.out")" -eq 4
check "by hand: fio's JSON came back on the channel" grep -a -Eq 'WBL1 F [0-9]+ fio.json$' "$b/channel.out"
check "by hand: no kernel event on the console" sh -c "./wblab parse-console '$b/console.log' | grep -q ': none$'"
check "by hand: no guest left" sh -c "! for p in \$(pgrep -x qemu-system-x86); do readlink /proc/\$p/cwd; done | grep -qxF '$b'"
