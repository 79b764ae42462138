#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once, then reuse) a debug kernel, and print the variables run-vm
# needs to boot it:
#
#   build.sh [debug]  Debian's linux-source-6.1, built on the host:
#                     x86_64_defconfig + kvm_guest.config + debug.config
#                     (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, kmemleak, UBSAN,
#                     KUnit).  About 30 minutes on two cores the first time.
#   build.sh rt       the newest trixie-backports linux-source-X.Y, built
#                     with its gcc in the trixie build chroot of
#                     tools/kernels/kernel.sh: x86_64_defconfig +
#                     kvm_guest.config + rt-debug.config (PREEMPT_RT,
#                     lockdep, DEBUG_ATOMIC_SLEEP; no KASAN).  The build
#                     lives inside the chroot (modules for it are built
#                     there too), under /var/tmp/kernel-rt-debug.
#
# Printed, for eval: QPI_KVER, QPI_KIMAGE, QPI_KDIR (the build dir on the
# host), QPI_KMODS (its module tree, with intel-uncore.ko); for rt also
# QPI_KROOT (the chroot) and QPI_KBUILD (the build dir seen from it).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/qpi_uncore
tier=${1:-debug}

say() { echo "build.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# print_kernel OUT: what run-vm needs to boot the kernel built in OUT
print_kernel() {
	local rel
	rel=$(cat "$1/build/include/config/kernel.release")
	echo "QPI_KVER=$rel"
	echo "QPI_KIMAGE=$1/build/arch/x86/boot/bzImage"
	echo "QPI_KDIR=$1/build"
	echo "QPI_KMODS=$1/mods/lib/modules/$rel"
}

# check_config CONFIG FRAGMENT: every line of FRAGMENT made it into CONFIG
# (merge_config.sh only warns, in a flood, when Kconfig drops a value)
check_config() {
	local config=$1 frag=$2 line sym val bad=0
	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]] || continue
		sym=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		if [[ $val == n ]]; then
			! grep -q "^$sym=" "$config" && continue
		else
			grep -qxF "$sym=$val" "$config" && continue
		fi
		say "$sym=$val asked for in ${frag##*/}, but .config has:" \
			"$(grep -E "^(# )?${sym}[= ]" "$config" || echo 'nothing')"
		bad=1
	done < "$frag"
	[[ $bad == 0 ]] || die "the kernel config lacks options of ${frag##*/}"
	say "all of ${frag##*/} is in .config"
}

case $tier in
debug) ;;
rt) ;;
*) echo "usage: $0 [debug|rt]" >&2; exit 2 ;;
esac

if [[ $tier == debug ]]; then
	# Outside the tree: "make clean" (kbuild with M=) deletes every object
	# file under the repository, a half-built kernel included.
	out=${QPI_DEBUG_KERNEL_DIR:-$cache/kernel-debug}
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
		check_config "$out/build/.config" "$here/debug.config"
		nice make -s -C "$out/build" -j"$(nproc)" bzImage modules >&2
		make -s -C "$out/build" modules_install INSTALL_MOD_PATH="$out/mods" >&2
		echo "$stamp" > "$out/stamp"
	fi
	print_kernel "$out"
	exit 0
fi

# --- rt: the newest trixie-backports linux-source-X.Y, or QPI_RT_SERIES
apt_sh=$repo/tools/kernels/apt.sh
series=${QPI_RT_SERIES:-}
if [[ -z $series ]]; then
	names=$("$apt_sh" apt-cache search --names-only '^linux-source-[0-9]+\.[0-9]+$' |
		cut -d' ' -f1)
	[[ -n $names ]] || die "no linux-source-X.Y package in tools/kernels/apt.sh's lists"
	# shellcheck disable=SC2086
	series=$("$apt_sh" apt-cache madison $names | awk -F' *[|] *' \
		'$3 ~ / trixie-backports\// { sub(/^ *linux-source-/, "", $1); print $1 }' |
		sort -uV | tail -n 1)
	[[ -n $series ]] || die "no linux-source-X.Y in trixie-backports"
fi
pkg=linux-source-$series
# the version trixie-backports has (unstable may have a newer one)
version=$("$apt_sh" apt-cache madison "$pkg" | awk -F' *[|] *' \
	'$3 ~ / trixie-backports\// { print $2 }' | sort -V | tail -n 1)
[[ -n $version ]] || die "$pkg: not in trixie-backports"

# the build chroot of the series' suite (trixie, gcc-14), as
# tools/kernels/kernel.sh makes it for Debian's own kernel of the series
root=${QPI_KROOT:-}
if [[ -z $root || $root == / ]]; then
	root=$("$repo/tools/kernels/kernel.sh" "$series" | sed -n 's/^QPI_KROOT=//p')
fi
[[ -n $root && -x $root/usr/bin/make ]] || die "no build chroot for $series"
# from /: the chroot would start in the caller's folder, absent in it
in_root() { (cd / && "$repo/tools/kernels/in-root.sh" "$root" "$@"); }

rel_out=/var/tmp/kernel-rt-debug	# as the chroot sees it
out=$root$rel_out
stamp=$( { echo "$pkg $version"; cat "$here/rt-debug.config"; } | sha256sum | cut -c1-16)
if [[ -f $out/stamp && $(cat "$out/stamp") == "$stamp" && -f $out/build/arch/x86/boot/bzImage ]]; then
	echo "# RT debug kernel ($pkg $version) cached in $out" >&2
else
	echo "# building the RT debug kernel from $pkg $version in $out" \
		"(80 min on 2 shared cores here)" >&2
	missing=
	for p in flex bison bc libelf-dev libssl-dev cpio kmod xz-utils python3; do
		in_root dpkg -s "$p" > /dev/null 2>&1 || missing+=" $p"
	done
	if [[ -n $missing ]]; then
		# shellcheck disable=SC2086
		in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $missing >&2 || die "cannot install$missing in $root"
	fi
	rm -rf "$out"
	mkdir -p "$out/deb" "$out/src" "$out/build"
	(cd "$out/deb" && "$apt_sh" apt-get download "$pkg=$version") >&2 ||
		die "cannot download $pkg $version"
	dpkg -x "$out"/deb/*.deb "$out/deb/x"
	tarball=$(find "$out/deb/x/usr/src" -maxdepth 1 -name "$pkg.tar.*" | head -n 1)
	[[ -n $tarball ]] || die "no /usr/src/$pkg.tar.* in $pkg"
	tar -xf "$tarball" -C "$out/src" --strip-components=1
	rm -rf "$out/deb"
	cp "$here/rt-debug.config" "$out/rt-debug.config"
	in_root sh -ec "
		cd $rel_out
		make -s -C src O=$rel_out/build x86_64_defconfig
		cd build
		../src/scripts/kconfig/merge_config.sh -m .config \
			../src/kernel/configs/kvm_guest.config ../rt-debug.config
		make -s olddefconfig" > "$out/config.log" 2>&1 ||
		{ tail -n 20 "$out/config.log" >&2; die "configuring the kernel failed"; }
	check_config "$out/build/.config" "$here/rt-debug.config"
	start=$SECONDS
	in_root nice -n 19 make -s -C "$rel_out/build" -j"$(nproc)" bzImage modules >&2 ||
		die "the RT debug kernel did not build"
	in_root make -s -C "$rel_out/build" modules_install INSTALL_MOD_PATH="$rel_out/mods" >&2 ||
		die "modules_install failed"
	say "RT debug kernel built in $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s"
	echo "$stamp" > "$out/stamp"
fi
print_kernel "$out"
echo "QPI_KROOT=$root"
echo "QPI_KBUILD=$rel_out/build"
