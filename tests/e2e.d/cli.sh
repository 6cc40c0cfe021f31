# The command line: one option parser for every subcommand (no guest needed).
# Sourced by tests/e2e.sh.

# Every command wblab help lists, so a new one is held to the same.
for cmd in $(./wblab help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	./wblab "$cmd" --help >"$R/help-$cmd.out" 2>&1
	rc=$?
	./wblab help "$cmd" >"$R/help2-$cmd.out" 2>&1
	if [ $rc -eq 0 ] && grep -q "^usage:.*wblab $cmd" "$R/help-$cmd.out" &&
	   cmp -s "$R/help-$cmd.out" "$R/help2-$cmd.out"; then
		pass "wblab $cmd --help exits 0 and is what wblab help $cmd prints"
	else
		fail "wblab $cmd --help: rc=$rc, or differs from wblab help $cmd"
	fi
done
./wblab run --memory abc --kernel debian-6.1 --topology none --workload noop 2>"$R/cli-mem.err"
[ $? -eq 2 ] && grep -q "^wblab run: --memory: 'abc' is not a number" "$R/cli-mem.err" &&
	pass "run --memory abc: exit 2 naming the option" || fail "run --memory abc: $(cat "$R/cli-mem.err")"
./wblab run -n 0 --kernel debian-6.1 --topology none --workload noop 2>"$R/cli-n.err"
[ $? -eq 2 ] && grep -q '^wblab run: -n: 0 is out of range 1..1000' "$R/cli-n.err" &&
	pass "run -n 0: exit 2 naming the option" || fail "run -n 0: $(cat "$R/cli-n.err")"
./wblab kernel nope 2>"$R/cli-sub.err"
[ $? -eq 2 ] && grep -q "'nope' is not a subcommand" "$R/cli-sub.err" &&
	pass "kernel nope: exit 2, not a subcommand" || fail "kernel nope: $(cat "$R/cli-sub.err")"
check "kernel list --json is JSON with debian-6.1 cached" \
	sh -c "./wblab kernel list --json | jq -e '[.[] | select(.name == \"debian-6.1\")][0].state == \"cached\"'"
# A module variant of a prebuilt kernel: the package's bzImage byte for
# byte, md-mod.ko rebuilt with the package's vermagic, raid1.ko the package's.
if ./wblab kernel build debian-6.1-md-rescuer >"$R/modvar.out" 2>&1; then
	b=$(./wblab kernel show --json debian-6.1 | jq -r .artifact.dir)
	v=$(./wblab kernel show --json debian-6.1-md-rescuer | jq -r .artifact.dir)
	m=modules/lib/modules/6.1.0-57-amd64/kernel/drivers/md
	if [ "$(./wblab kernel show --json debian-6.1-md-rescuer | jq -r .kind)" = modules ] &&
	   cmp -s "$b/bzImage" "$v/bzImage" && ! cmp -s "$b/$m/md-mod.ko" "$v/$m/md-mod.ko" &&
	   cmp -s "$b/$m/raid1.ko" "$v/$m/raid1.ko" &&
	   [ "$(modinfo -F vermagic "$b/$m/md-mod.ko")" = "$(modinfo -F vermagic "$v/$m/md-mod.ko")" ]; then
		pass "module variant debian-6.1-md-rescuer: base's bzImage, md-mod.ko rebuilt alone"
	else
		fail "module variant debian-6.1-md-rescuer: $b vs $v differ otherwise"
	fi
else
	fail "kernel build debian-6.1-md-rescuer: $(tail -3 "$R/modvar.out")"
fi
# The manual is generated from the same help texts: every command has a section.
if tools/gen-man --wblab ./wblab -o "$R/wblab.1" 2>"$R/gen-man.err"; then
	missing=""
	for cmd in $(./wblab help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
		grep -q "^\.SS \"wblab $(echo "$cmd" | sed 's/-/\\\\-/g')\"" "$R/wblab.1" || missing="$missing $cmd"
	done
	[ -z "$missing" ] && pass "wblab.1 has a section for every command" ||
		fail "wblab.1 lacks:$missing"
else
	fail "tools/gen-man: $(cat "$R/gen-man.err")"
fi

# A broken device node stops a run before it starts (docs/hardening.md):
# a directory of the test's stands in for /dev, with null a regular file
# (what a rename over /dev/null left on a host); the host's is not touched.
D="$R/devroot"
mkdir -p "$D/dev/net" && : >"$D/dev/null"
WBLAB_DEV_ROOT=$D ./wblab run --kernel debian-6.1 --topology none --workload noop \
	--results "$R/devnull-run" 2>"$R/devnull.err"
rc=$?
[ $rc -eq 1 ] && grep -q '/dev/null is a regular file, not the character device 1:3' "$R/devnull.err" &&
	[ -z "$(ls -A "$R/devnull-run" 2>/dev/null)" ] &&
	pass "run with /dev/null a regular file: exit 1 naming it, no run directory" ||
	fail "run with a broken /dev/null: exit $rc, $(head -c 300 "$R/devnull.err"; ls "$R/devnull-run" 2>&1)"

# A typo gets the nearest commands, exit 2 (as git's "did you mean").
./wblab reprot 2>"$R/typo.err"
[ $? -eq 2 ] && grep -q "did you mean 'report', 'repro'?" "$R/typo.err" &&
	pass "a mistyped command: exit 2 with did you mean" || fail "typo: $(head -c 300 "$R/typo.err")"
# Help says "repeatable" once per option.
! ./wblab help report | grep -q 'repeatable.*repeatable' &&
	pass "help: repeatable said once" || fail "help: $(./wblab help report | grep repeatable)"

# The jobs' --max-reps default is their last documented look (3, 5, 7, 9).
for cmd in validate bisect nightly; do
	./wblab help $cmd | grep -q -- '--max-reps N .*(3, 5, 7, 9) (3..100, default 9)' &&
		pass "$cmd --max-reps: default 9, the last of the looks 3, 5, 7, 9" ||
		fail "$cmd --max-reps: $(./wblab help $cmd | grep -- --max-reps)"
done

# A user's configuration (--config, --config-fragment): bad input is exit 2
# naming the option and file:line, before any build or run directory.
printf '# CONFIG_VIRTIO_BLK is not set\n' >"$R/novirtio.config"
git init -q "$R/cfgtree" && git -C "$R/cfgtree" -c user.email=t@t -c user.name=t \
	commit -q --allow-empty -m one
./wblab run --tree "$R/cfgtree" --config-fragment "$R/novirtio.config" --topology none \
	--workload noop --results "$R/cfg-run" 2>"$R/cfg1.err"
rc=$?
[ $rc -eq 2 ] && grep -q "novirtio.config:1: CONFIG_VIRTIO_BLK=n: the lab needs CONFIG_VIRTIO_BLK=y" "$R/cfg1.err" &&
	[ ! -e "$R/cfg-run" ] &&
	pass "run --config-fragment turning off what the lab needs: exit 2 naming it" ||
	fail "run --config-fragment: exit $rc, $(head -c 300 "$R/cfg1.err")"
./wblab run --tree "$R/cfgtree" --config "$R/no-such.config" --topology none --workload noop \
	--results "$R/cfg-run" 2>"$R/cfg2.err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "--config $R/no-such.config: No such file" "$R/cfg2.err" &&
	pass "run --config of a missing file: exit 2" || fail "run --config: exit $rc, $(cat "$R/cfg2.err")"
./wblab run --kernel 6.1 --config-fragment "$R/novirtio.config" --topology none --workload noop \
	2>"$R/cfg3.err"
[ $? -eq 2 ] && grep -q -- '--config-fragment need --tree' "$R/cfg3.err" &&
	pass "run --config-fragment without --tree: exit 2" || fail "cfg3: $(cat "$R/cfg3.err")"
./wblab validate --tree "$R/cfgtree" --base HEAD --build-only \
	--config-fragment "$R/novirtio.config" 2>"$R/cfg4.err"
[ $? -eq 2 ] && grep -q 'CONFIG_VIRTIO_BLK=n: the lab needs' "$R/cfg4.err" &&
	pass "validate --config-fragment: the same check, exit 2" || fail "cfg4: $(cat "$R/cfg4.err")"

# No host reachable at the start (here a libvirt port nobody listens on):
# exit 1 naming the host and what to do, and no run directory to resume.
./wblab run --kernel debian-6.1 --topology none --workload noop --uri qemu+tcp://127.0.0.1:1/system \
	--results "$R/nohost-run" 2>"$R/nohost.err"
rc=$?
[ $rc -eq 1 ] && grep -q 'no host to run on: local: .*nothing started' "$R/nohost.err" &&
	[ -z "$(ls -A "$R/nohost-run" 2>/dev/null)" ] && ! grep -q -- '--resume' "$R/nohost.err" &&
	pass "run with no reachable host: exit 1, no run directory, no --resume advice" ||
	fail "run with no host: exit $rc, $(head -c 300 "$R/nohost.err"; ls "$R/nohost-run" 2>&1)"

# A user's own specs (docs/specs.md): by path, from ./lab/kernels of the
# current directory, and from $XDG_CONFIG_HOME/wblab/kernels, first match
# first; a fragment beside them in configs/.
U="$R/user"
mkdir -p "$U/cwd/lab/kernels" "$U/xdg/wblab/kernels" "$U/xdg/wblab/configs"
cp lab/kernels/6.1-direct-writeback.yaml "$U/cwd/lab/kernels/mine-dw.yaml"
sed 's/wblab-lru-gen.config/my-debug.config/' lab/kernels/6.12.yaml >"$U/xdg/wblab/kernels/my-612.yaml"
echo 'CONFIG_DEBUG_VM=y' >"$U/xdg/wblab/configs/my-debug.config"
./wblab kernel show "$top/lab/kernels/6.12.yaml" 2>&1 | grep -q '^name: *6.12$' &&
	pass "kernel show PATH" || fail "kernel show PATH: $(./wblab kernel show "$top/lab/kernels/6.12.yaml" 2>&1 | head -2)"
(cd "$U/cwd" && XDG_CONFIG_HOME="$U/xdg" "$top/wblab" kernel show mine-dw 2>&1) | grep -q "spec: *$U/cwd/lab/kernels/mine-dw.yaml" &&
	pass "kernel show NAME finds ./lab/kernels/NAME.yaml" || fail "kernel from ./lab/kernels"
(cd "$U" && XDG_CONFIG_HOME="$U/xdg" "$top/wblab" kernel list 2>&1) | grep -q '^my-612 ' &&
	pass "kernel list includes \$XDG_CONFIG_HOME/wblab/kernels" || fail "kernel list with XDG"
(cd "$U" && XDG_CONFIG_HOME="$U/xdg" "$top/wblab" kernel show my-612 2>&1) | grep -q 'my-debug.config' &&
	pass "a user's kernel names a fragment of theirs" || fail "user fragment"
# ... and run by path: the cell is named by the file, never by its path.
cp lab/kernels/debian-6.1.yaml "$U/my-deb61.yaml"
./wblab run --kernel "$U/my-deb61.yaml" --topology none --workload noop --results "$U/res" >"$U/run.log" 2>&1
jcheck "$(ls "$U"/res/*/cells/*/cell.json | head -n 1)" '.kernel.name == "my-deb61" and .outcome == "ok" and .cell == "my-deb61_none_noop_1"' \
	"run --kernel PATH: a cell of the user's spec, named by its file"

# README's lists of shipped specs are the files (tools/spec-lists).
tools/spec-lists --check README.md 2>"$R/spec-lists.err" &&
	pass "README lists every shipped spec (tools/spec-lists --check)" ||
	fail "README spec lists: $(head -c 400 "$R/spec-lists.err")"
