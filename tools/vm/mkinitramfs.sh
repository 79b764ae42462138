#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT.cpio [--extra DIR]...
#
# Build the test VM initramfs: static busybox, perf with its libraries, the
# repo's *.ko, the stock intel-uncore.ko of the guest kernel, selftests/,
# built user tools and tools/vm/init.  --extra DIRs are copied over the root
# last (run-vm uses it for /etc/qpivm.env).  Output is reproducible: fixed
# mtimes, sorted entries, uid/gid 0.  Not compressed: gzip -6 took most of
# a run's time to boot on a busy host (13 of 23 s, 5 s of CPU, for 64 MB),
# and the guest's kernel then inflated it under TCG; QEMU loads the plain
# archive as fast.
set -euo pipefail
umask 022

usage() { echo "usage: $0 OUT.cpio [--extra DIR]..." >&2; exit 2; }
[[ $# -ge 1 ]] || usage
out=$1; shift
extra=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--extra) [[ $# -ge 2 ]] || usage; extra+=("$2"); shift 2 ;;
	*) usage ;;
	esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
kver=$("$here/kver.sh")

stage=$(mktemp -d "${TMPDIR:-/tmp}/qpivm-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# Same merged-/usr layout as the Debian host, so the paths ldd reports
# resolve identically in the guest.
mkdir -p "$stage"/usr/{bin,sbin,lib,lib64} "$stage"/{dev,proc,sys,tmp,run,root,etc,mnt}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$stage/$d"; done
if [[ $EUID -eq 0 ]]; then
	# Without root the kernel's built-in initramfs still provides
	# /dev/console; /dev/null is only needed before devtmpfs is mounted.
	mknod -m 600 "$stage/dev/console" c 5 1
	mknod -m 666 "$stage/dev/null" c 1 3
fi

cp /bin/busybox "$stage/usr/bin/busybox"
while read -r applet; do
	[[ $applet == */* && ! -e $stage/$applet ]] || continue
	ln -s /bin/busybox "$stage/$applet"
done < <(/bin/busybox --list-full)

# Copy an ELF executable plus every shared library ldd finds, at the same
# paths (dereferenced), including the dynamic loader.
copy_elf() {
	local src=$1 dst=$2 lib
	mkdir -p "$(dirname "$stage/$dst")"
	cp -L "$src" "$stage/$dst"
	if ldd "$src" 2>&1 | grep -q 'not found'; then
		echo "mkinitramfs.sh: $src: unresolved libraries:" >&2
		ldd "$src" | grep 'not found' >&2
		exit 1
	fi
	# a static binary has no libraries (and ldd fails on it)
	{ ldd "$src" 2>/dev/null || true; } |
		sed -nE 's#^\s*(\S+ => )?(/\S+) \(0x[0-9a-f]+\)$#\2#p' |
	while read -r lib; do
		[[ -e $stage/$lib ]] && continue
		mkdir -p "$(dirname "$stage/$lib")"
		cp -L "$lib" "$stage/$lib"
	done
}

copy_elf /usr/bin/perf /usr/bin/perf

mkdir -p "$stage/lib/modules/qpi"
# QPI_KO_DIR: modules built elsewhere, e.g. for a second kernel
find "${QPI_KO_DIR:-$repo}/drivers" -name '*.ko' -exec cp {} "$stage/lib/modules/qpi/" \;

# qpi_uncore built with neither sample route (tools/check.sh builds it), for
# qpi_uncore_sample.sh; only if it was built for the guest's kernel
noroute=${QPI_NOROUTE_KO:-}
if [[ -n $noroute && -f $noroute &&
      $(modinfo -F vermagic "$noroute" | cut -d' ' -f1) == "$kver" ]]; then
	install -D -m 644 "$noroute" "$stage/lib/modules/qpi-noroute/qpi_uncore.ko"
fi

# The stock driver goes to its own dir, not /lib/modules/$kver, so that
# nothing can auto-load it.  load-order lists dependencies first.
kmods=${QPI_KMODS:-/lib/modules/$kver}
stock=$stage/lib/modules/stock
mkdir -p "$stock"
dep=$(grep -E '(^|/)intel[-_]uncore\.ko(\.xz|\.zst|\.gz)?:' "$kmods/modules.dep" || true)
if [[ -z $dep ]]; then
	echo "mkinitramfs.sh: warning: intel-uncore not in $kmods/modules.dep" >&2
else
	mods=("${dep%%:*}")
	read -ra deps <<< "${dep#*:}"
	# modules.dep lists the most basic dependency last.
	for d in "${deps[@]}"; do mods=("$d" "${mods[@]}"); done
	for m in "${mods[@]}"; do
		[[ $m == /* ]] || m=$kmods/$m
		name=$(basename "$m")
		case $m in
		*.xz)  xz -dc "$m" > "$stock/${name%.xz}" ;;
		*.zst) zstd -qdc "$m" > "$stock/${name%.zst}" ;;
		*.gz)  gzip -dc "$m" > "$stock/${name%.gz}" ;;
		*)     cp "$m" "$stock/$name" ;;
		esac
		echo "${name%.ko*}.ko" >> "$stock/load-order"
	done
fi

# The NIC of run-vm --hostfwd (QEMU's e1000), for tests that are scraped
# from the host; in its own dir, loaded by the test that wants it.
net=$stage/lib/modules/net
mkdir -p "$net"
for m in $(sed -nE 's#^(\S*/e1000\.ko(\.xz|\.zst|\.gz)?):.*#\1#p' "$kmods/modules.dep"); do
	[[ $m == /* ]] || m=$kmods/$m
	case $m in
	*.xz)  xz -dc "$m" > "$net/e1000.ko" ;;
	*.zst) zstd -qdc "$m" > "$net/e1000.ko" ;;
	*.gz)  gzip -dc "$m" > "$net/e1000.ko" ;;
	*)     cp "$m" "$net/e1000.ko" ;;
	esac
done

# util-linux setpriv (busybox's cannot change uid): tests run a tool as a
# non-root user that keeps only CAP_PERFMON, as a systemd unit would.
copy_elf /usr/bin/setpriv /usr/libexec/qpivm/setpriv

# the takeover tool, a shell script
install -D -m 755 "$repo/tools/takeover/qpi-uncore-takeover" "$stage/usr/sbin/qpi-uncore-takeover"
# What runs it on a real system, for qpi_uncore_takeover.sh: systemd's udevd
# with the shipped rule, kmod's modprobe with the shipped softdep, and the
# flock it serialises with (busybox has none).  Out of PATH, but for flock:
# no other test loads modules through modprobe.d or runs udev.
libexec=/usr/libexec/qpivm
copy_elf "$(readlink -f /lib/systemd/systemd-udevd)" $libexec/udevadm
ln -s udevadm "$stage$libexec/systemd-udevd"
copy_elf /bin/kmod $libexec/kmod
ln -s kmod "$stage$libexec/modprobe"
ln -s kmod "$stage$libexec/depmod"
copy_elf /usr/bin/flock /usr/bin/flock
mkdir -p "$stage$libexec/udev" "$stage$libexec/modprobe.d"
sed 's|@SBINDIR@|/usr/sbin|' "$repo/tools/packaging/60-qpi-uncore.rules" \
	> "$stage$libexec/udev/60-qpi-uncore.rules"
cp "$repo/tools/packaging/qpi_uncore.conf" "$stage$libexec/modprobe.d/"

if [[ -d $repo/selftests ]]; then
	cp -a "$repo/selftests" "$stage/selftests"
fi

# Built user tools: executable ELF files under tools/, minus the VM bench
# and the host-only unit tests.
mkdir -p "$stage/tools/bin"
while IFS= read -r -d '' f; do
	[[ $(head -c 4 "$f") == $'\x7fELF' ]] || continue
	rel=${f#"$repo/"}
	copy_elf "$f" "/$rel"
	ln -sf "/$rel" "$stage/tools/bin/$(basename "$f")"
done < <(find "$repo/tools" \( -path "$repo/tools/vm" -o -path "$repo/tools/unittest" \) -prune \
	-o -type f -perm -u+x -print0 | LC_ALL=C sort -z)
# QPI_VM_BIN: a folder of more executables for /tools/bin, for one run
# (tools/prometheus/test.sh: node_exporter).  Not a folder under tools/,
# whence every guest that boots meanwhile would take them, and could find
# them gone half way.
if [[ -n ${QPI_VM_BIN:-} ]]; then
	for f in "$QPI_VM_BIN"/*; do
		[[ -f $f && -x $f ]] || continue
		copy_elf "$f" "/tools/extra/$(basename "$f")"
		ln -sf "/tools/extra/$(basename "$f")" "$stage/tools/bin/$(basename "$f")"
	done
fi

install -m 755 "$here/init" "$stage/init"
: > "$stage/etc/qpivm.env"
for d in "${extra[@]}"; do cp -a "$d/." "$stage/"; done

find "$stage" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --reproducible -R 0:0 --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
