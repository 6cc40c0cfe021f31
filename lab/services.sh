#!/bin/sh
# Start virtlogd and libvirtd when they are not running (hosts without systemd).
# Daemons already running are left alone; nothing here ever stops a daemon.
set -e
mkdir -p /var/run/libvirt /var/log/libvirt /var/lib/wblab
pgrep -x virtlogd >/dev/null || virtlogd -d
pgrep -x libvirtd >/dev/null || libvirtd -d
for i in $(seq 1 50); do
	[ -S /var/run/libvirt/libvirt-sock ] && exit 0
	sleep 0.1
done
echo "services: libvirtd did not create /var/run/libvirt/libvirt-sock" >&2
exit 1
