#!/bin/sh
# A second libvirt endpoint on this machine, for multi-host tests: an
# unprivileged (session) libvirtd of user wblab2, listening on TCP on
# loopback only (qemu+tcp://127.0.0.1:16599/session). It is this script's
# own daemon: start, stop and restart touch only the pid in its pid file,
# never the system libvirtd.
#   lab/second-endpoint.sh start|stop|restart|status|hosts FILE
set -eu
. "$(dirname "$0")/endpoint-lib.sh"
U=wblab2
PORT=${WBLAB_SECOND_PORT:-16599}
RUN=/run/$U
HOME2=/home/$U
CONF=$HOME2/libvirtd.conf
PID=$RUN/libvirtd.pid
URI=qemu+tcp://127.0.0.1:$PORT/session

start() {
	id "$U" >/dev/null 2>&1 || useradd -m -s /bin/sh "$U"
	mkdir -p "$RUN" "$HOME2/run" "$HOME2/pool"
	chown "$U" "$RUN" "$HOME2/run" "$HOME2/pool"
	chmod 700 "$RUN"
	chmod 755 "$HOME2" "$HOME2/run"
	tcp_conf "$CONF" "$PORT" 'auth_unix_rw = "none"' "unix_sock_dir = \"$RUN\""
	chown "$U" "$CONF"
	pid_alive "$PID" && return 0
	(cd "$HOME2" && nofds runuser -u "$U" -- env HOME="$HOME2" XDG_RUNTIME_DIR="$RUN" \
		libvirtd --listen -f "$CONF" -p "$PID" -d)
	wait_uri "second endpoint" "$URI" "$PID"
}

stop() { stop_pid "$PID"; }

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
status) pid_alive "$PID" && echo "running: $URI (pid $(cat "$PID"))" || echo "stopped" ;;
hosts) hosts "$2" ;;
*) echo "usage: $0 start|stop|restart|status|hosts FILE" >&2; exit 2 ;;
esac
