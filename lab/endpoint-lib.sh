# SPDX-License-Identifier: GPL-2.0
# Sourced by lab/remote-endpoint.sh and lab/second-endpoint.sh: a test
# libvirtd of our own, configured, waited for and stopped through its own
# pid file only (never the system's daemon, never by name).

# pid_alive PIDFILE: the process it names is running.
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null; }

# nofds CMD...: CMD without the caller's descriptors 3-9. A daemon
# started from inside a lock wrapper (/var/tmp/wb/guest-lock holds fds 8
# and 9) would otherwise hold that lock for as long as it lives.
nofds() { "$@" 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-; }

# tcp_conf FILE PORT [LINE...]: a libvirtd.conf listening on TCP on
# 127.0.0.1:PORT only, without authentication (a test-only config), and
# any further lines.
tcp_conf() {
	f=$1 port=$2
	shift 2
	{
		printf 'listen_tls = 0\nlisten_tcp = 1\nlisten_addr = "127.0.0.1"\n'
		printf 'tcp_port = "%s"\nauth_tcp = "none"\n' "$port"
		for l in "$@"; do echo "$l"; done
	} >"$f"
}

# wait_uri WHO URI PIDFILE: up to 10 s for virsh to answer on URI; gives
# up at once when the daemon of PIDFILE has written it and died.
wait_uri() {
	for i in $(seq 1 100); do
		virsh -c "$2" version >/dev/null 2>&1 && return 0
		[ -f "$3" ] && ! pid_alive "$3" && break
		sleep 0.1
	done
	echo "$1: libvirtd did not come up on $2" >&2
	return 1
}

# stop_pid PIDFILE: SIGTERM, up to 5 s to end, then SIGKILL.
stop_pid() {
	pid_alive "$1" || return 0
	kill "$(cat "$1")" 2>/dev/null || true
	for i in $(seq 1 50); do
		pid_alive "$1" || return 0
		sleep 0.1
	done
	kill -9 "$(cat "$1")" 2>/dev/null || true
}
