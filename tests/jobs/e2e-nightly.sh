#!/bin/sh
# The nightly's whole path, for real (#24 item 3; run by tests/e2e-slow.sh,
# `make check-slow`), on the jobs' test tree (tests/jobs/make-test-tree.sh)
# with dirty-flood on ext4-disk (tests/jobs/dirty-ext4.yaml). The nightly
# follows a branch of that tree (refs/heads/wblab-e2e-nightly) that this
# script moves from night to night:
#  1. base: a first good night (nothing to compare with, no mail);
#  2. the 10th commit, before the revert: the image differs (comments near
#     the top of C files move __LINE__), the behaviour does not: no mail;
#  3. the head, whose new commits include the direct-writeback revert:
#     detected, confirmed (the last good commit re-run against it), bisected
#     to the revert, mailed (a file and the sendmail argv);
#  4. the maintainer dropped the revert: night 2's commit plus three new
#     commits, the second a panic in balance_dirty_pages() armed at boot
#     in 7 of 8 (some cells crash, not all): the new event kind is a
#     candidate, confirmed by its rate, bisected as an event to that commit;
#  5. git bisect run wblab bisect-step in a worktree of the tree (sparse:
#     top-level files only), driven by git, names the revert;
#  6. wblab bisect killed with SIGKILL (its whole process group) in the
#     middle of a step, then --resume: no finished step run again, no
#     domain of the killed run left.
# Prints each night's timings (detection, confirmation, bisection, mail).
# Run it under /var/tmp/wb/guest-lock. Environment: JOBS_TREE, NIGHTLY_RESULTS,
# NIGHTLY_STEPS (default "1 2 3 4 5 6": a later step alone reuses the
# NIGHTLY_RESULTS of a run that did the ones before).
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
wblab=$here/wblab
tree=${JOBS_TREE:-/var/lib/wblab/jobs-test/linux}
results=${NIGHTLY_RESULTS:-/var/lib/wblab/jobs-test/nightly-$(date +%Y%m%d-%H%M%S)}
matrix=$here/tests/jobs/dirty-ext4.yaml
branch=wblab-e2e-nightly
fails=0
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
now() { date +%s; }
out=$results/out
steps=${NIGHTLY_STEPS:-1 2 3 4 5 6}
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$out"

"$here/tests/jobs/make-test-tree.sh" "$tree" >"$out/tree" || { fail "test tree"; exit 1; }
base=$(sed -n 's/^base //p' "$out/tree")
head=$(sed -n 's/^head //p' "$out/tree")
grep1() { git -C "$tree" log --format=%H --grep="$1" "$base..$head"; }
revert=$(grep1 '^mm: vmscan: let direct reclaim write dirty file folios again$')
before=$(grep1 '^writeback: trailing comment$')
echo "tree $tree: base $base, night 2 $before, head $head, the revert $revert"

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
x1=$(edit_commit "$before" Documentation/admin-guide/sysctl/vm.rst \
	'$a\\n.. wblab e2e nightly: dirty_bytes note' "docs: vm sysctl: note dirty_bytes")
# The crash: armed at the first call in a boot (7 boots in 8), it panics
# the guest when fio (not mkfs, which also writes through the page cache)
# is throttled; called where the throttling starts (as a declaration: no
# statement before the function's others). A panic ends the cell at once
# (panic=-1, the domain is destroyed on reboot): an oops in the writer
# left the guest in a recursive fault until the cell's timeout.
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
x3=$(edit_commit "$x2" fs/ext4/inode.c '$a/* wblab e2e nightly: end of ext4 inode */' "ext4: inode: another trailing comment")
echo "crash night: $x1 $x2 (the crash) $x3"

cat >"$out/nightly.yaml" <<YAML
description: e2e nightly (tests/jobs/e2e-nightly.sh)
matrix: $matrix
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
	"$wblab" nightly "$out/nightly.yaml" >"$out/night-$1.out" 2>"$out/night-$1.err"
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

# 1. A first good night.
expect_night 1 "$base" 0 0 "a first good night, no mail"
if want 1 && ! grep -q "last good night on .*: none yet" "$out/night-1.out"; then
	fail "night 1: a last good night before the first"
fi
# 2. Harmless noise: a new image, the same behaviour.
expect_night 2 "$before" 0 0 "harmless commits (new image), no mail"
# 3. The revert among the new commits.
expect_night 3 "$head" 1 1 "detected, confirmed, bisected to $revert, mailed" \
	"$revert" "\[jobs\] $(echo "$revert" | cut -c1-10): reclaim-wr-direct"
if want 3; then
	if grep -q "^Subject: \[jobs\]" "$out/sent.mbox" 2>/dev/null; then
		pass "night 3: the mail went through the sendmail argv"
	else
		fail "night 3: nothing reached the sendmail argv"
	fi
fi
# 4. An injected crash in some cells.
expect_night 4 "$x3" 1 2 "the crash confirmed by its rate, bisected as an event to $x2, mailed" \
	"$x2" "\[jobs\] $(echo "$x2" | cut -c1-10): "

"$wblab" history --results "$results/db" --html "$out/history.html" >"$out/history.out" 2>&1
"$wblab" history --results "$results/db" --changes >>"$out/history.out" 2>&1
sed 's/^/    /' "$out/history.out"
if grep -q "^candidates" "$out/history.out" && grep -q "<h2>Candidates</h2>" "$out/history.html"; then
	pass "history: the candidates with their outcomes (table and HTML)"
else
	fail "history: no candidates shown"
fi

# KCIDB: the confirmations' re-runs (the last good commit against the
# night's, decided), as KernelCI would be sent them, valid under v5.3.
schema=${WBLAB_KCIDB_SCHEMA:-$here/../shared/kcidb/kcidb-v5.3.schema.json}
for n in 3 4; do
	want $n || continue
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

if want 5; then
# 5. git bisect run, in a worktree of the tree (the build tree is shared).
wt=$results/worktree
t0=$(now)
git -C "$tree" worktree add -q --no-checkout --detach "$wt" "$head" &&
	git -C "$wt" sparse-checkout set --cone >/dev/null 2>&1 &&
	git -C "$wt" checkout -q --detach "$head" &&
	git -C "$wt" bisect start "$head" "$before" >/dev/null &&
	git -C "$wt" bisect run "$wblab" bisect-step --tree "$wt" --good "$before" \
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

if want 6; then
# 6. SIGKILL in the middle of a step, then --resume.
r=$results/resume
mkdir -p "$r"
bisect() { "$wblab" bisect --tree "$tree" --good "$before" --bad "$head" \
	--matrix "$matrix" --metric reclaim-wr-direct --results "$r" "$@"; }
t0=$(now)
setsid sh -c 'exec "$0" bisect --tree "$1" --good "$2" --bad "$3" --matrix "$4" --metric reclaim-wr-direct --results "$5"' \
	"$wblab" "$tree" "$before" "$head" "$matrix" "$r" >"$out/killed.out" 2>"$out/killed.err" &
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
