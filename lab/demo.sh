#!/bin/sh
# make demo: the main job on built-in defaults. Builds the A/B kernel pair
# from Debian's linux-source-6.1 (cached after the first time), runs the
# dirty-flood workload on ext4 with and without the patch that lets direct
# reclaim write file pages, prints the mail report and the path of the
# HTML one.
set -eu
cd "$(dirname "$0")/.."
A=${WBLAB_DEMO_A:-6.1}
B=${WBLAB_DEMO_B:-6.1-direct-writeback}
TOPO=${WBLAB_DEMO_TOPOLOGY:-ext4-disk}
WL=${WBLAB_DEMO_WORKLOAD:-dirty-flood}
REPS=${WBLAB_DEMO_REPS:-5}
RESULTS=${WBLAB_DEMO_RESULTS:-results}

mkdir -p "$RESULTS"
./wblab doctor
./wblab image build
./wblab kernel build "$A"
./wblab kernel build "$B"
./wblab run --kernel "$A" --kernel "$B" --topology "$TOPO" --workload "$WL" \
	-n "$REPS" --results "$RESULTS" --json >"$RESULTS/last-run.json" || true
run=$(jq -r .run "$RESULTS/last-run.json")
./wblab report --baseline "$A" --format html -o "$RESULTS/$run/report.html" \
	"$RESULTS/$run"
./wblab report --baseline "$A" --format json -o "$RESULTS/$run/report.json" \
	"$RESULTS/$run"
./wblab report --baseline "$A" "$RESULTS/$run" | tee "$RESULTS/$run/report.txt"
echo
echo "HTML report: $RESULTS/$run/report.html"
