# Kernel events from a real guest: an OOM kill is reported with its victim;
# the normal runs above reported none. Sourced by tests/e2e.sh.

./wblab run --kernel debian-6.1 --topology none --workload oom-hog --results "$R/oom" >"$R/oom.log" 2>&1
c=$(cell_dir "$R/oom")
jcheck "$c/cell.json" '.console_kind == "oom"' "oom-hog: the console's primary event is an OOM"
jcheck "$c/cell.json" '[.events[] | select(.kind == "oom")][0] | .scope == "global" and .victim == "wblab-hog" and .pid > 0' \
	"oom-hog: the OOM event names its victim and pid"
jcheck "$c/cell.json" '.metrics.oom_kill >= 1' "oom-hog: vmstat counts the kill"
jcheck "$c/cell.json" '.outcome == "workload-failed"' "oom-hog: the killed hog fails the workload, not the kernel"

./wblab run --kernel debian-6.1 --topology none --workload oom-memcg --results "$R/oomcg" >"$R/oomcg.log" 2>&1
c=$(cell_dir "$R/oomcg")
jcheck "$c/cell.json" '[.events[] | select(.kind == "oom")][0] | .scope == "memcg" and .memcg == "/wblab" and .victim == "wblab-hog"' \
	"oom-memcg: a memcg OOM in /wblab with its victim"
check "parse-console finds the same on the saved console" sh -c "./wblab parse-console --json '$c/console.log' | jq -e '.kind == \"oom\"'"
