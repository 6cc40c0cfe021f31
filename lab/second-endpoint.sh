#!/bin/sh
# A second libvirt endpoint on this machine, for multi-host tests: an
# unprivileged (session) libvirtd of user wblab2, listening on TCP on
# loopback only (qemu+tcp://127.0.0.1:16599/session). It is this script's
# own daemon: start, stop and restart touch only the pid in its pid file,
# never the system libvirtd.
#   lab/second-endpoint.sh start|stop|restart|status|hosts FILE
set -eu
U=wblab2
PORT=${WBLAB_SECOND_PORT:-16599}
RUN=/run/$U
HOME2=/home/$U
CONF=$HOME2/libvirtd.conf
PID=$RUN/libvirtd.pid
URI=qemu+tcp://127.0.0.1:$PORT/session

running() { [ -f "$PID" ] && kill -0 "$(cat "$PID")" 2>/dev/null; }

start() {
	id "$U" >/dev/null 2>&1 || useradd -m -s /bin/sh "$U"
	mkdir -p "$RUN" "$HOME2/run" "$HOME2/pool"
	chown "$U" "$RUN" "$HOME2/run" "$HOME2/pool"
	chmod 700 "$RUN"
	chmod 755 "$HOME2" "$HOME2/run"
	cat >"$CONF" <<CONF
listen_tls = 0
listen_tcp = 1
listen_addr = "127.0.0.1"
tcp_port = "$PORT"
auth_tcp = "none"
auth_unix_rw = "none"
unix_sock_dir = "$RUN"
CONF
	chown "$U" "$CONF"
	running && return 0
	(cd "$HOME2" && runuser -u "$U" -- env HOME="$HOME2" XDG_RUNTIME_DIR="$RUN" \
		libvirtd --listen -f "$CONF" -p "$PID" -d)
	for i in $(seq 1 50); do
		virsh -c "$URI" version >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "second endpoint: libvirtd did not come up on $URI" >&2
	return 1
}

stop() {
	running || return 0
	kill "$(cat "$PID")"
	for i in $(seq 1 50); do
		running || return 0
		sleep 0.2
	done
	kill -9 "$(cat "$PID")" 2>/dev/null || true
}

# A hosts file with the system libvirt and this endpoint, one vCPU each
# (both are this machine: together they must not overcommit it).
hosts() {
	cat >"$1" <<HOSTS
hosts:
  - name: local
    uri: qemu:///system
    cpus: 1
  - name: second
    uri: $URI
    cpus: 1
    pool: $HOME2/pool
    run_dir: $HOME2/run
    qemu_user: $U
HOSTS
}

case "${1:-}" in
start) start ;;
stop) stop ;;
restart) stop && start ;;
status) running && echo "running: $URI (pid $(cat "$PID"))" || echo "stopped" ;;
hosts) hosts "$2" ;;
*) echo "usage: $0 start|stop|restart|status|hosts FILE" >&2; exit 2 ;;
esac
