#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One kernel of the test matrix, ready to build for and to boot:
#   tools/kernels/kernel.sh NAME     provision NAME, print its variables
#   tools/kernels/kernel.sh --list   the default matrix, one NAME a line
#
# NAME is a series with an optional flavour: 5.10, 6.1, 6.12, 7.2, 7.3,
# 7.3-rt, or newest / newest-rt (the newest trixie-backports series).  Each
# series comes from the Debian suite that ships it:
#   5.10  bullseye           built in a bullseye chroot (its gcc-10)
#   6.1   bookworm           the host's own kernel and compiler
#   6.12  trixie             built in a trixie chroot (gcc-14)
#   7.x   trixie-backports   the same trixie chroot
# Headers are installed into the chroot by its own apt; the image and the
# modules (intel-uncore.ko for the hand-over tests) are unpacked from the
# archive into our cache, never installed on the host.  Everything is cached
# under ${XDG_CACHE_HOME:-~/.cache}/qpi_uncore; a second call is quick.
#
# Printed, for eval:
#   QPI_KNAME   the NAME asked for      QPI_KVER    the release (uname -r)
#   QPI_KIMAGE  vmlinuz on the host     QPI_KMODS   its module tree on the host
#   QPI_KROOT   where to build: / or a chroot
#   QPI_KBUILD  the headers, as seen from QPI_KROOT
#   QPI_KSPARSE a newer sparse in QPI_KROOT (the trixie root: unstable's),
#               or empty
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/qpi_uncore
mirror=${QPI_DEBIAN_MIRROR:-http://deb.debian.org/debian}
export DEBIAN_FRONTEND=noninteractive

say() { echo "kernel.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# the default matrix: Debian 11 to the newest backports kernel, and that
# kernel's PREEMPT_RT flavour
if [[ ${1:-} == --list ]]; then
	printf '%s\n' 5.10 6.1 6.12 7.2 newest newest-rt
	exit 0
fi
[[ $# == 1 && $1 =~ ^([0-9]+\.[0-9]+|newest)(-rt)?$ ]] ||
	die "usage: $0 NAME (5.10, 6.1, 6.12, 7.2, 7.3, 7.3-rt, newest, newest-rt) | --list"
name=$1
series=${BASH_REMATCH[1]}
flavour=amd64
[[ -z ${BASH_REMATCH[2]} ]] || flavour=rt-amd64

# suite SERIES: the suite (and so the chroot) a series comes from
suite() {
	case $1 in
	5.10) echo bullseye ;;
	6.1) echo host ;;
	*) echo trixie ;;	# 6.12, and trixie-backports through the same chroot
	esac
}

# chroot SUITE: a buildd chroot of SUITE with what module builds need,
# made once with mmdebstrap (about a minute) and kept
chroot_dir() {
	local s=$1 dir=$cache/chroot/$1 sources
	if [[ ! -x $dir/usr/bin/make ]]; then
		command -v mmdebstrap > /dev/null ||
			apt-get install -y --no-install-recommends mmdebstrap >&2 ||
			die "cannot install mmdebstrap"
		sources=("deb $mirror $s main")
		[[ $s != trixie ]] || sources+=("deb $mirror trixie-backports main")
		say "making the $s build chroot in $dir"
		rm -rf "$dir.new"
		mkdir -p "$cache/chroot"
		mmdebstrap --quiet --variant=buildd --components=main \
			--include=sparse,dkms,kmod,ca-certificates \
			"$s" "$dir.new" "${sources[@]}" >&2 || die "mmdebstrap $s failed"
		rm -rf "$dir"
		mv "$dir.new" "$dir"
	fi
	echo "$dir"
}

in_root() { "$here/in-root.sh" "$@"; }

# newer_sparse ROOT: unstable's sparse in ROOT/opt/sparse, for the kernels
# whose headers the suite's own sparse cannot parse (trixie's 0.6.4 and
# 7.x's __typeof_unqual__); echoes its path inside ROOT.  Only the one
# binary, which needs nothing but the C library of a trixie root.
newer_sparse() {
	local root=$1 t
	if [[ ! -x $root/opt/sparse/sparse ]]; then
		t=$(mktemp -d)
		(cd "$t" && "$here/apt.sh" apt-get download sparse/unstable) >&2 ||
			{ rm -rf "$t"; return 0; }
		dpkg -x "$t"/sparse_*.deb "$t/x" && mkdir -p "$root/opt/sparse" &&
			cp "$t/x/usr/bin/sparse" "$root/opt/sparse/sparse"
		rm -rf "$t"
	fi
	in_root "$root" /opt/sparse/sparse --version > /dev/null 2>&1 &&
		echo /opt/sparse/sparse
}

# newest_headers ROOT REGEX: the newest linux-headers-<release> whose
# release matches REGEX in ROOT's package lists (refreshed once a day)
newest_headers() {
	local root=$1 re=$2 stamp=$1/var/lib/apt/lists/.qpi-updated
	if [[ -z $(find "$stamp" -mmin -1440 2> /dev/null) ]]; then
		in_root "$root" apt-get -qq update >&2 || die "apt-get update in $root failed"
		: > "$stamp"
	fi
	in_root "$root" apt-cache search --names-only "^linux-headers-$re\$" |
		sed -E 's/^linux-headers-([^ ]+) .*/\1/' | sort -V | tail -n 1
}

# unpack_kernel KVER: vmlinuz and modules of KVER from the archive into
# $cache/kernels/KVER (through tools/kernels/apt.sh), with modules.dep
unpack_kernel() {
	local kver=$1 dir=$cache/kernels/$1 pkgs=() p deb
	[[ ! -f $dir/ok ]] || return 0
	# 5.10 and 6.12: one linux-image-*-unsigned; 7.x: split into
	# linux-binary (vmlinuz) and linux-modules
	if [[ -n $("$here/apt.sh" apt-cache showpkg "linux-modules-$kver" | sed -n '/^Versions:/{n;p}') ]]; then
		pkgs=("linux-binary-$kver" "linux-modules-$kver")
	else
		pkgs=("linux-image-$kver-unsigned")
	fi
	say "unpacking ${pkgs[*]}"
	rm -rf "$dir"
	mkdir -p "$dir/debs" "$dir/root"
	(cd "$dir/debs" && "$here/apt.sh" apt-get download "${pkgs[@]}") >&2 ||
		die "cannot download ${pkgs[*]}"
	for deb in "$dir"/debs/*.deb; do
		dpkg -x "$deb" "$dir/root"
	done
	rm -rf "$dir/debs"
	# merged /usr or not, the tree is found at lib/modules
	[[ -e $dir/root/lib ]] || ln -s usr/lib "$dir/root/lib"
	p=$(find "$dir/root/lib/modules/$kver/" "$dir/root/boot/" -maxdepth 1 \
		-name "vmlinuz*" 2> /dev/null | head -n 1 || true)
	[[ -n $p ]] || die "no vmlinuz in ${pkgs[*]}"
	ln -sfn "${p#"$dir/"}" "$dir/vmlinuz"
	# the packages leave modules.order and modules.builtin* to a depmod
	# run at install time: without them it warns, and finds the same
	depmod -b "$dir/root" "$kver" 2> /dev/null || die "depmod for $kver failed"
	: > "$dir/ok"
}

# one provisioning at a time: parallel builds share the chroots and apt
mkdir -p "$cache"
exec 9> "$cache/kernel.lock"
flock 9

s=$(suite "$series")
if [[ $s == host ]]; then
	[[ $flavour == amd64 ]] || die "$name: the host kernel has no RT flavour here"
	"$repo/tools/vm/deps.sh" >&2
	kver=$("$repo/tools/vm/kver.sh")
	[[ $kver == "$series".* ]] || die "$name: the host's kernel is $kver"
	root=/
	kimage=/boot/vmlinuz-$kver
	kmods=/lib/modules/$kver
else
	root=$(chroot_dir "$s")
	if [[ $series == newest ]]; then
		re="[0-9.]+\+deb[0-9]+-$flavour"
	else
		re="${series//./\\.}\.[0-9]+(-[0-9]+)?(\+deb[0-9]+)?-$flavour"
	fi
	kver=$(newest_headers "$root" "$re")
	[[ -n $kver ]] || die "$name: no linux-headers package in $s"
	if [[ ! -f $root/usr/src/linux-headers-$kver/Module.symvers ]]; then
		say "installing linux-headers-$kver in $root"
		in_root "$root" apt-get install -y -qq --no-install-recommends \
			"linux-headers-$kver" >&2 || die "cannot install linux-headers-$kver"
	fi
	unpack_kernel "$kver"
	kimage=$cache/kernels/$kver/vmlinuz
	kmods=$cache/kernels/$kver/root/lib/modules/$kver
fi
kbuild=/usr/src/linux-headers-$kver
[[ -f $root$kbuild/Module.symvers ]] || kbuild=/lib/modules/$kver/build
ksparse=
[[ $s != trixie ]] || ksparse=$(newer_sparse "$root")
cat <<EOF
QPI_KNAME=$name
QPI_KVER=$kver
QPI_KIMAGE=$kimage
QPI_KMODS=$kmods
QPI_KROOT=$root
QPI_KBUILD=$kbuild
QPI_KSPARSE=$ksparse
EOF
