#!/bin/sh
# Install everything wblab's build, tests and lab need on Debian 12.
#
# It leaves the host's kernel alone: no linux-image or linux-headers
# package (linux-headers-6.12.118+deb12-amd64 depends on its image, which
# changed /vmlinuz and the initramfs); module variants fetch the headers
# they need into wblab's cache (src/artifact/kbuild-headers.c). apt keeps
# the host's modified config files (no --force-confnew), and sid or
# experimental are never added to the host's sources (src/artifact/
# debfetch.c has its own apt configuration).
#
# Recommends are not installed: they brought lvm2 (whose initramfs hook
# regenerated the running kernel's initrd) and libnss-mymachines (which
# edits /etc/nsswitch.conf). The Recommends wblab does use are named below:
# dnsmasq-base (libvirt's own default network, which it autostarts, needs
# it; wblab's isolated networks have no address and do not), iproute2
# (libvirt's bridges for the iSCSI topologies),
# netcat-openbsd (qemu+ssh:// to a remote host), dmidecode (libvirt's host
# capabilities), debian-archive-keyring (debootstrap checks the suite's
# signature). git is run by run --tree, validate, bisect and nightly.
set -e
PKGS="build-essential pkg-config libvirt-dev libxml2-dev libyaml-dev libjson-c-dev
libsqlite3-dev libssl-dev zlib1g-dev check libsubunit-dev libvirt-daemon-system
qemu-system-x86 qemu-utils debootstrap e2fsprogs kmod cpio xz-utils zstd fio
gnuplot-nox sqlite3 linux-source-6.1 linux-source-6.12
bc bison flex libelf-dev dwarves ccache
rsync clang-format jq libvirt-clients python3 python3-jsonschema libgsl-dev libxml2-utils
tini socat git dnsmasq-base iproute2 netcat-openbsd dmidecode
debian-archive-keyring"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
[ "$(id -u)" = 0 ] || { echo "make deps: run as root to install:$missing" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-confdef \
	-o Dpkg::Options::=--force-confold $missing
