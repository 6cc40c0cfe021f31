// SPDX-License-Identifier: GPL-2.0
/*
 * run-by-hand.sh (repro-int.h): the bundle's cell without wblab and
 * without libvirt, in one command. The script is the same for every
 * bundle: what differs (the plans, the guests, the target) it reads from
 * the bundle's own files, so nothing from cell.json is pasted into it.
 *
 * It applies wblab's rule for a hang, with wblab's numbers (cell/cell.h):
 * the workload phase may last its steps' timeouts plus WORKLOAD_GRACE,
 * the collect and teardown phases COLLECT_TIMEOUT each, the others
 * SETUP_TIMEOUT. The phases are counted from the agent's phase frames
 * on the channel, in plan order, so an agent of any age will do. A hung
 * guest gets SysRq-w and SysRq-l on QEMU's monitor before it is stopped,
 * as wblab sends them by libvirt (cell.c, dump_blocked_tasks()).
 */
#include "cell/cell.h"
#include "cell/repro-int.h"
#include "util/strbuf.h"

static const char head[] =
	"#!/bin/sh\n"
	"# This bundle's cell by hand: plain QEMU and socat, no wblab, no libvirt.\n"
	"# KERNEL, INITRD, ROOT_IMAGE and MODULES as for qemu.sh (README, 2a),\n"
	"# NET_PORT as for qemu-target.sh. The target guest (if there is one)\n"
	"# boots first and serves; then the main guest; each agent gets its plan.\n"
	"# wblab's rule for a hang: the workload phase may last its steps'\n"
	"# timeouts plus workload_grace, collect and teardown collect_limit each,\n"
	"# the others setup_limit (seconds; set below as wblab has them).\n"
	"# Prints done, hung or exited (QEMU stopped before the plan was done);\n"
	"# console*.log and channel*.out stay here. Exit 0 done, 1 not, 2 error.\n"
	"set -eu\n";

/* After the head, the limits: the body has printf's own '%' signs. */
static const char body[] =
	"cd \"$(dirname -- \"$0\")\"\n"
	": \"${INITRD:?set INITRD}\" \"${ROOT_IMAGE:?set ROOT_IMAGE}\"\n"
	"pids=\n"
	"# Wait for them too: the script ends when its guests have.\n"
	"trap 'for p in $pids; do kill \"$p\" 2>/dev/null || :; done; wait' EXIT\n"
	"trap 'exit 2' INT TERM\n"
	"\n"
	"# start SFX: boot qemuSFX.sh, hand its agent planSFX.txt on agentSFX.sock.\n"
	"start() {\n"
	"\trm -f -- \"agent$1.sock\" \"console$1.log\" \"channel$1.out\"\n"
	"\t./\"qemu$1.sh\" >\"qemu$1.out\" 2>&1 &\n"
	"\tqemu=$!\n"
	"\tpids=\"$pids $qemu\"\n"
	"\twhile [ ! -S \"agent$1.sock\" ]; do\n"
	"\t\tkill -0 \"$qemu\" 2>/dev/null || { echo \"qemu$1.sh stopped: qemu$1.out\" >&2; exit 2; }\n"
	"\t\tsleep 0.2\n"
	"\tdone\n"
	"\t{ printf 'WBL1 P %s plan\\n' \"$(wc -c <\"plan$1.txt\")\"; cat \"plan$1.txt\"; } >\"plan$1.frame\"\n"
	"\t# ignoreeof: the end of the file would tell the agent the host left.\n"
	"\tsocat \"OPEN:plan$1.frame,ignoreeof!!CREATE:channel$1.out\" \"UNIX-CONNECT:agent$1.sock\" &\n"
	"\tpids=\"$pids $!\"\n"
	"}\n"
	"\n"
	"# The first step of planSFX.txt's workload phase, as the agent logs it.\n"
	"first_work() {\n"
	"\tawk -F'\\t' '$1 == \"phase\" { p = $2 }\n"
	"\t\tp == \"workload\" && ($1 == \"run\" || $1 == \"try\") { print $1 \" \" $2; exit }' \"plan$1.txt\"\n"
	"}\n"
	"\n"
	"# phase_name N: the main guest's Nth phase (0: booting, no phase yet).\n"
	"phase_name() {\n"
	"\tawk -F'\\t' -v n=\"$1\" 'n == 0 { print \"boot\"; exit }\n"
	"\t\t$1 == \"phase\" && ++i == n { print $2; exit }' plan.txt\n"
	"}\n"
	"\n"
	"# limit N: the seconds the main guest's Nth phase may last.\n"
	"limit() {\n"
	"\tawk -F'\\t' -v n=\"$1\" -v p=\"$(phase_name \"$1\")\" -v grace=\"$workload_grace\" \\\n"
	"\t\t-v collect=\"$collect_limit\" -v setup=\"$setup_limit\" '$1 == \"phase\" { i++ }\n"
	"\t\ti == n && ($1 == \"run\" || $1 == \"try\") { s += $3 }\n"
	"\t\tEND { print p == \"workload\" ? s + grace : p == \"collect\" || p == \"teardown\" ? collect : setup }' plan.txt\n"
	"}\n"
	"\n"
	"if [ -e qemu-target.sh ]; then\n"
	"\tstart -target\n"
	"\tserve=$(first_work -target)\n"
	"\tt0=$(date +%s)\n"
	"\tuntil grep -qF \"wblab-agent: $serve\" console-target.log 2>/dev/null; do\n"
	"\t\tkill -0 \"$qemu\" 2>/dev/null || { echo \"exited: the target guest stopped before it served (console-target.log)\"; exit 1; }\n"
	"\t\t[ $(($(date +%s) - t0)) -le $((2 * setup_limit)) ] || { echo \"hung: the target guest did not serve in $((2 * setup_limit)) s (console-target.log)\"; exit 1; }\n"
	"\t\tsleep 1\n"
	"\tdone\n"
	"fi\n"
	"start \"\"\n"
	"main=$qemu\n"
	"t0=$(date +%s) seen=0 since=$t0 lim=$(limit 0)\n"
	"while :; do\n"
	"\tif grep -q 'wblab-agent: plan done' console.log 2>/dev/null; then\n"
	"\t\techo \"done in $(($(date +%s) - t0)) s\"\n"
	"\t\tbreak\n"
	"\tfi\n"
	"\tif ! kill -0 \"$main\" 2>/dev/null; then\n"
	"\t\techo \"exited: QEMU stopped in phase $(phase_name \"$seen\") before the plan was done\"\n"
	"\t\tbreak\n"
	"\tfi\n"
	"\tn=$(grep -a -c -E 'WBL1 S [0-9]+ phase$' channel.out 2>/dev/null || :)\n"
	"\tif [ \"${n:-0}\" -ne \"$seen\" ]; then\n"
	"\t\tseen=${n:-0} since=$(date +%s) lim=$(limit \"${n:-0}\")\n"
	"\tfi\n"
	"\tif [ $(($(date +%s) - since)) -gt \"$lim\" ]; then\n"
	"\t\techo \"hung: phase $(phase_name \"$seen\") outlived its $lim s\"\n"
	"\t\t# As wblab does before it stops a hung guest: blocked tasks, CPUs.\n"
	"\t\t{ printf 'sendkey alt-sysrq-w\\nsendkey alt-sysrq-l\\n'; sleep 1; } |\n"
	"\t\t\tsocat - UNIX-CONNECT:monitor.sock >/dev/null 2>&1 || :\n"
	"\t\tsleep 5\n"
	"\t\techo \"SysRq-w and SysRq-l sent: the end of console.log shows where it waits\"\n"
	"\t\tbreak\n"
	"\tfi\n"
	"\tsleep 1\n"
	"done\n"
	"sed -n 's/^Look for: /look for in console.log: /p' README\n"
	"grep -q 'wblab-agent: plan done' console.log\n";

int repro_by_hand(struct repro_ctx *x)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_addstr(&sb, head);
	strbuf_addf(&sb, "setup_limit=%d collect_limit=%d workload_grace=%d\n",
		    SETUP_TIMEOUT, COLLECT_TIMEOUT, WORKLOAD_GRACE);
	strbuf_addstr(&sb, body);
	ret = repro_write(x->out, "run-by-hand.sh", &sb, 0755, x->err);
	strbuf_release(&sb);
	return ret;
}
