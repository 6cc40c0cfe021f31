#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run 12 of docs/findings/swap-iscsi-deadlock.txt: the deterministic md
# mempool reproducer (workloads/md-failslab) on a kernel and its rescuer
# variant. Each block runs every arm once, one cell at a time, in an
# order a seeded shuffle fixes, until the cutoff: md RAID1 and RAID10
# without a bitmap on both kernels, and with an internal bitmap on the
# base kernel (or the TOPOLOGY:KERNEL words of $ARMS). `uptime` before
# each cell goes to stdout.
# Usage: docs/findings/md-failslab-blocks.sh RESULTS_DIR BASE RESCUER \
#            'YYYY-MM-DD HH:MM' (UTC, no cell starts after it) [BLOCKS]
# (run from the top of the checkout; WBLAB selects the binary)
R=${1:?results dir}
BASE=${2:?base kernel}
RESC=${3:?rescuer kernel}
CUT=$(date -u -d "${4:?cutoff}" +%s)
MAX=${5:-5}
W=${WBLAB:-./wblab}
mkdir -p "$R"
echo "start $(date -u) $(uptime)"
b=1
while [ "$b" -le "$MAX" ]; do
	order=$(ARMS="${ARMS:-raid1-nobitmap:$BASE raid1-nobitmap:$RESC raid10-nobitmap:$BASE raid10-nobitmap:$RESC raid1-bitmap:$BASE raid10-bitmap:$BASE}" \
		/usr/bin/python3 -c "import os, random; r=random.Random(431207*1000+$b); a=os.environ['ARMS'].split(); r.shuffle(a); print(' '.join(a))")
	for arm in $order; do
		if [ "$(date +%s)" -ge "$CUT" ]; then
			echo "cutoff $(date -u) $(uptime)"
			exit 0
		fi
		topo=${arm%%:*}
		kern=${arm#*:}
		echo "block $b $topo $kern $(date -u +%T) $(uptime)"
		"$W" run --kernel "$kern" --topology "$topo" \
			--workload md-failslab -n 1 --results "$R" 2>&1 |
			tail -4
	done
	b=$((b + 1))
done
echo "end $(date -u) $(uptime)"
