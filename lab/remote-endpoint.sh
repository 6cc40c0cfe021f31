#!/bin/sh
# A libvirt host that shares nothing with wblab but the connection, on this
# machine, for tests of remote hosts (make check-remote, docs/matrix.md): a
# system libvirtd and its own virtlogd in their own mount namespace, with
# private bind mounts over /etc/libvirt, /var/lib/libvirt, /run/libvirt,
# /var/log/libvirt and /var/lib/wblab, listening on TCP on 127.0.0.1 only
# (qemu+tcp://127.0.0.1:16600/system, no auth: a test-only config). A path
# the remote's QEMU uses (its pool, its sockets) does not exist from the
# orchestrator's side. Start, stop, kill and restart touch only the pids in
# its own pid files, never the system libvirtd.
#   lab/remote-endpoint.sh start|stop|kill|restart|status|wipe|hosts FILE
set -eu
. "$(dirname "$0")/endpoint-lib.sh"
BASE=${WBLAB_REMOTE_BASE:-/var/tmp/wblab-remote}
PORT=${WBLAB_REMOTE_PORT:-16600}
URI=qemu+tcp://127.0.0.1:$PORT/system
# Inside the namespace: the pool lives where the orchestrator has nothing.
POOL=/var/lib/wblab/remote-pool
LPID=$BASE/run/libvirtd.pid
VPID=$BASE/run/virtlogd.pid
CONF=$BASE/etc/libvirtd.conf

wait_up() { wait_uri "remote endpoint" "$URI" "$LPID"; }

prepare() {
	mkdir -p "$BASE/lib" "$BASE/run" "$BASE/log" "$BASE/wblab"
	if [ ! -d "$BASE/etc" ]; then
		# Its own config: no networks, domains or pools of the system's.
		cp -a /etc/libvirt "$BASE/etc"
		rm -rf "$BASE/etc/qemu/networks" "$BASE/etc/qemu/"*.xml \
			"$BASE/etc/storage"
	fi
	tcp_conf "$CONF" "$PORT"
}

# libvirtd in the namespace virtlogd holds open (so a restart finds the
# same private mounts and the QEMUs it left running).
libvirtd_in_ns() {
	nofds nsenter -t "$(cat "$VPID")" -m -- \
		libvirtd -d --listen -f /etc/libvirt/libvirtd.conf \
		-p /run/libvirt/libvirtd.pid
}

start() {
	prepare
	if ! pid_alive "$VPID"; then
		nofds unshare -m --propagation private -- sh -c '
			set -e
			mount --bind "$1/etc" /etc/libvirt
			mount --bind "$1/lib" /var/lib/libvirt
			mount --bind "$1/run" /run/libvirt
			mount --bind "$1/log" /var/log/libvirt
			mkdir -p /var/lib/wblab
			mount --bind "$1/wblab" /var/lib/wblab
			exec virtlogd -d -p /run/libvirt/virtlogd.pid
		' sh "$BASE"
		for i in $(seq 1 50); do
			pid_alive "$VPID" && break
			sleep 0.1
		done
	fi
	pid_alive "$LPID" || libvirtd_in_ns
	wait_up
}

# Destroy its domains and networks, then end its daemons.
stop() {
	if pid_alive "$LPID"; then
		for d in $(virsh -c "$URI" list --name 2>/dev/null); do
			virsh -c "$URI" destroy "$d" >/dev/null 2>&1 || true
		done
		for n in $(virsh -c "$URI" net-list --name 2>/dev/null); do
			virsh -c "$URI" net-destroy "$n" >/dev/null 2>&1 || true
		done
	fi
	stop_pid "$LPID"
	stop_pid "$VPID"
}

# The fault: libvirtd dies (SIGKILL); its QEMUs and virtlogd live on.
killd() {
	pid_alive "$LPID" && kill -9 "$(cat "$LPID")"
	for i in $(seq 1 50); do
		pid_alive "$LPID" || return 0
		sleep 0.1
	done
	return 1
}

hosts() {
	cat >"$1" <<HOSTS
hosts:
  - name: local
    uri: qemu:///system
    cpus: 1
  - name: remote
    uri: $URI
    remote: true
    cpus: 1
    pool: $POOL
HOSTS
}

case "${1:-}" in
start) start ;;
stop) stop ;;
kill) killd ;;
restart) killd && libvirtd_in_ns && wait_up ;;
status) pid_alive "$LPID" && echo "running: $URI (pid $(cat "$LPID"))" || echo "stopped" ;;
wipe) stop && rm -rf "$BASE" ;;
hosts) hosts "$2" ;;
*)
	echo "usage: $0 start|stop|kill|restart|status|wipe|hosts FILE" >&2
	exit 2
	;;
esac
