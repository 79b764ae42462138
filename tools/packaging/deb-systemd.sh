#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Both packages as an operator installs them, under a real systemd: a QEMU
# (TCG) guest boots a Debian bookworm image (systemd as PID 1, udev, dkms,
# the headers of its kernel, perf) from a virtio disk, at the kernel's own
# kernel.perf_event_paranoid (3), then deb-systemd-run.sh (a service of
# the image, run at every boot) installs qpi-uncore-dkms and qpistat with
# apt on a machine without QPI, reboots, checks that the exporter does not
# start there, makes it a two-socket SNB-EP (qpisim loaded at boot by
# modules-load.d), reboots, checks the udev hand-over, both units, an
# operator's paranoid 2, qpistat --check, and purges them.  KTAP output.
#   tools/packaging/deb-systemd.sh
# QPI_DEBS="<dkms .deb> <qpistat .deb>" uses packages already built.  The
# image's root is made once with mmdebstrap (about 1.5 GB, network to
# deb.debian.org) and cached in ~/.cache/qpi_uncore/sysguest/bookworm;
# each run boots a copy.  The boots and the DKMS build in the guest under
# TCG: about 20 minutes on idle cores, over an hour when the host is
# loaded; the limit is QPI_GUEST_TIMEOUT (default 4500 s).  Three boots.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/qpi_uncore/sysguest
timeout=${QPI_GUEST_TIMEOUT:-4500}
suite=bookworm
say() { echo "deb-systemd.sh: $*" >&2; }
die() { say "$*"; echo "not ok 1 the systemd guest ran # $*"; exit 1; }
[[ $# == 0 ]] || { echo "usage: $0" >&2; exit 2; }
[[ $EUID == 0 ]] || die "needs root (mmdebstrap, chroot, mke2fs -d of a root's files)"

work=$(mktemp -d "${TMPDIR:-/var/tmp}/qpi-deb-systemd.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The image's root: what an operator's server has (systemd, udev, dkms
# with its compiler, the kernel with its headers, perf, curl to scrape the
# exporter), nothing of ours.
root=$cache/$suite
if [[ ! -f $root/.qpi-ok ]]; then
	command -v mmdebstrap > /dev/null || die "missing: mmdebstrap (apt-get install mmdebstrap)"
	say "making $root with mmdebstrap (once)"
	rm -rf "$root" "$root.new"
	mkdir -p "$cache"
	mmdebstrap --variant=apt --mode=root \
		--include=systemd,systemd-sysv,udev,dkms,linux-image-amd64,linux-headers-amd64,linux-perf,kmod,curl,initramfs-tools,procps \
		"$suite" "$root.new" http://deb.debian.org/debian > "$work/mmdebstrap.log" 2>&1 || {
		tail -n 20 "$work/mmdebstrap.log" >&2
		die "mmdebstrap failed"
	}
	rm -rf "$root.new"/var/cache/apt/archives/*.deb
	: > "$root.new/.qpi-ok"
	mv "$root.new" "$root"
fi
kver=$(basename "$(find "$root/lib/modules" -mindepth 1 -maxdepth 1 -type d | sort -V | tail -n 1)")
[[ -f $root/boot/vmlinuz-$kver && -f $root/boot/initrd.img-$kver ]] || die "no kernel $kver in $root/boot"
say "guest kernel $kver"

debs=${QPI_DEBS:-}
if [[ -z $debs ]]; then
	debs=$("$here/deb.sh" --no-lintian "$work/deb") || die "make deb failed"
fi
dkms_deb=$(echo "$debs" | tr ' ' '\n' | grep '/qpi-uncore-dkms_' || true)
stat_deb=$(echo "$debs" | tr ' ' '\n' | grep '/qpistat_' || true)
[[ -f $dkms_deb && -f $stat_deb ]] || die "no packages in: $debs"

# This run's copy of the root
g=$work/root
say "copying the root"
cp -a "$root" "$g"

# qpisim.ko for the guest's kernel, built in the copy (its headers and
# compiler), installed where modprobe finds it: a test module, never
# packaged.  A copy of the tree, no objects.
b=/var/tmp/qpi-build
mkdir -p "$g$b"
cp -a "$repo/Kbuild" "$repo/Makefile" "$repo/drivers" "$repo/include" "$g$b/"
find "$g$b" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
	-o -name 'generated' \) -exec rm -rf {} +
"$repo/tools/kernels/in-root.sh" "$g" make -C "/usr/src/linux-headers-$kver" M="$b" \
	modules > "$work/build.log" 2>&1 || {
	tail -n 20 "$work/build.log" >&2
	die "qpisim does not build for $kver"
}
install -D -m 644 "$g$b/drivers/qpisim/qpisim.ko" "$g/lib/modules/$kver/extra/qpisim.ko"
rm -rf "${g:?}$b"
"$repo/tools/kernels/in-root.sh" "$g" depmod -a "$kver"

# The test machine: first one without QPI; from its third boot a
# two-socket SNB-EP whose uncore functions exist from boot: the test then
# puts qpisim.conf into /etc/modules-load.d, systemd-modules-load loads
# qpisim, and udev's coldplug (which loads intel_uncore for the CPU) waits
# for it, as on hardware where the functions are there before any module
# loads.  kernel.perf_event_paranoid stays the kernel's own default (3):
# no sysctl.d file.  node_exporter's textfile directory, as its package
# makes it.
echo 'options qpisim platform=snbep link_clock=1' > "$g/etc/modprobe.d/qpisim.conf"
mkdir -p "$g/etc/systemd/system/systemd-udev-trigger.service.d"
printf '[Unit]\nAfter=systemd-modules-load.service\n' \
	> "$g/etc/systemd/system/systemd-udev-trigger.service.d/qpisim.conf"
mkdir -p "$g/var/lib/prometheus/node-exporter"
echo qpiguest > "$g/etc/hostname"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' > "$g/etc/fstab"
# root on the console without a password, for a look at a failed run
passwd -R "$g" -d root > /dev/null 2>&1 || sed -i 's/^root:[^:]*:/root::/' "$g/etc/shadow"

# The test, a service run at every boot, its KTAP on the second serial
# port (the console has the kernel's and systemd's messages)
mkdir -p "$g/root/qpi"
cp "$dkms_deb" "$stat_deb" "$g/root/qpi/"
echo qpisim > "$g/root/qpi/qpisim.conf"
install -m 755 "$here/deb-systemd-run.sh" "$g/root/qpi/run.sh"
cat > "$g/etc/systemd/system/qpi-test.service" <<'EOT'
[Unit]
Description=qpi_uncore package test (tools/packaging/deb-systemd-run.sh)
After=multi-user.target qpistat.service qpistat-textfile.service

[Service]
Type=oneshot
ExecStart=/root/qpi/run.sh
StandardOutput=tty
StandardError=journal
TTYPath=/dev/ttyS1
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
EOT
ln -sf /etc/systemd/system/qpi-test.service "$g/etc/systemd/system/multi-user.target.wants/qpi-test.service"

img=$work/root.img
size=$(($(du -sm "$g" | cut -f1) + 1536))
mke2fs -q -t ext4 -L qpiguest -d "$g" "$img" "${size}M" >&2 || die "mke2fs failed"
cp "$g/boot/vmlinuz-$kver" "$g/boot/initrd.img-$kver" "$work/"
rm -rf "$g"

say "booting $kver under systemd (timeout ${timeout}s; three boots, DKMS compiles under TCG)"
log=$cache/last-console.log
ktap=$cache/last-ktap.log
: > "$ktap"
start=$SECONDS
# no -no-reboot: the test reboots the guest twice, QEMU boots it again
timeout "$timeout" qemu-system-x86_64 -machine pc -accel "tcg,thread=single" -display none \
	-nic none -vga none -m 2048 -cpu "SandyBridge,model=45,-hypervisor" \
	-smp "4,sockets=2,cores=2" -kernel "$work/vmlinuz-$kver" -initrd "$work/initrd.img-$kver" \
	-drive "file=$img,format=raw,if=virtio" \
	-serial "file:$log" -serial "file:$ktap" -monitor none \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 loglevel=4 systemd.show_status=1" \
	< /dev/null > "$work/qemu.log" 2>&1 || true
say "guest ran $((SECONDS - start)) s; console $log"
tr -d '\r' < "$ktap" > "$work/ktap"
code=$(sed -n 's/^QPIGUEST-EXIT: //p' "$work/ktap" | tail -n 1)
grep -v '^QPIGUEST-' "$work/ktap" || true
if [[ -z $code ]]; then
	echo "not ok 99 the guest finished the test (no QPIGUEST-EXIT)"
	tr -d '\r' < "$log" | tail -n 40 | sed 's/^/# /'
	exit 1
fi
exit "$code"
