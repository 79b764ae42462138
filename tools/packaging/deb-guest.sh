#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package on a matrix kernel, for real: a QEMU guest of kernel
# NAME boots into a copy of that kernel's build root (an ext4 image), where
# deb-guest-run.sh installs qpi-uncore-dkms with dpkg, so DKMS builds the
# module in the guest, loads it beside qpisim and counts with perf stat.
#   tools/packaging/deb-guest.sh [NAME]     NAME as for tools/kernels/kernel.sh
# Without NAME: newest, else 6.12 while the module does not build for the
# newest.  QPI_DEB=<.deb> uses a package already built.  KTAP output; about
# 10 minutes under TCG.  The guest's root (the build root with linux-perf)
# is cached under ~/.cache/qpi_uncore/guest/<release>.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/qpi_uncore
timeout=${QPI_GUEST_TIMEOUT:-1800}
say() { echo "deb-guest.sh: $*" >&2; }
die() { say "$*"; exit 1; }
if [[ $# -gt 1 ]]; then
	echo "usage: $0 [NAME]" >&2
	exit 2
fi
names=("${1:-newest}")
[[ $# == 1 ]] || names+=(6.12)

work=$(mktemp -d "${TMPDIR:-/tmp}/qpi-deb-guest.XXXXXX")
trap 'rm -rf "$work"' EXIT

# qpisim.ko for NAME, built with qpi_uncore in a private copy of the tree
# in NAME's build root (as tools/kernels/build.sh does, but not in its
# shared folder): a tree that does not build for NAME would not build in
# DKMS either, and the next NAME is tried.
build_modules() {
	local rel=/var/tmp/qpi-deb-guest.$$ out
	out=${QPI_KROOT%/}$rel
	rm -rf "$out"
	mkdir -p "$out"
	cp -a "$repo/Kbuild" "$repo/Makefile" "$repo/drivers" "$repo/include" "$out/"
	find "$out" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
		-o -name 'generated' \) -exec rm -rf {} +
	if ! "$repo/tools/kernels/in-root.sh" "$QPI_KROOT" \
		make -C "$QPI_KBUILD" M="$rel" modules > "$work/build.log" 2>&1; then
		rm -rf "$out"
		return 1
	fi
	cp "$out/drivers/qpisim/qpisim.ko" "$work/qpisim.ko"
	rm -rf "$out"
}
ko=
for name in "${names[@]}"; do
	env=$("$repo/tools/kernels/kernel.sh" "$name") || { say "cannot provision $name"; continue; }
	eval "$env"
	if [[ $QPI_KROOT == / ]]; then
		say "$name is the host's kernel: the guest is made from a build root (a chroot); use 5.10, 6.12 or 7.x"
		continue
	fi
	say "$name: $QPI_KVER; building the modules for it"
	if build_modules; then
		ko=$work/qpisim.ko
		break
	fi
	grep -E 'error|conftest' "$work/build.log" | head -n 15 | sed 's/^/  /' >&2 || true
	say "the modules do not build for $name ($QPI_KVER)"
done
[[ -n $ko ]] || die "no kernel of ${names[*]} to test on"

deb=${QPI_DEB:-}
if [[ -z $deb ]]; then
	deb=$("$here/deb.sh" --no-lintian "$work/deb" | grep "/qpi-uncore-dkms_")
fi
[[ -f $deb ]] || die "no package: $deb"

# The guest's root: the build root of the kernel (gcc, make, dkms, kmod,
# the headers) with the kernel's modules (as if its package were
# installed: DKMS runs no depmod for a kernel without modules.dep), perf
# and busybox (poweroff), without the other kernels (DKMS would build for
# them too) nor the build root's scratch files.
groot=$cache/guest/$QPI_KVER/root
if [[ ! -f $groot/.qpi-guest-ok || ! -f $groot/lib/modules/$QPI_KVER/modules.dep ]]; then
	say "making the guest root $groot from $QPI_KROOT"
	rm -rf "$groot"
	mkdir -p "$groot"
	tar -C "$QPI_KROOT" --one-file-system --exclude='./var/tmp/*' --exclude='./tmp/*' \
		--exclude='./var/cache/apt/archives/*.deb' --exclude='./usr/src/qpi_uncore-*' \
		--exclude='./var/lib/dkms/*' -cf - . | tar -C "$groot" -xf -
	for d in "$groot"/lib/modules/*; do
		[[ $(basename "$d") == "$QPI_KVER" ]] || rm -rf "$d"
	done
	mkdir -p "$groot/lib/modules/$QPI_KVER"
	tar -C "$QPI_KMODS" --exclude=./build --exclude=./source -cf - . |
		tar -C "$groot/lib/modules/$QPI_KVER" -xf -
	# linux-perf of the suite (bullseye: linux-perf-5.10)
	series=$(echo "$QPI_KVER" | cut -d. -f1,2)
	in=("$repo/tools/kernels/in-root.sh" "$groot")
	"${in[@]}" apt-get install -y -qq --no-install-recommends linux-perf > "$work/apt.log" 2>&1 ||
		"${in[@]}" apt-get install -y -qq --no-install-recommends "linux-perf-$series" >> "$work/apt.log" 2>&1 || {
		tail -n 20 "$work/apt.log" >&2
		die "cannot install linux-perf in $groot"
	}
	"${in[@]}" apt-get clean
	rm -rf "$groot"/var/lib/apt/lists/*
	install -D -m 755 /bin/busybox "$groot/usr/local/bin/busybox"
	: > "$groot/.qpi-guest-ok"
fi

# this run's files, in the root's /qpi
rm -rf "$groot/qpi"
mkdir -p "$groot/qpi"
cp "$deb" "$ko" "$groot/qpi/"
install -m 755 "$here/deb-guest-run.sh" "$groot/qpi/run.sh"

# ext4 without the features the oldest kernel (5.10) lacks, or which need
# a crc32c module; room for the DKMS build
img=$work/root.img
size=$(($(du -sm "$groot" | cut -f1) + 1024))
mke2fs -q -t ext4 -O '^metadata_csum,^orphan_file' -L qpiguest -d "$groot" "$img" "${size}M" >&2 ||
	die "mke2fs failed"

# A busybox initramfs: virtio_blk and ext4 with what they need from
# modules.dep (those built in are not there), then /dev/vda as the root.
ird=$work/initramfs
mkdir -p "$ird"/{bin,dev,proc,sys,newroot,mods}
cp /bin/busybox "$ird/bin/busybox"
for a in sh mount umount insmod switch_root sleep mkdir cat echo; do
	ln -s busybox "$ird/bin/$a"
done
deps=$QPI_KMODS/modules.dep
: > "$ird/mods/order"
want() { # MODULE: it and its dependencies, most basic first
	local line m d name i
	line=$(grep -E "(^|/)$1\.ko(\.xz|\.zst|\.gz)?:" "$deps" | head -n 1) || return 0
	read -ra d <<< "${line#*:}"
	for ((i = ${#d[@]} - 1; i >= 0; i--)); do
		want "$(basename "${d[$i]}" | sed -E 's/\.ko(\.xz|\.zst|\.gz)?$//')"
	done
	m=${line%%:*}
	name=$(basename "$m" | sed -E 's/\.ko(\.xz|\.zst|\.gz)?$//')
	! grep -qx "$name.ko" "$ird/mods/order" || return 0
	case $m in
	*.xz) xz -dc "$QPI_KMODS/$m" > "$ird/mods/$name.ko" ;;
	*.zst) zstd -qdc "$QPI_KMODS/$m" > "$ird/mods/$name.ko" ;;
	*.gz) gzip -dc "$QPI_KMODS/$m" > "$ird/mods/$name.ko" ;;
	*) cp "$QPI_KMODS/$m" "$ird/mods/$name.ko" ;;
	esac
	echo "$name.ko" >> "$ird/mods/order"
}
for m in virtio virtio_ring virtio_pci virtio_blk crc32c_generic ext4; do want "$m"; done
cat > "$ird/init" <<'EOT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /mods/order); do insmod "/mods/$m" 2> /dev/null; done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mount -t ext4 /dev/vda /newroot || { echo "initramfs: cannot mount /dev/vda"; cat /proc/partitions; echo o > /proc/sysrq-trigger; }
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /qpi/run.sh
EOT
chmod 755 "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$work/initramfs.gz"

say "booting $QPI_KVER (timeout ${timeout}s; DKMS compiles under TCG)"
qemu=(qemu-system-x86_64 -machine pc -accel "tcg,thread=single" -nographic -no-reboot
	-nic none -vga none -m 2048 -cpu "SandyBridge,model=45,-hypervisor"
	-smp "4,sockets=2,cores=2" -kernel "$QPI_KIMAGE" -initrd "$work/initramfs.gz"
	-drive "file=$img,format=raw,if=virtio"
	-append "console=ttyS0 panic=-1 loglevel=4 rw")
log=$cache/guest/$QPI_KVER/last.log
start=$SECONDS
timeout "$timeout" "${qemu[@]}" < /dev/null > "$log" 2>&1 || true
say "guest ran $((SECONDS - start)) s; log $log"
# the KTAP between the markers (the console's escape codes may precede
# the first one on its line)
tr -d '\r' < "$log" | sed -n '/QPIGUEST-BEGIN$/,/^QPIGUEST-EXIT/p' |
	grep -v 'QPIGUEST-' > "$work/ktap" || true
code=$(tr -d '\r' < "$log" | sed -n 's/^QPIGUEST-EXIT: //p' | tail -n 1)
if [[ -z $code ]] || ! grep -q '^1\.\.' "$work/ktap"; then
	cat "$work/ktap"
	echo "not ok 1 the guest of $QPI_KVER ran the package tests"
	tr -d '\r' < "$log" | tail -n 30 | sed 's/^/# /'
	exit 1
fi
cat "$work/ktap"
exit "$code"
