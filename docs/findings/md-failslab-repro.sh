#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# md-failslab-repro.sh: the md mempool reproducer without wblab.
#
# A mempool must make progress even when its backing allocator never
# succeeds. This script makes every allocation from the slab cache of
# mddev->bio_set fail (failslab), so md's per-mirror clones come from
# the pool's BIO_POOL_SIZE (2) reserved bios alone, and writes 4 KiB
# O_DIRECT blocks from several fio jobs to a two-disk md RAID1 or
# RAID10. Without a write-intent bitmap raid1/raid10 submit each
# mirror's clone from inside md's ->submit_bio (since 7db922bae3ab,
# "md/raid1-10: submit write io directly if bitmap is not enabled"),
# where it waits on the writer's current->bio_list while the writer
# allocates the next clone from the same pool: two writers holding one
# reserved bio each wait in mempool_alloc() for ever. With a rescuer on
# mddev->bio_set (BIOSET_NEED_RESCUER), or with a bitmap, fio finishes.
#
# Needs: root, a kernel with CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB,
# CONFIG_FAULT_INJECTION_DEBUG_FS and md raid1/raid10, mdadm, fio, and
# two block devices whose contents it DESTROYS.
#
# usage: md-failslab-repro.sh [-l 1|10] [-b none|internal] [-c CACHE]
#                             [-j JOBS] [-w SECONDS] DEV1 DEV2
#   -l  md level (default 1; 10 is mdadm's default layout, near=2)
#   -b  bitmap (default none)
#   -c  the slab cache (default: bio-N, N = sizeof(struct bio) + 64,
#       found as described at find_cache below)
#   -j  fio jobs (default 8); -w  seconds to wait for fio (default 60)
# Exit status: 0 fio finished (no hang), 1 stuck (fio's writers in
# mempool_alloc when the wait ran out), 2 error.
#
# Failslab is disarmed before the script exits, which frees the stuck
# writers (mempool_alloc retries the slab every 5 s), so the array can
# be stopped afterwards.

set -u

level=1
bitmap=none
cache=
jobs=8
wait_s=60
md=/dev/md/wblab-failslab
fs=/sys/kernel/debug/failslab

die()
{
	echo "md-failslab-repro: $*" >&2
	exit 2
}

while getopts l:b:c:j:w: opt; do
	case $opt in
	l) level=$OPTARG ;;
	b) bitmap=$OPTARG ;;
	c) cache=$OPTARG ;;
	j) jobs=$OPTARG ;;
	w) wait_s=$OPTARG ;;
	*) die "usage: $0 [-l 1|10] [-b none|internal] [-c CACHE] [-j JOBS] [-w SECONDS] DEV1 DEV2" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || die "two block devices are needed (their data is destroyed)"
dev1=$1
dev2=$2
case $level in 1 | 10) ;; *) die "level must be 1 or 10" ;; esac
case $bitmap in none | internal) ;; *) die "bitmap must be none or internal" ;; esac
if [ ! -b "$dev1" ] || [ ! -b "$dev2" ]; then
	die "$dev1 or $dev2 is not a block device"
fi
command -v mdadm >/dev/null || die "mdadm not found"
command -v fio >/dev/null || die "fio not found"
[ -d /sys/kernel/debug/tracing ] || [ -d "$fs" ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -d "$fs" ] || die "no $fs: the kernel needs CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS"

# find_cache: mddev->bio_set is bioset_init(&mddev->bio_set,
# BIO_POOL_SIZE, 0, BIOSET_NEED_BVECS) in md_run(): front_pad 0 and
# BIO_INLINE_VECS (4) bio_vecs of back_pad, so its slab is the
# "bio-<sizeof(struct bio) + 64>" of bio_find_or_create_slab(), shared
# with fs_bio_set and md's sync_set. sizeof(struct bio) is 128 on
# x86_64 6.12 and 7.2 with the usual options (pahole -C bio vmlinux
# tells; BLK_CGROUP, BLK_INLINE_ENCRYPTION and BLK_DEV_INTEGRITY change
# it): bio-192. The bio slabs are SLAB_TYPESAFE_BY_RCU and never merged,
# so the sysfs directory is the cache's own (an alias would refuse
# failslab with EINVAL).
if [ -z "$cache" ]; then
	cache=bio-192
fi
slab=/sys/kernel/slab/$cache
if [ ! -e "$slab/failslab" ]; then
	caches=
	for c in /sys/kernel/slab/bio-*; do
		caches="$caches ${c##*/}"
	done
	die "no $slab/failslab: give the cache with -c (bio caches:$caches)"
fi

echo "kernel: $(uname -r)"
echo "md level $level, bitmap $bitmap, cache $cache, $jobs fio jobs"

mdadm --stop "$md" >/dev/null 2>&1
mdadm --zero-superblock "$dev1" "$dev2" >/dev/null 2>&1
mdadm --create "$md" --run --metadata=1.2 --level="$level" \
	--raid-devices=2 --assume-clean --bitmap="$bitmap" \
	"$dev1" "$dev2" || die "mdadm --create failed"
cat /proc/mdstat

disarm()
{
	echo 0 >"$fs/probability"
	echo 0 >"$slab/failslab"
}

# The filter before the probability: nothing else may fail meanwhile.
echo Y >"$fs/cache-filter" || die "cannot set cache-filter"
echo N >"$fs/ignore-gfp-wait"
echo 0 >"$fs/verbose"
echo 1 >"$fs/interval"
echo -1 >"$fs/times"
echo 0 >"$fs/space"
echo 1 >"$slab/failslab" || die "cannot set $slab/failslab"
echo 100 >"$fs/probability"
trap 'disarm' EXIT INT TERM
grep -H . "$fs/cache-filter" "$fs/ignore-gfp-wait" "$fs/probability" \
	"$fs/interval" "$fs/times" "$slab/failslab"

fio --name=md-writers --filename="$md" --direct=1 --ioengine=psync \
	--rw=randwrite --bs=4k --size=512m --time_based=1 --runtime=10 \
	--numjobs="$jobs" --group_reporting=1 >/tmp/md-failslab-fio.txt 2>&1 &
fio_pid=$!

i=0
while [ "$i" -lt "$wait_s" ] && kill -0 "$fio_pid" 2>/dev/null; do
	sleep 1
	i=$((i + 1))
done

if kill -0 "$fio_pid" 2>/dev/null; then
	echo "STUCK: fio still running after $wait_s s"
	mddev=$(basename "$(readlink -f "$md")")
	echo "$mddev in flight (reads writes): $(cat "/sys/block/$mddev/inflight")"
	for d in "$dev1" "$dev2"; do
		b=$(basename "$(readlink -f "$d")")
		[ -e "/sys/block/$b/inflight" ] &&
			echo "$b in flight (reads writes): $(cat "/sys/block/$b/inflight")"
	done
	for p in $(pgrep -f md-writers); do
		state=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)
		echo "--- pid $p state $state"
		cat "/proc/$p/stack" 2>/dev/null
	done
	status=1
else
	wait "$fio_pid"
	echo "fio finished:"
	grep -E "WRITE:|write:" /tmp/md-failslab-fio.txt
	status=0
fi

disarm
trap - EXIT INT TERM
wait "$fio_pid" 2>/dev/null
mdadm --stop "$md" >/dev/null 2>&1
exit $status
