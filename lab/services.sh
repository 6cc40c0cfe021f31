#!/bin/bash
# Start virtlogd and libvirtd when they are not running (hosts without systemd).
# Daemons already running are left alone; nothing here ever stops a daemon.
set -e
# A daemon started here lives on; it must not keep the caller's open
# descriptors (a flock(1) wrapper's lock stayed held for as long as
# libvirtd ran). Closes every descriptor above stderr in this shell but
# 255, which bash reads this script from.
close_inherited() {
	local fd

	for fd in /proc/$$/fd/*; do
		fd=${fd##*/}
		[ "$fd" -gt 2 ] && [ "$fd" != 255 ] && eval "exec $fd>&-"
	done
	return 0
}
mkdir -p /var/run/libvirt /var/log/libvirt /var/lib/wblab
close_inherited
pgrep -x virtlogd >/dev/null || virtlogd -d
# libvirtd runs QEMU as a daemon: when a guest powers off, QEMU's parent
# is the nearest subreaper, else PID 1. A container's PID 1 that is not an
# init (here: the sandbox's process_api) reaps it 1.4-2 s late, and
# libvirt waits for that before it reports the domain gone: 1.7 s of the
# 1.8 s a no-op cell cost outside the guest (bench/cell-overhead, 1.24x ->
# 1.06x with tini). tini -s makes itself the subreaper and reaps at once.
start_libvirtd() {
	if command -v tini >/dev/null; then
		setsid tini -s -- libvirtd </dev/null \
			>>/var/log/libvirt/libvirtd-tini.log 2>&1 &
	else
		libvirtd -d
	fi
}
pgrep -x libvirtd >/dev/null || start_libvirtd
for i in $(seq 1 50); do
	[ -S /var/run/libvirt/libvirt-sock ] && exit 0
	sleep 0.1
done
echo "services: libvirtd did not create /var/run/libvirt/libvirt-sock" >&2
exit 1
