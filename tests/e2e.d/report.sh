# wblab report/compare/aa on the captured runs of tests/data/report (no
# guest needed): the three formats, exit codes on bad input. Sourced by
# tests/e2e.sh.

AA="tests/data/report/aa/20261203-141600-381e tests/data/report/aa/20261203-141602-388e"
# shellcheck disable=SC2086
./wblab report $AA >"$R/report.txt" 2>"$R/report.err" &&
	! awk 'length > 80 { bad = 1 } END { exit !bad }' "$R/report.txt" &&
	! LC_ALL=C grep -q '[^ -~]' "$R/report.txt" &&
	pass "report: mail, printable ASCII, no line over 80 columns" ||
	fail "report mail: $(head -c 300 "$R/report.err")"
# shellcheck disable=SC2086
./wblab report --format html -o "$R/report.html" $AA 2>"$R/report-html.err" &&
	xmllint --html --noout "$R/report.html" 2>"$R/xmllint.err" && [ ! -s "$R/xmllint.err" ] &&
	! grep -q 'https\?://' "$R/report.html" &&
	pass "report: html parses with xmllint --html, no external URL" ||
	fail "report html: $(head -c 300 "$R/report-html.err" "$R/xmllint.err")"
# shellcheck disable=SC2086
./wblab report --format json $AA >"$R/report.json" 2>/dev/null
jcheck "$R/report.json" '.groups[0].n["debian-6.1"] == 12 and (.groups[0].rows | length) > 10' \
	"report: json has the group, n and the rows"
# shellcheck disable=SC2086
./wblab compare $AA >"$R/compare.txt" 2>&1 && grep -q 'debian-6.1@388e' "$R/compare.txt" &&
	pass "compare: the same kernel in two runs is two sides" || fail "compare: $(head -c 300 "$R/compare.txt")"
./wblab report /nonexistent 2>"$R/report-bad.err"
[ $? -eq 2 ] && grep -q '/nonexistent/run.json' "$R/report-bad.err" &&
	pass "report: a missing run dir exits 2 naming run.json" || fail "report bad dir: $(cat "$R/report-bad.err")"
./wblab report --format pdf tests/data/report/aa/20261203-141600-381e 2>"$R/report-fmt.err"
[ $? -eq 2 ] && grep -q -- '--format' "$R/report-fmt.err" &&
	pass "report --format pdf: exit 2 naming the option" || fail "report --format: $(cat "$R/report-fmt.err")"
# shellcheck disable=SC2086
./wblab aa $(printf -- '--from %s ' $AA) --splits 5 >"$R/aa.txt" 2>&1 &&
	grep -q '^A/A over 5 splits: mean 0.0% of rows flagged' "$R/aa.txt" &&
	pass "aa --from: 5 random splits of the 11 ok cells, no row flagged" ||
	fail "aa --from: $(tail -n 3 "$R/aa.txt")"
./wblab report --baseline 6.1 tests/data/report/ab >"$R/report-ab.txt" 2>&1 &&
	grep -q 'reclaim-wr-direct > 0 .* 0:5 .* 5:5 p=0.0079\*' "$R/report-ab.txt" &&
	! awk 'length > 80 { bad = 1 } END { exit !bad }' "$R/report-ab.txt" &&
	pass "report: the A/B known answer (direct reclaim writes, 0:5 against 5:5) is starred" ||
	fail "report A/B: $(grep 'reclaim-wr-direct >' "$R/report-ab.txt")"

# -o over a device node (docs/hardening.md): a /dev/null-like node made
# here, never the host's, stays a character device and takes the output; a
# node that could do harm (/dev/mem's numbers) is refused, exit 1.
N="$R/nodes"
mkdir -p "$N" && mknod "$N/null" c 1 3 && mknod "$N/mem" c 1 1
./wblab export --kcidb tests/data/report/aa/20261203-141600-381e -o "$N/null" 2>"$R/node-null.err" &&
	./wblab report tests/data/report/aa/20261203-141600-381e -o "$N/null" 2>>"$R/node-null.err" &&
	[ -c "$N/null" ] && ! ls "$N" | grep -q tmp &&
	pass "-o over a /dev/null-like node writes into it, the node stays a character device" ||
	fail "-o over a null node: $(ls -l "$N"; head -c 300 "$R/node-null.err")"
./wblab export --kcidb tests/data/report/aa/20261203-141600-381e -o "$N/mem" 2>"$R/node-mem.err"
rc=$?
[ $rc -ne 0 ] && [ -c "$N/mem" ] && grep -q 'not a regular file' "$R/node-mem.err" &&
	pass "-o over another device node is refused (exit $rc), the node unchanged" ||
	fail "-o over a mem node: exit $rc, $(ls -l "$N/mem"; head -c 300 "$R/node-mem.err")"

# show: cells by kernel as the run declared them, then rep (run.json's
# order is shuffled); counters as whole numbers.
./wblab show --json tests/data/report/ab >"$R/show.json" 2>"$R/show.err"
jcheck "$R/show.json" '[.cells[] | [.kernel, .rep]] == ([.cells[] | [.kernel, .rep]] | sort_by(.[0] != "6.1", .[1]))' \
	"show: cells sorted by declared kernel, then rep"
./wblab show tests/data/report/ab | awk '$1 == "6.1-direct-writeback" && $2 == 1 { print $6 }' | grep -qx 967 &&
	pass "show: a counter prints as an integer (967 pages, not 967.0)" ||
	fail "show: $(./wblab show tests/data/report/ab | sed -n 9p)"

# HTML: no "inf%", "n/a%" or "nan%" in any captured run's report (a
# change from 0 reads "from 0", as in the mail); the legend names the
# test that starred the rows; the time series plot has MemFree on its own
# axis (the SVG, base64 in a data: URI, decoded here).
bad=
for run in $(find tests/data/report -name run.json -exec dirname {} \;); do
	./wblab report --format html -o "$R/each.html" "$run" 2>/dev/null || continue
	grep -q 'inf%\|n/a%\|nan%' "$R/each.html" && bad="$bad $run"
done
[ -z "$bad" ] && pass "report html: no inf%, n/a% or nan% in any captured run" || fail "html percents in:$bad"
./wblab report --format html -o "$R/aa1.html" tests/data/report/aa/20261203-141602-388e 2>/dev/null
grep -q "A star: each row's own test (below), Simes within a family" "$R/aa1.html" &&
	pass "report html: the legend names the default test (fit)" || fail "html legend: $(grep -o 'A star: .\{60\}' "$R/aa1.html")"
grep -o 'alt="time series of [^"]*" src="data:image/svg+xml;base64,[^"]*"' "$R/aa1.html" | head -n 1 |
	sed 's/.*base64,//; s/"$//' | base64 -d 2>/dev/null | grep -q 'MemFree MiB' &&
	pass "report html: MemFree on its own axis in the time series" || fail "html time series: no MemFree axis"

# The mail's deepest chain is an excerpt of the path, not the bottom
# frames: the leaf, the block-layer entry, the writeback or reclaim path,
# the root, the frames between counted; the demo's A/B within 100 lines.
./wblab report tests/data/report/ab >"$R/ab-mail.txt" 2>/dev/null
sed -n '/^Deepest chain/,/^$/p' "$R/ab-mail.txt" >"$R/ab-chain.txt"
grep -q 'submit_bio_noacct_nocheck' "$R/ab-chain.txt" && grep -q 'wb_workfn' "$R/ab-chain.txt" &&
	grep -q 'ret_from_fork' "$R/ab-chain.txt" && grep -q '(12 frames)' "$R/ab-chain.txt" &&
	[ "$(wc -l <"$R/ab-mail.txt")" -le 100 ] &&
	pass "mail: the chain shows the writeback path to the block layer; the A/B mail <= 100 lines" ||
	fail "mail chain: $(wc -l <"$R/ab-mail.txt") lines, $(cat "$R/ab-chain.txt")"

# The mail stands alone: its runs, the wblab that made it, the command,
# and the workload's one-line description.
grep -q '^  runs: 20261203-153350-2aaf; wblab ' "$R/ab-mail.txt" &&
	grep -q '^  made by: wblab report tests/data/report/ab$' "$R/ab-mail.txt" &&
	grep -q '^Workload: The known-answer workload' "$R/ab-mail.txt" &&
	pass "mail: header names the run, the wblab build, the command and the workload" ||
	fail "mail header: $(head -4 "$R/ab-mail.txt")"

# Rows of a side with fewer than 3 cells say their n, never a percentage
# (tests/data/report/oom has 2 cells a kernel).
./wblab report tests/data/report/oom 2>/dev/null | grep '^Gmean    fio-write' >"$R/oom-row.txt"
grep -q '(     n=2) .*(     n=2)$' "$R/oom-row.txt" && ! grep -q '%' "$R/oom-row.txt" &&
	pass "mail: a side with n < 3 shows its n, not a change in %" || fail "n<3 row: $(cat "$R/oom-row.txt")"
