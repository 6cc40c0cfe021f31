# What reclaim writes, on real guests with Debian's prebuilt 6.1 (the lab's
# own 6.1/6.12 pairs need kernel builds: make check-slow and
# lab/matrices/reclaim-writes-*.yaml). Sourced by tests/e2e.sh.

# f2fs, a memcg's dirty page cache and a hog whose page faults reclaim it:
# stock 6.1 leaves dirty file folios to the flushers, whoever reclaims.
./wblab run --kernel debian-6.1 --topology f2fs-disk --workload dirty-hog-memcg \
	--results "$R/f2fs-hog" >"$R/f2fs-hog.log" 2>&1
c=$(cell_dir "$R/f2fs-hog")
jcheck "$c/cell.json" '.outcome == "ok"' "f2fs dirty-hog-memcg: cell ok"
check "f2fs dirty-hog-memcg: the test fs is f2fs" grep -Eq '^/mnt/scratch +/dev/vd[a-z]+ +f2fs' "$c/topology.txt"
check "f2fs dirty-hog-memcg: the hog touches again every second" grep -q "$(printf '/run/wblab-agent\thog\t32\t280\t1')\$" "$c/plan.txt"
check "f2fs dirty-hog-memcg: hog.out shows more than one round" sh -c "test \$(grep -c ': round [0-9]*: 32 MiB touched in' '$c/hog.out') -ge 2"
# Whether the hog's own reclaim meets a dirty folio is timing: on
# debian-6.1 it met none in 1 of 4 cells (fio's met 6700-18000 in each,
# the hog scanned 33000-44000 file folios in each), so the check is that
# it reclaimed file folios at all; what it met is printed.
jcheck "$c/cell.json" '.metrics.trace.shrink_file_by_comm["wblab-hog"].nr_scanned > 0' \
	"f2fs dirty-hog-memcg: the hog's page faults reclaimed file folios"
echo "# f2fs dirty-hog-memcg: dirty file folios met by reclaim: $(jq -c '.metrics.trace.shrink_file_by_comm | map_values(.nr_dirty)' "$c/cell.json")"
jcheck "$c/cell.json" '.metrics.trace.shrink_file_by_comm.fio.nr_dirty > 0' \
	"f2fs dirty-hog-memcg: fio's reclaim met dirty file folios"
jcheck "$c/cell.json" '.metrics.vmscan_write_file_direct == 0 and .metrics.trace.vmscan_write_by_comm == {}' \
	"f2fs dirty-hog-memcg: stock 6.1 writes no file folio from reclaim"
jcheck "$c/cell.json" '.metrics.io.writers.flusher.pages > 0' "f2fs dirty-hog-memcg: the flushers wrote"

# Swap: anonymous folios go out from memcg reclaim on every kernel.
./wblab run --kernel debian-6.1 --topology swap-disk --workload swap-memcg \
	--results "$R/swap" >"$R/swap.log" 2>&1
c=$(cell_dir "$R/swap")
jcheck "$c/cell.json" '.outcome == "ok"' "swap-memcg: cell ok"
jcheck "$c/cell.json" '.metrics.ops.swap_outs > 0' "swap-memcg: pages swapped out (pswpout)"
jcheck "$c/cell.json" '.metrics.trace.vmscan_write.memcg.anon > 0 and .metrics.trace.vmscan_write.memcg.file == 0' \
	"swap-memcg: memcg reclaim wrote anonymous folios, no file ones"
jcheck "$c/cell.json" '.metrics.trace.vmscan_write_by_comm["wblab-hog"].anon > 0' \
	"swap-memcg: the hog's own reclaim wrote them"

# Global direct reclaim (no memcg) writes swap too, beside kswapd.
./wblab run --kernel debian-6.1 --topology swap-disk --workload swap-direct \
	--results "$R/swap-direct" >"$R/swap-direct.log" 2>&1
c=$(cell_dir "$R/swap-direct")
jcheck "$c/cell.json" '.outcome == "ok"' "swap-direct: cell ok"
jcheck "$c/cell.json" '.metrics.trace.vmscan_write.direct.anon > 0 and .metrics.trace.vmscan_write.memcg.anon == 0' \
	"swap-direct: direct reclaim (not memcg) wrote anonymous folios"
jcheck "$c/cell.json" '.metrics.trace.vmscan_write_by_comm["wblab-hog"].anon > 0' \
	"swap-direct: the hog's page faults wrote them"
echo "# swap-direct: anonymous reclaim writes by task: $(jq -c '.metrics.trace.vmscan_write_by_comm | map_values(.anon)' "$c/cell.json")"
check "swap: no wblab domain left" no_domains_left "$R/f2fs-hog" "$R/swap" "$R/swap-direct"
