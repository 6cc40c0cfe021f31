#!/bin/sh
# Fault injection that needs the lab's own kernel (6.1, built with LKDTM):
# a kernel stack overflow. The agent writes EXHAUST_STACK to LKDTM's
# DIRECT trigger (wblab.fault=lkdtm:EXHAUST_STACK) once it has the plan;
# LKDTM's MEM_SWAPOUT crash point cannot be used on 6.1, whose
# shrink_inactive_list cannot be kprobed ("Couldn't register kprobe").
# Expected: crashed, a stack_overflow event, the call trace kept, no
# domain left. One cell (two to six minutes under TCG). Run from
# tests/e2e-slow.sh, after the 6.1 build.
. "$(dirname "$0")/lib.sh"

./wblab run --kernel 6.1 --topology none --workload noop --results "$R/lkdtm" \
	--boot-timeout 600 --cmdline-extra "wblab.fault=lkdtm:EXHAUST_STACK" >"$R/lkdtm.log" 2>&1
c=$(cell_dir "$R/lkdtm")
jcheck "$c/cell.json" '.outcome == "crashed"' "LKDTM stack overflow: crashed"
jcheck "$c/cell.json" '[.events[].kind] | index("stack_overflow") != null' "LKDTM: a stack_overflow event"
check "LKDTM: the call trace is kept" grep -q "lkdtm_EXHAUST_STACK\|recursive_loop" "$c/console.log"
check "LKDTM: lkdtm's own report is kept" grep -q "lkdtm: Performing direct entry EXHAUST_STACK" "$c/console.log"
id=$(basename "$(ls -d "$R/lkdtm"/2*/ | head -n 1)")
check "LKDTM: no domain left" sh -c "! virsh -c qemu:///system list --all --name | grep -q '$id'"
finish
