#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the guest kernel version: the newest V with both /boot/vmlinuz-V and
# kernel headers (/usr/src/linux-headers-V or /lib/modules/V/build).
# The host kernel is irrelevant here: the guest boots a distro kernel image.
set -euo pipefail

have_headers() {
	[[ -d /usr/src/linux-headers-$1 || -d /lib/modules/$1/build ]]
}

if [[ -n ${QPI_KVER:-} ]]; then
	# a kernel built elsewhere brings its own image and build dir
	if [[ -n ${QPI_KIMAGE:-} && -n ${QPI_KDIR:-} ]]; then
		echo "$QPI_KVER"
		exit 0
	fi
	if [[ ! -f /boot/vmlinuz-$QPI_KVER ]] || ! have_headers "$QPI_KVER"; then
		echo "kver.sh: QPI_KVER=$QPI_KVER: need /boot/vmlinuz-$QPI_KVER and its headers" >&2
		exit 1
	fi
	echo "$QPI_KVER"
	exit 0
fi

# The kernel Debian's linux-image-amd64 pulls in (bookworm: 6.1) is the
# default, so installing another one (backports 6.12) does not change what
# make check tests unless QPI_KVER asks for it.
meta=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
	grep -oE 'linux-image-[^ ,]+' | head -n 1 | sed 's/^linux-image-//' || true)
if [[ -n $meta && -f /boot/vmlinuz-$meta ]] && have_headers "$meta"; then
	echo "$meta"
	exit 0
fi

best=
for img in /boot/vmlinuz-*; do
	[[ -f $img ]] || continue
	v=${img#/boot/vmlinuz-}
	have_headers "$v" && best+="$v"$'\n'
done
best=$(printf '%s' "$best" | sort -V | tail -n 1)
if [[ -z $best ]]; then
	echo "kver.sh: no kernel with both /boot/vmlinuz-V and headers (run tools/vm/deps.sh)" >&2
	exit 1
fi
echo "$best"
