#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once, then reuse) a debug kernel from Debian's linux-source-6.1:
# x86_64_defconfig + kvm_guest.config + debug.config (KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, kmemleak, UBSAN, KUnit).  About 30 minutes on two
# cores the first time.  Prints the variables run-vm needs to boot it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# Outside the tree: "make clean" (kbuild with M=) deletes every object file
# under the repository, a half-built kernel included.
out=${QPI_DEBUG_KERNEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/qpi_uncore/kernel-debug}
tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || true)
[[ -n $tarball ]] || { echo "build.sh: install linux-source-6.1" >&2; exit 1; }

stamp=$(sha256sum "$tarball" "$here/debug.config" | sha256sum | cut -c1-16)
if [[ -f $out/stamp && $(cat "$out/stamp") == "$stamp" && -f $out/build/arch/x86/boot/bzImage ]]; then
	echo "# debug kernel cached in $out" >&2
else
	echo "# building the debug kernel in $out (about 30 min on 2 cores)" >&2
	for p in flex bison bc libelf-dev libssl-dev; do
		dpkg -s "$p" > /dev/null 2>&1 ||
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
				flex bison bc libelf-dev libssl-dev >&2
	done
	rm -rf "$out"
	mkdir -p "$out/src" "$out/build"
	tar -xJf "$tarball" -C "$out/src" --strip-components=1
	make -s -C "$out/src" O="$out/build" x86_64_defconfig >&2
	(cd "$out/build" && "$out/src/scripts/kconfig/merge_config.sh" -m .config \
		"$out/src/kernel/configs/kvm_guest.config" "$here/debug.config") >&2
	make -s -C "$out/build" olddefconfig >&2
	nice make -s -C "$out/build" -j"$(nproc)" bzImage modules >&2
	make -s -C "$out/build" modules_install INSTALL_MOD_PATH="$out/mods" >&2
	echo "$stamp" > "$out/stamp"
fi
rel=$(cat "$out/build/include/config/kernel.release")
echo "QPI_KVER=$rel"
echo "QPI_KIMAGE=$out/build/arch/x86/boot/bzImage"
echo "QPI_KDIR=$out/build"
echo "QPI_KMODS=$out/mods/lib/modules/$rel"
