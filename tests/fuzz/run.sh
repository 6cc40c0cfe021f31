#!/bin/sh
# Run each libFuzzer harness in build-fuzz/fuzz/ for N seconds (make fuzz
# FUZZ_SECONDS=N), seeded from /work/shared/corpus and tests/data. Exits
# non-zero if any harness finds a crash, leak or timeout, printing the
# reproducer's path; prints each harness's executions and run time.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
B="$top/build-fuzz"
S="$B/seeds"
corpus=${WBLAB_CORPUS:-$top/../../shared/corpus/console}
[ -d "$corpus" ] || corpus=/work/shared/corpus/console
rm -rf "$S"
mkdir -p "$S" "$B/crashes" "$B/corpus"

seed() { # seed HARNESS NAME < data
	mkdir -p "$S/$1"
	cat >"$S/$1/$2"
}
n=0
for f in "$corpus"/logs/*.log "$top"/tests/data/console/*.log; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	seed console "c$n" <"$f"
	# DEBUG_STACK_USAGE lines live on consoles too.
	[ $((n % 10)) -eq 0 ] && seed stack "c$n" <"$f"
done
for d in "$top"/tests/data/*/*/ "$top"/tests/data/cell-smoke/; do
	b=$(basename "$d")
	[ -f "$d/fio.json" ] && seed fio "$b" <"$d/fio.json"
	if [ -f "$d/vmstat.before" ] && [ -f "$d/vmstat.after" ]; then
		{ cat "$d/vmstat.before"; printf '\0'; cat "$d/vmstat.after"; } | seed vmstat "$b"
	fi
	[ -f "$d/meminfo.before" ] && seed vmstat "$b.meminfo" <"$d/meminfo.before"
	for p in "$d"/pressure.*; do [ -f "$p" ] && seed vmstat "$b.$(basename "$p")" <"$p"; done
	[ -f "$d/timeseries.tsv" ] && seed vmstat "$b.ts" <"$d/timeseries.tsv"
	[ -f "$d/stack_trace" ] && seed stack "$b" <"$d/stack_trace"
	if [ -f "$d/trace.gz" ]; then
		# The head of a real trace (a whole one is too slow an input).
		{ gzip -dc "$d/trace.gz" | head -c 60000; printf '\0'
		  cat "$d/trace_stats.txt" 2>/dev/null; } | seed trace "$b"
	fi
	# A real channel: hello, the cell's files as F frames, the exit.
	{
		printf 'WBL1 H 11 hello\nrelease=6.1'
		for f in fio.json vmstat.before stack_trace; do
			[ -f "$d/$f" ] || continue
			printf 'WBL1 F %s %s\n' "$(head -c 3000 "$d/$f" | wc -c)" "$f"
			head -c 3000 "$d/$f"
		done
		printf 'WBL1 X 19 ok\nphase=\nlabel=\nrc=0\n'
	} | seed frames "$b"
	[ -f "$d/plan.txt" ] && seed frames "$b.plan" <"$d/plan.txt"
done
k=0
for kind in 0:lab/kernels 1:topologies 2:workloads 3:guests 4:lab/matrices 5:lab; do
	byte=${kind%%:*}
	for f in "$top/${kind#*:}"/*.yaml; do
		# lab/ itself holds only hosts.yaml of the hosts kind.
		[ "$byte" = 5 ] && [ "${f##*/}" != hosts.yaml ] && continue
		[ -f "$f" ] || continue
		k=$((k + 1))
		{ printf "\\$(printf '%03o' "$byte")"; cat "$f"; } | seed spec "s$k"
	done
done

fail=0
printf '%-14s %10s %8s %s\n' harness execs seconds result
for h in "$B"/fuzz/fuzz_*; do
	name=${h##*/fuzz_}
	mkdir -p "$B/corpus/$name"
	log="$B/fuzz-$name.log"
	"$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$B/crashes/$name-" \
		"$B/corpus/$name" "$S/$name" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	time=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
	if [ $rc -ne 0 ]; then
		fail=1
		art=$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | tail -n 1)
		printf '%-14s %10s %8s FAILED: reproducer %s (log %s)\n' \
			"$name" "${execs:-?}" "${time:-?}" "${art:-?}" "$log"
	else
		printf '%-14s %10s %8s ok\n' "$name" "${execs:-?}" "${time:-?}"
	fi
done
exit $fail
