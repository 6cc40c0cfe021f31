#!/bin/sh
# The nightly's whole path, for real (#24 item 3; run by tests/e2e-slow.sh,
# `make check-slow`), on the jobs' test tree (tests/jobs/make-test-tree.sh)
# with dirty-flood on ext4-disk (tests/jobs/nightly-ext4.yaml: the jobs'
# matrix with a second watched row, workload-time at 100%). The nightly
# follows a branch of that tree (refs/heads/wblab-e2e-nightly) that this
# script moves from night to night; nights are steps 1-9:
#  1. base: a first good night (nothing to compare with, no mail);
#  2. the 8th commit (comments near the top of C files move __LINE__):
#     the image differs, the behaviour does not: no mail;
#  3. the same commit again (a night without new commits): no mail;
#  4. the 10th commit, the last before the revert, on a slow night of the
#     host: every cell of the night has its test disk throttled to 8 MiB/s
#     of writes (virsh blkdeviotune, applied from here while the night's
#     cells boot). Detection (tonight's 3 cells against the last good
#     night's, one look at 0.05) sees workload-time several times longer,
#     beyond its 100% threshold: a candidate. Confirmation re-runs the
#     last good commit against tonight's, interleaved, with the disk as
#     it always is, and must call it `same` (TOST within 100%; 5 cells a
#     side suffice at this row's ~25% spread): a rejected candidate, with
#     its figures in wblab.db and `wblab history`, no bisection, no mail.
#     The check fails if the throttle missed a cell, if the candidate was
#     not raised, or if the re-run said different or unknown.
#  5. the 10th commit again, the disk as usual: a good night;
#  6. the head, whose new commits include the direct-writeback revert:
#     detected, confirmed (the last good commit re-run against it),
#     bisected to the revert, mailed (a file and the sendmail argv);
#  7, 8. the head again: a candidate (carried from night 6 when the
#     detection's 3 cells a side miss it), confirmed again, a known
#     regression (confirmed on night 6 since the same last good night):
#     not bisected or mailed again. `wblab history --changes` after 6 and 7 finds no change point
#     in reclaim-wr-direct (the change is at tonight or yesterday: a
#     segment after it would be shorter than 3 nights, the minimum; the
#     candidate came from the comparison with the last good night), and
#     after 8 finds it between nights 5 and 6 with 5 nights before and 3
#     after, worse, p <= 0.05, and no change point among nights 1-5 in
#     any series (the throttled night is one odd night, not a change);
#     the HTML history marks it; night 8's nightly, which looks for a
#     change point reaching tonight itself, raises no second candidate
#     from it (the row is one already, confirmed on night 6 after it);
#  9. the maintainer dropped the revert: night 5's commit plus three new
#     commits, the second a panic in balance_dirty_pages() armed at boot
#     in 7 of 8 (some cells crash, not all): the new event kind is a
#     candidate, confirmed by its rate, bisected as an event to that commit;
# 10. git bisect run wblab bisect-step in a worktree of the tree (sparse:
#     top-level files only), driven by git, names the revert;
# 11. wblab bisect killed with SIGKILL (its whole process group) in the
#     middle of a step, then --resume: no finished step run again, no
#     domain of the killed run left.
# Prints each night's timings (detection, confirmation, bisection, mail).
# Run it under /var/tmp/wb/guest-lock. Environment: JOBS_TREE, NIGHTLY_RESULTS,
# NIGHTLY_JOBS (cells at once, default 0: what the host allows),
# NIGHTLY_STEPS (default "1 2 3 4 5 6 7 8 9 10 11": a later step alone
# reuses the NIGHTLY_RESULTS of a run that did the ones before).
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
wblab=$here/wblab
tree=${JOBS_TREE:-/var/lib/wblab/jobs-test/linux}
results=${NIGHTLY_RESULTS:-/var/lib/wblab/jobs-test/nightly-$(date +%Y%m%d-%H%M%S)}
matrix=$here/tests/jobs/dirty-ext4.yaml
nmatrix=$here/tests/jobs/nightly-ext4.yaml
jobs=${NIGHTLY_JOBS:-0}
branch=wblab-e2e-nightly
fails=0
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
now() { date +%s; }
out=$results/out
steps=${NIGHTLY_STEPS:-1 2 3 4 5 6 7 8 9 10 11}
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$out"

"$here/tests/jobs/make-test-tree.sh" "$tree" >"$out/tree" || { fail "test tree"; exit 1; }
base=$(sed -n 's/^base //p' "$out/tree")
head=$(sed -n 's/^head //p' "$out/tree")
grep1() { git -C "$tree" log --format=%H --grep="$1" "$base..$head"; }
revert=$(grep1 '^mm: vmscan: let direct reclaim write dirty file folios again$')
before=$(grep1 '^writeback: trailing comment$')
c8=$(grep1 '^docs: mm concepts: reclaim$')
echo "tree $tree: base $base, nights 2-3 $c8, nights 4-5 $before, head $head, the revert $revert"

# A commit on parent changing one file (sed script), made with plumbing:
# the tree's HEAD and working files stay as they are.
export GIT_AUTHOR_NAME=wblab GIT_AUTHOR_EMAIL=wblab@localhost
export GIT_COMMITTER_NAME=wblab GIT_COMMITTER_EMAIL=wblab@localhost
export GIT_AUTHOR_DATE=2026-01-02T00:00:00Z GIT_COMMITTER_DATE=2026-01-02T00:00:00Z
edit_commit() { # parent file sed-script subject
	idx=$out/index
	git -C "$tree" show "$1:$2" | sed "$3" >"$out/blob"
	blob=$(git -C "$tree" hash-object -w "$out/blob")
	GIT_INDEX_FILE=$idx git -C "$tree" read-tree "$1"
	GIT_INDEX_FILE=$idx git -C "$tree" update-index --cacheinfo "100644,$blob,$2"
	t=$(GIT_INDEX_FILE=$idx git -C "$tree" write-tree)
	rm -f "$idx"
	git -C "$tree" commit-tree "$t" -p "$1" -m "$4"
}
# The crash night's three commits each change the image (a comment at
# the top of a C file moves __LINE__ in its WARN_ONs), so that the event
# bisection's middle steps run cells and are decided by the crash's rate,
# not by an end's image.
x1=$(edit_commit "$before" mm/page-writeback.c \
	'1a/* wblab e2e nightly: the dirty limits are counted in pages */' \
	"mm: page-writeback: note the dirty limits' unit")
# The crash: armed at the first call in a boot (7 boots in 8), it panics
# the guest when fio (not mkfs, which also writes through the page cache)
# is throttled; called where the throttling starts (as a declaration: no
# statement before the function's others). A panic ends the cell at once
# (panic=-1, the domain is destroyed on reboot): an oops in the writer
# left the guest in a recursive fault until the cell's timeout. The
# arming is random (85 of 97 boots of crash kernels crashed, 87.6%): the
# bisection names this commit with probability 0.995, not 1
# (tests/ref/bisect_events.py; docs/jobs.md has a night 9 that lost).
crash='/^static int balance_dirty_pages(struct bdi_writeback \*wb,$/i\
/* wblab e2e nightly: an injected crash, armed at boot in 7 of 8 */\
#include <linux/random.h>\
static bool wblab_crash_check(void)\
{\
	static int armed = -1;\
\
	if (armed < 0)\
		armed = get_random_u32_below(8) != 0;\
	if (armed && !strcmp(current->comm, "fio"))\
		panic("wblab e2e nightly: injected crash in balance_dirty_pages");\
	return false;\
}\

/^static int balance_dirty_pages(struct bdi_writeback \*wb,$/,/^{$/{
/^{$/a\
	bool wblab_crashed __maybe_unused = wblab_crash_check();
}'
x2=$(edit_commit "$x1" mm/page-writeback.c "$crash" "mm: page-writeback: check the dirty throttling state")
x3=$(edit_commit "$x2" fs/ext4/inode.c '1a/* wblab e2e nightly: ext4 inode note */' "ext4: inode: a note at the top")
echo "crash night: $x1 $x2 (the crash) $x3"

cat >"$out/nightly.yaml" <<YAML
description: e2e nightly (tests/jobs/e2e-nightly.sh)
matrix: $nmatrix
results: $results/db
trees:
  - name: jobs
    path: $tree
    ref: $branch
mail:
  to: linux-mm@kvack.org
  from: wblab <wblab@localhost>
  sendmail: [/usr/bin/tee, -a, $out/sent.mbox]
YAML

mails() { ls "$results"/db/nightly-*.mail 2>/dev/null | wc -l; }
# night N COMMIT: move the branch, run the night; rc in $rc, output in night-N.out
night() {
	git -C "$tree" update-ref "refs/heads/$branch" "$2"
	t0=$(now)
	"$wblab" nightly --jobs "$jobs" "$out/nightly.yaml" >"$out/night-$1.out" 2>"$out/night-$1.err"
	rc=$?
	dt=$(($(now) - t0))
	sed 's/^/    /' "$out/night-$1.out"
	echo "night $1 ($2): exit $rc in $dt s; $(grep '^timings:' "$out/night-$1.out")" |
		tee -a "$out/timings"
}
# The newest mail: 80 columns, plain text, its subject.
check_mail() { # night subject-pattern first-bad
	m=$(ls -t "$results"/db/nightly-*.mail | head -1)
	if awk 'length > 80 { bad = 1 } END { exit bad }' "$m"; then
		pass "night $1: the mail is within 80 columns ($m)"
	else
		fail "night $1: a line over 80 columns in $m"
	fi
	if grep -q "^Subject: $2" "$m" && grep -q "^commit: $3 " "$m"; then
		pass "night $1: mail '$(sed -n 's/^Subject: //p' "$m")', commit: $3"
	else
		fail "night $1: mail subject/commit (want $2, $3)"; head -30 "$m"
	fi
}

# expect_night N COMMIT RC MAILS WHAT [FIRST-BAD SUBJECT]: night N on
# COMMIT exits RC with MAILS mails in all; with FIRST-BAD, its candidate
# was confirmed, bisected to FIRST-BAD and mailed under SUBJECT (a grep
# pattern) within 80 columns.
expect_night() {
	want "$1" || return 0
	night "$1" "$2"
	ok=1
	{ [ $rc = "$3" ] && [ "$(mails)" = "$4" ]; } || ok=0
	if [ $# -gt 5 ] && ! { grep -q "^candidate confirmed" "$out/night-$1.out" &&
		grep -q "^first bad commit: $6 " "$out/night-$1.out"; }; then
		ok=0
	fi
	if [ $ok = 0 ]; then
		fail "night $1: rc=$rc (want $3), $(mails) mails (want $4)${6:+, first bad $6}"
		tail -30 "$out/night-$1.err"
		return
	fi
	pass "night $1: $5"
	if [ $# -gt 5 ]; then
		check_mail "$1" "$7" "$6"
	fi
}

# The throttle of night 4: every domain of the first run the nightly
# starts (the night's cells; the confirmation's re-run is a later run)
# gets its test disk (disk0.img) limited to $1 bytes/s of writes as soon
# as it is up, long before the workload (boot, mkfs and the prefill come
# first). Each domain throttled is listed in $out/throttled. $2: how
# many runs there were before the night.
throttle_cells() {
	while :; do
		run=$(ls -d "$results"/db/2*-*/ 2>/dev/null | sort | sed -n "$(($2 + 1))p")
		if [ -n "$run" ]; then
			id=$(basename "$run")
			for d in $(virsh -c qemu:///system list --name | grep "^wblab-$id-"); do
				grep -qxF "$d" "$out/throttled" && continue
				dev=$(virsh -c qemu:///system domblklist "$d" 2>/dev/null |
					awk '$2 ~ /\/disk0\.img$/ { print $1 }')
				[ -n "$dev" ] && virsh -c qemu:///system blkdeviotune "$d" "$dev" \
					--write-bytes-sec "$1" --live >/dev/null 2>&1 &&
					echo "$d" >>"$out/throttled"
			done
		fi
		sleep 0.5
	done
}

# The change points of the test history: $out/changes-N.json after night N.
changes() {
	"$wblab" history --results "$results/db" --changes --json >"$out/changes-$1.json" 2>&1
	"$wblab" history --results "$results/db" --changes >"$out/changes-$1.out" 2>&1
	sed 's/^/    /' "$out/changes-$1.out"
}
# changed N METRIC: the change points of METRIC after night N, one line
# each "BEFORE-NIGHT AFTER-NIGHT NIGHTS-BEFORE NIGHTS-AFTER DIRECTION P";
# with METRIC "*", every metric's.
changed() {
	python3 - "$out/changes-$1.json" "$2" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1])):
    if sys.argv[2] in ("*", c["metric"]):
        print(c["before"]["night"], c["after"]["night"], c["before"]["nights"],
              c["after"]["nights"], c["direction"], c["p"], c["metric"])
PY
}
# The id of night N in wblab.db (the nights are recorded in order).
night_id() {
	python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT id FROM nights ORDER BY id LIMIT 1 OFFSET ?", (int(sys.argv[2]) - 1,)).fetchone()[0])' \
		"$results/db/wblab.db" "$1"
}

# 1. A first good night.
expect_night 1 "$base" 0 0 "a first good night, no mail"
if want 1 && ! grep -q "last good night on .*: none yet" "$out/night-1.out"; then
	fail "night 1: a last good night before the first"
fi
# 2. Harmless noise: a new image, the same behaviour.
expect_night 2 "$c8" 0 0 "harmless commits (new image), no mail"
# 3. No new commit.
expect_night 3 "$c8" 0 0 "the same commit again, no mail"

# 4. A slow night of the host: the rejected candidate.
if want 4; then
	: >"$out/throttled"
	throttle_cells $((8 << 20)) "$(ls -d "$results"/db/2*-*/ 2>/dev/null | wc -l)" &
	tpid=$!
fi
expect_night 4 "$before" 0 0 "a throttled test disk: a candidate, rejected, no mail"
if want 4; then
	kill $tpid
	wait $tpid 2>/dev/null
	nthr=$(wc -l <"$out/throttled")
	run4=$(sed -n 's/^cells: \([^ ]*\) .*/\1/p' "$out/night-4.out")
	ncells=$(ls -d "$run4"/cells/*/ 2>/dev/null | wc -l)
	# the detection's row: '*' (a regression of the detection), the change
	det=$(grep '^\* workload-time ' "$out/night-4.out")
	# the re-run's verdict on it, and the outcome
	conf=$(grep '^ *same  *workload-time: ' "$out/night-4.out")
	if [ "$nthr" -ge 3 ] && [ "$nthr" = "$ncells" ] && [ -n "$det" ] && [ -n "$conf" ] &&
		grep -q '^candidate rejected (the re-run: ' "$out/night-4.out" &&
		! grep -q '^Bisecting' "$out/night-4.out"; then
		pass "night 4: $nthr of $ncells cells throttled; detection:$(echo "$det" | tr -s ' ' ' ' | cut -c2-); re-run:$(echo "$conf" | tr -s ' ' ' ')"
	else
		fail "night 4: $nthr of ${ncells:-?} cells throttled; detection '${det:-no candidate}'; re-run '${conf:-not same}'"
		grep -A12 '^Confirmation' "$out/night-4.out"
	fi
fi
# 5. The same commit, the disk as always.
expect_night 5 "$before" 0 0 "the same commit, the disk as usual, no mail"
# 6. The revert among the new commits.
expect_night 6 "$head" 1 1 "detected, confirmed, bisected to $revert, mailed" \
	"$revert" "\[jobs\] $(echo "$revert" | cut -c1-10): reclaim-wr-direct"
if want 6; then
	if grep -q "^Subject: \[jobs\]" "$out/sent.mbox" 2>/dev/null; then
		pass "night 6: the mail went through the sendmail argv"
	else
		fail "night 6: nothing reached the sendmail argv"
	fi
fi
# 7, 8. The head again: a known regression, mailed once; the change point
# shows once three nights are on its far side.
for n in 6 7 8; do
	want $n || continue
	if [ $n != 6 ]; then
		expect_night $n "$head" 1 1 "the regression again: confirmed, known since night 6, not bisected or mailed again"
		if grep -q '^known regression: reclaim-wr-direct .* confirmed on night ' "$out/night-$n.out" &&
			! grep -q '^Bisecting' "$out/night-$n.out"; then
			pass "night $n: $(grep '^known regression' "$out/night-$n.out")"
		else
			fail "night $n: not recognised as the known regression"
		fi
	fi
	changes $n
	cp=$(changed $n reclaim-wr-direct)
	if [ $n != 8 ]; then
		if [ -z "$cp" ] && grep -q '^\[' "$out/changes-$n.json"; then
			pass "night $n: no change point in reclaim-wr-direct yet ($((n - 5)) night(s) from the revert on: fewer than 3, the shortest segment)"
		else
			fail "night $n: change points '$cp' ($(head -3 "$out/changes-$n.json"))"
		fi
		continue
	fi
	n5=$(night_id 5)
	n6=$(night_id 6)
	# The nightly looks for the same change point reaching tonight: no
	# second candidate of the row (already one, detected or carried; and
	# confirmed on night 6, after the change).
	if grep -q '^change point: ' "$out/night-8.out"; then
		fail "night 8: the change point raised a candidate again: $(grep '^change point: ' "$out/night-8.out")"
	else
		pass "night 8: the change point at tonight raised no second candidate"
	fi
	early=$(changed 8 '*' | awk -v n6="$n6" '$2 < n6')
	if [ "$(echo "$cp" | awk '{ print $1, $2, $3, $4, $5, ($6 <= 0.05) }')" = "$n5 $n6 5 3 worse 1" ] &&
		[ -z "$early" ]; then
		pass "night 8: reclaim-wr-direct changes between nights $n5 and $n6:$(awk '/ reclaim-wr-direct \(/ { f = 1; next } f { print; exit }' "$out/changes-8.out" | sed 's/^ *night [0-9]* ([0-9a-f]*) | night [0-9]* ([0-9a-f]*)//'); none among nights 1-5"
	else
		fail "night 8: change points of reclaim-wr-direct '$cp' (want $n5 $n6 5 3 worse p<=0.05); before night $n6: '$early'"
	fi
	"$wblab" history --results "$results/db" --html "$out/history-8.html" >/dev/null 2>&1
	if grep -q "reclaim-wr-direct ([0-9]* nights, 1 change point)</h2>" "$out/history-8.html" &&
		grep -q "<p>change after night $n5 (.*before night $n6 (" "$out/history-8.html" &&
		grep -q "change p=" "$out/history-8.html"; then
		pass "night 8: the HTML history marks the change (a dashed line and its note)"
	else
		fail "night 8: the HTML history does not mark the change ($out/history-8.html)"
	fi
done
# 9. An injected crash in some cells.
expect_night 9 "$x3" 1 2 "the crash confirmed by its rate, bisected as an event to $x2, mailed" \
	"$x2" "\[jobs\] $(echo "$x2" | cut -c1-10): "
# Its middle steps ran cells (every commit has its own image) and were
# decided against the good end by the crash's rate (Fisher).
if want 9; then
	sed -n '/^steps:$/,/^$/p' "$out/night-9.out" >"$out/steps-9"
	nrate=$(grep -c '^    vs good: different .*fisher' "$out/steps-9")
	if [ "$nrate" -ge 1 ]; then
		pass "night 9: $nrate middle step(s) decided by the rate: $(grep '^  [0-9]*\. ' "$out/steps-9" | sed 's/ ("[^"]*")//' | tr -s ' ' ' ' | paste -sd';' -)"
	else
		fail "night 9: no middle step decided by the rate"; cat "$out/steps-9"
	fi
fi

"$wblab" history --results "$results/db" --html "$out/history.html" >"$out/history.out" 2>&1
"$wblab" history --results "$results/db" --changes >>"$out/history.out" 2>&1
sed 's/^/    /' "$out/history.out"
if grep -q "^candidates" "$out/history.out" && grep -q "<h2>Candidates</h2>" "$out/history.html"; then
	pass "history: the candidates with their outcomes (table and HTML)"
else
	fail "history: no candidates shown"
fi
if [ -f "$out/night-4.out" ]; then
	n4=$(night_id 4)
	row=$(grep "^$n4 .* workload-time .* rejected *same " "$out/history.out")
	if [ -n "$row" ] && grep -q "<td>$n4</td>.*<td>workload-time</td><td>rejected</td><td>same</td>" "$out/history.html"; then
		pass "history: night 4's rejected candidate: $(echo "$row" | tr -s ' ' ' ')"
	else
		fail "history: night 4's rejected candidate not shown"
	fi
	# Its re-run ran night 3's commit (the last good night) against
	# night 4's: the table's "against" column and --json's ref_commit.
	"$wblab" history --results "$results/db" --json >"$out/history.json" 2>&1
	ref=$(python3 - "$out/history.json" "$n4" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["candidates"]:
    if c["night"] == int(sys.argv[2]) and c["candidate"] == "workload-time":
        print(c["ref_commit"])
PY
)
	if [ "$ref" = "$c8" ] && echo "$row" | grep -q "^$n4 *$(echo "$before" | cut -c1-12) *$(echo "$c8" | cut -c1-12) "; then
		pass "history: night 4's candidate re-ran against $c8 (table and --json)"
	else
		fail "history: night 4's ref_commit '$ref' (want $c8)"
	fi
fi

# KCIDB: the confirmations' re-runs (the last good commit against the
# night's, decided), as KernelCI would be sent them, valid under v5.3.
schema=${WBLAB_KCIDB_SCHEMA:-$here/../shared/kcidb/kcidb-v5.3.schema.json}
for n in 6 9; do
	[ -f "$out/night-$n.out" ] || continue
	rerun=$(sed -n 's/^candidate [a-z]* (the re-run: \(.*\))$/\1/p' "$out/night-$n.out" | head -1)
	if [ -z "$rerun" ]; then
		fail "kcidb: night $n has no re-run"
		continue
	fi
	"$wblab" export --kcidb "$rerun" -o "$out/kcidb-$n.json" 2>"$out/kcidb-$n.err" &&
		python3 "$here/tests/kcidb_validate.py" "$schema" "$out/kcidb-$n.json" >>"$out/kcidb-$n.err" 2>&1
	erc=$?
	failed=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("; ".join(t["path"] + " " + t.get("log_excerpt", "")[:60]
                for t in d["tests"] if t["status"] == "FAIL" and "misc" in t
                and "p" in t["misc"]))' "$out/kcidb-$n.json" 2>/dev/null)
	if [ $erc = 0 ] && [ -n "$failed" ]; then
		pass "kcidb: night $n's re-run valid under $(basename "$schema"), FAIL: $failed"
	else
		fail "kcidb: night $n's re-run (exit $erc, FAIL tests: ${failed:-none})"
		tail -5 "$out/kcidb-$n.err"
	fi
done

if want 10; then
# 10. git bisect run, in a worktree of the tree (the build tree is shared).
wt=$results/worktree
t0=$(now)
git -C "$tree" worktree add -q --no-checkout --detach "$wt" "$head" &&
	git -C "$wt" sparse-checkout set --cone >/dev/null 2>&1 &&
	git -C "$wt" checkout -q --detach "$head" &&
	git -C "$wt" bisect start "$head" "$before" >/dev/null &&
	git -C "$wt" bisect run "$wblab" bisect-step --jobs "$jobs" --tree "$wt" --good "$before" \
		--bad "$head" --matrix "$matrix" --metric reclaim-wr-direct \
		--results "$results/git-bisect" >"$out/git-bisect.out" 2>"$out/git-bisect.err"
git -C "$wt" bisect reset >/dev/null 2>&1
git -C "$tree" worktree remove --force "$wt"
git -C "$tree" worktree prune
sed 's/^/    /' "$out/git-bisect.out"
echo # git's last line has no newline
if grep -q "^$revert is the first bad commit" "$out/git-bisect.out"; then
	pass "git bisect run wblab bisect-step: $revert in $(($(now) - t0)) s"
else
	fail "git bisect run"; tail -30 "$out/git-bisect.err"
fi
fi

if want 11; then
# 11. SIGKILL in the middle of a step, then --resume.
r=$results/resume
mkdir -p "$r"
bisect() { "$wblab" bisect --jobs "$jobs" --tree "$tree" --good "$before" --bad "$head" \
	--matrix "$matrix" --metric reclaim-wr-direct --results "$r" "$@"; }
t0=$(now)
setsid sh -c 'exec "$0" bisect --tree "$1" --good "$2" --bad "$3" --matrix "$4" --metric reclaim-wr-direct --results "$5" --jobs "$6"' \
	"$wblab" "$tree" "$before" "$head" "$matrix" "$r" "$jobs" >"$out/killed.out" 2>"$out/killed.err" &
pid=$!
# The ends' run, step 1's run, then a third run with a cell started.
runs() { ls -d "$r"/2*-*/ 2>/dev/null | wc -l; }
while kill -0 $pid 2>/dev/null; do
	if [ "$(runs)" -ge 3 ] && ls -d "$(ls -d "$r"/2*-*/ | sort | tail -1)"cells/*/ >/dev/null 2>&1; then
		break
	fi
	sleep 1
done
if kill -0 $pid 2>/dev/null; then
	killed=$(ls -d "$r"/2*-*/ | sort | tail -1)
	killed=$(basename "$killed")
	kill -KILL -$pid
	wait $pid 2>/dev/null
	log=$(ls "$r"/bisect-*/bisect.json)
	cp "$log" "$out/before-resume.json"
	left=$(virsh -c qemu:///system list --all --name 2>/dev/null | grep -c "$killed")
	echo "killed in run $killed after $(($(now) - t0)) s; $left domain(s) of it left running"
	bisect --resume "$log" >"$out/resumed.out" 2>"$out/resumed.err"
	rc=$?
	sed 's/^/    /' "$out/resumed.out"
	orphans=$(virsh -c qemu:///system list --all --name 2>/dev/null | grep -c "$killed")
	# Every step the log had finished keeps its run: none ran again.
	python3 - "$out/before-resume.json" "$log" >"$out/resume-check" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
done = {s["commit"]: s.get("run") for s in a.get("steps", []) if s.get("order")}
again = [c for c, run in done.items()
         for s in b.get("steps", []) if s["commit"] == c and s.get("run") != run]
print(len(done), len(again))
PY
	read -r ndone nagain <"$out/resume-check"
	if [ $rc = 0 ] && grep -q "^first bad commit: $revert " "$out/resumed.out" &&
		[ "$nagain" = 0 ] && [ "$ndone" -ge 1 ] && [ "$orphans" = 0 ]; then
		pass "bisect --resume after SIGKILL: $revert; $ndone finished step(s) not run again; no domain of $killed left"
	else
		fail "bisect --resume: rc=$rc, $ndone done, $nagain run again, $orphans domain(s) of $killed left"
		tail -20 "$out/resumed.err"
	fi
else
	fail "bisect --resume: the bisection ended before a third run (nothing to kill)"
fi
fi

git -C "$tree" update-ref -d "refs/heads/$branch"
echo "timings:"
sed 's/^/    /' "$out/timings" 2>/dev/null
echo "results in $results"
[ $fails = 0 ]
