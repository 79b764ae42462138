#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make sure everything the VM test bench needs is installed (mmdebstrap:
# the build chroots of the kernel matrix, tools/kernels/).  Cheap no-op
# when it is; QPI_NO_INSTALL=1 only checks.
set -euo pipefail

# modinfo lives in sbin, which non-root PATHs often lack.
export PATH=$PATH:/usr/sbin:/sbin
here=$(dirname "${BASH_SOURCE[0]}")
PKGS=(qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static
      linux-perf cpio kmod xz-utils zstd sparse linux-source-6.1 gcc make
      libc6-dev dkms prometheus prometheus-node-exporter curl python3 udev
      util-linux mmdebstrap devscripts)

missing() {
	local m=() c
	for c in qemu-system-x86_64 cpio gzip ldd gcc make modinfo perf sparse dkms \
		prometheus promtool prometheus-node-exporter curl python3 setpriv \
		flock kmod mmdebstrap hardening-check; do
		command -v "$c" >/dev/null 2>&1 || m+=("$c")
	done
	# A dynamic busybox would need its libs in the initramfs; insist on
	# the static one from busybox-static.
	if [[ ! -x /bin/busybox ]] || ldd /bin/busybox >/dev/null 2>&1; then
		m+=("static /bin/busybox")
	fi
	# The Debian perf may be a version-dispatching wrapper script.
	if [[ ! -x /usr/bin/perf ]] || [[ $(head -c 4 /usr/bin/perf) != $'\x7fELF' ]]; then
		m+=("/usr/bin/perf (ELF)")
	fi
	# the guest runs the takeover's udev rule in systemd-udevd
	[[ -x /lib/systemd/systemd-udevd ]] || m+=("/lib/systemd/systemd-udevd")
	compgen -G '/boot/vmlinuz-*-amd64' >/dev/null || m+=("/boot/vmlinuz-*-amd64")
	# checkpatch.pl comes from the kernel source package.
	compgen -G '/usr/src/linux-source-*.tar.xz' >/dev/null || m+=("linux-source tarball")
	"$here/kver.sh" >/dev/null 2>&1 || m+=("kernel image with matching headers")
	printf '%s\n' "${m[@]}"
}

todo=$(missing)
[[ -z $todo ]] && exit 0

echo "deps.sh: missing: $(echo "$todo" | paste -sd, -)" >&2
if [[ ${QPI_NO_INSTALL:-0} == 1 ]]; then
	echo "deps.sh: QPI_NO_INSTALL=1, not installing; run: apt-get install ${PKGS[*]}" >&2
	exit 1
fi

sudo=()
if [[ $EUID -ne 0 ]]; then
	command -v sudo >/dev/null || { echo "deps.sh: need root or sudo to install" >&2; exit 1; }
	sudo=(sudo)
fi
install() {
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends "${PKGS[@]}"
}
# Package lists may be stale or absent; only refresh them when needed.
if ! install; then
	"${sudo[@]}" apt-get update
	install
fi

todo=$(missing)
if [[ -n $todo ]]; then
	echo "deps.sh: still missing after install: $(echo "$todo" | paste -sd, -)" >&2
	exit 1
fi
