#!/bin/sh
# Fault injection that needs the lab's own kernel (6.1, built with LKDTM):
# a kernel stack overflow in direct reclaim. LKDTM's MEM_SWAPOUT crash
# point (a kprobe on shrink_inactive_list) runs EXHAUST_STACK the tenth
# time reclaim shrinks an inactive list; oom-hog drives the guest into
# reclaim. Expected: crashed, a stack_overflow event, the call trace kept,
# no domain left. One cell (about two minutes under TCG). Run from
# tests/e2e-slow.sh, after the 6.1 build.
. "$(dirname "$0")/lib.sh"

./wblab run --kernel 6.1 --topology none --workload oom-hog --results "$R/lkdtm" \
	--cmdline-extra "lkdtm.cpoint_name=MEM_SWAPOUT lkdtm.cpoint_type=EXHAUST_STACK" >"$R/lkdtm.log" 2>&1
c=$(cell_dir "$R/lkdtm")
jcheck "$c/cell.json" '.outcome == "crashed"' "LKDTM stack overflow in reclaim: crashed"
jcheck "$c/cell.json" '[.events[].kind] | index("stack_overflow") != null' "LKDTM: a stack_overflow event"
check "LKDTM: the call trace is kept" grep -q "shrink_inactive_list" "$c/console.log"
check "LKDTM: lkdtm's own report is kept" grep -q "lkdtm: Crash point MEM_SWAPOUT of type EXHAUST_STACK" "$c/console.log"
id=$(basename "$(ls -d "$R/lkdtm"/2*/ | head -n 1)")
check "LKDTM: no domain left" sh -c "! virsh -c qemu:///system list --all --name | grep -q '$id'"
finish
