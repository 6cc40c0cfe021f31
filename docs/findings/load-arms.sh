#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run 11 of docs/findings/swap-iscsi-deadlock.txt: does host load move the
# stuck rate? debian-6.1 swap-direct on swap-raid1-iscsi, arms "quiet"
# (nothing else) and "loaded" (three busy loops for the cell's whole life),
# one cell at a time, each block both arms in an order a seeded shuffle
# fixes, until the cutoff.
# Usage: docs/findings/load-arms.sh RESULTS_DIR 'YYYY-MM-DD HH:MM' (UTC)
R=${1:?results dir}
CUT=$(date -u -d "${2:?cutoff}" +%s)
mkdir -p "$R/quiet" "$R/loaded"
echo "start $(date -u) $(uptime)"
b=1
while [ "$(date +%s)" -lt "$CUT" ]; do
	order=$(/usr/bin/python3 -c "import random; r=random.Random(61211*1000+$b); a=['quiet','loaded']; r.shuffle(a); print(' '.join(a))")
	for arm in $order; do
		pids=""
		if [ "$arm" = loaded ]; then
			for j in 1 2 3; do
				sh -c 'while :; do :; done' &
				pids="$pids $!"
			done
			sleep 5
		fi
		echo "block $b $arm $(date -u +%T) $(uptime)"
		./wblab run --kernel debian-6.1 --topology swap-raid1-iscsi \
			--workload swap-direct -n 1 --results "$R/$arm" 2>&1 |
			grep -E "done|retry"
		[ -n "$pids" ] && kill $pids
		wait 2>/dev/null
		sleep 3
	done
	b=$((b + 1))
done
echo "end $(date -u) $(uptime)"
