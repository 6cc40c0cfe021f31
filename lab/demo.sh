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

kernels() {
	cat <<'TEXT'
The kernels wblab ships (wblab kernel list; lab/kernels/*.yaml):
  6.1, 6.1-direct-writeback  the seed's A/B known answer: Debian's 6.1 and the
                             same kernel with the one policy of "mm: disallow
                             direct reclaim page writeback" reverted (this demo)
  6.12, 6.12-direct-writeback, debian-6.12
                             the previous LTS, and the same revert on it
  7.2, debian-7.2, 7.3-rc    what users run and test now: 7.2.13 from sid (built
                             with the lab's config, and Debian's prebuilt), 7.3-rc7
                             from experimental; no ->writepage any more: reclaim
                             writes only shmem and swap (docs/kernels.md)
The next version is a spec file naming a package, a suite and a version:
  cp lab/kernels/7.3-rc.yaml lab/kernels/7.4-rc.yaml
  # edit source: package: (linux-source-7.4), suite: (experimental) and
  # version: (the exact one the suite carries), then
  ./wblab kernel list --available   # the versions the suites carry now
  ./wblab kernel build 7.4-rc
TEXT
}

mkdir -p "$RESULTS"
kernels
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
